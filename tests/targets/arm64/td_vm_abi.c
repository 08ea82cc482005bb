/* td-vm-abi: calls every libtdvm ABI function with known arguments and
 * checks the results, so that hooking them (TDPROBE_REGIONS=vm_abi_*)
 * must leave arguments and return values intact. Prints one line per
 * check; exit 0 when all hold. */
#include "td_vm_lib.h"

#include <stdio.h>

static int bad;

static void check(const char *what, int ok)
{
	printf("%s %s\n", ok ? "ok  " : "FAIL", what);
	bad += !ok;
}

static long back_into_lib(long x)
{
	return vm_abi_ints(x, 0, 0, 0, 0, 0, 0, 0, 0, 1);
}

int main(void)
{
	check("10 integer arguments (8 in x0-x7, 2 on the stack)",
	      vm_abi_ints(1, 2, 3, 4, 5, 6, 7, 8, 9, 10) == 385);
	struct vm_hfa4 h = vm_abi_hfa(1.5, 2.5, 3, 4, 10, 0.25, 2, 8, 0.5f);
	check("8 doubles in v0-v7 + a float on the stack, HFA returned in v0-v3",
	      h.a == 4.0 && h.b == 12.0 && h.c == 9.75 && h.d == 16.5);
	struct vm_big in = {{1, 2, 3, 4, 5, 6}};
	struct vm_big b = vm_abi_big(3, in);
	check("struct by reference and 48-byte struct returned through x8",
	      b.v[0] == 3 && b.v[1] == 7 && b.v[2] == 11 && b.v[5] == 23);
	check("varargs doubles", vm_abi_varargs(4, 1.0, 2.0, 3.0, 4.0) == 30.0);
	check("long double (quad, q registers)", vm_abi_ld(3.0L, 0.5L) == 2.5L);
	check("recursion (100 levels)", vm_abi_recurse(100) == 5050);
	check("nested hooked calls (library -> program -> library)",
	      vm_abi_nest(back_into_lib, 4) == 28);
	printf("%d checks failed\n", bad);
	return bad ? 1 : 0;
}
