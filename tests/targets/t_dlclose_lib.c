/* Loaded and unloaded again and again by t_dlclose. */
#include <unistd.h>

__attribute__((noinline)) long dlc_leaf(long x)
{
	return x * 3 + 1;
}

long dlc_work(long n)
{
	long s = 0;
	for (long i = 0; i < n; i++)
		s += dlc_leaf(i); /* through the library's own PLT: a hooked call site */
	return s + (long)getppid() * 0;
}
