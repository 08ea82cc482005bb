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

unsigned long regions_lib_fib(unsigned n)
{
	/* Through the GOT (a volatile pointer loaded from it), as a call from
	 * another object would be: a direct self-call is never hooked. */
	unsigned long (*volatile self)(unsigned) = regions_lib_fib;
	return n < 2 ? n : self(n - 1) + self(n - 2);
}
