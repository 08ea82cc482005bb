/* The region bookkeeping alone: td_region_enter + td_region_exit pairs on
 * one thread, N times (argv[1]), with the none backend (no counter read),
 * one call site and a nested second region every 4th call. Prints ns per
 * enter/exit pair: the part of a hooked call that is td_region's. */
#include "td_region.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 10000000;
	static struct td_collector c;
	static struct td_thread t;
	if (td_config_init(&c.cfg))
		return 1;
	c.backend.ops = &td_backend_none_ops;
	c.region_names[0] = "a";
	c.region_names[1] = "b";
	c.nr_regions = 2;
	t.regions = td_regions_new(&c.cfg);
	if (!t.regions)
		return 1;
	double t0 = now_ns();
	for (long i = 0; i < n; i++) {
		td_region_enter(&c, &t, 0, 0x401000);
		if ((i & 3) == 0) {
			td_region_enter(&c, &t, 1, 0x402000);
			td_region_exit(&c, &t, 1);
		}
		td_region_exit(&c, &t, 0);
	}
	double t1 = now_ns();
	printf("calls %ld ns_per_call %.2f (enter+exit, backend none, 1.25 regions per iteration)\n", n,
	       (t1 - t0) / (double)n);
	td_regions_delete(t.regions);
	return 0;
}
