/* Functions for the hooked-regions test, called through the PLT (exported,
 * default visibility, -fPIC: calls inside the library go through its GOT
 * too, so nested and recursive calls are hooked as well). */
static volatile unsigned long regions_lib_sink;

unsigned long regions_lib_leaf(unsigned long x)
{
	for (int i = 0; i < 50; i++)
		regions_lib_sink += x + (unsigned long)i;
	return regions_lib_sink;
}

unsigned long regions_lib_outer(int n)
{
	unsigned long s = 0;
	for (int i = 0; i < n; i++)
		s += regions_lib_leaf((unsigned long)i);
	return s;
}

/* A bare jump through regions_lib_fib's PLT slot: the recursion below goes
 * through the PLT as a call from another object would, and the return
 * address stays the one into regions_lib_fib. (A direct self-call is never
 * hooked, and a function pointer loaded from the GOT is deliberately left
 * alone by the hooks, to keep function pointers comparable.) */
#if defined(__aarch64__)
/* GCC has no naked functions on aarch64: the same bare jump at top level
 * (a branch to a preemptible symbol goes through the PLT). */
unsigned long regionsx_fib_plt(unsigned n);
__asm__(".globl regionsx_fib_plt\n\t.type regionsx_fib_plt, %function\n"
	"regionsx_fib_plt:\n\tb regions_lib_fib\n\t.size regionsx_fib_plt, .-regionsx_fib_plt");
#else
__attribute__((naked)) unsigned long regionsx_fib_plt(unsigned n)
{
	__asm__("jmp regions_lib_fib@PLT");
}
#endif

unsigned long regions_lib_fib(unsigned n)
{
	return n < 2 ? n : regionsx_fib_plt(n - 1) + regionsx_fib_plt(n - 2);
}
