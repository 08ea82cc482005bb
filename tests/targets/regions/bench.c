/* Calls regions_bench_work N times (argv[1], default 10 million) and prints
 * ns per call measured around the loop only. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

unsigned long regions_bench_work(unsigned long x);

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 10000000;
	unsigned long x = 1;
	regions_bench_work(x); /* bind the PLT slot outside the timed loop */
	double t0 = now_ns();
	for (long i = 0; i < n; i++)
		x = regions_bench_work(x);
	double t1 = now_ns();
	printf("calls %ld ns_per_call %.2f checksum %lu\n", n, (t1 - t0) / (double)n, x & 0xff);
	return 0;
}
