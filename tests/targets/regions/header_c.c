/* tdprobe.h compiles as C with -Wall -Wextra -Werror -pedantic, and the
 * markers are usable as expressions and statements. */
#include <tdprobe.h>

int main(void)
{
	tdprobe_region_begin("c");
	tdprobe_region_end("c");
	return 0;
}
