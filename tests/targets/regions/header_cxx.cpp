// tdprobe.h compiles as C++ with -Wall -Wextra -Werror -pedantic.
#include <tdprobe.h>

int main()
{
	{
		tdprobe::region r("cxx");
	}
	tdprobe_region_begin("cxx2");
	tdprobe_region_end("cxx2");
	return 0;
}
