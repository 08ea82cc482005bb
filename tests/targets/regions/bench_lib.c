/* The benchmark's hooked function: about 10 ns of dependent integer work,
 * in a shared library so every call goes through the PLT/GOT. */
unsigned long regions_bench_work(unsigned long x)
{
	for (int i = 0; i < 8; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	return x;
}
