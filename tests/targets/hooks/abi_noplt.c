/* Built with -fno-plt: calls go through GLOB_DAT GOT slots, not the PLT. */
#include "abi.h"

long abi_noplt_calls(long x)
{
	return abi_many_ints(x, x, x, x, x, x, x, x, x, x) + abi_recurse(x);
}
