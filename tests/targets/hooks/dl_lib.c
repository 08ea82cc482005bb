/* libtddl: loaded with dlopen after startup by hooks_dlopen. dl_entry calls
 * dl_leaf through its own PLT; dl_leaf is also looked up with dlsym. */
#include <stdint.h>

uint64_t dl_leaf(uint64_t x)
{
	return x * 2654435761u + 7;
}

uint64_t dl_entry(uint64_t x)
{
	return dl_leaf(x) ^ dl_leaf(x + 1);
}
