/* emulate_lib: the work of emulate_regions, in a shared library so the
 * functions can be hooked as regions ([regions] functions = emulate_lib_*). */
#include <stdint.h>
#include <time.h>

static uint64_t emulate_lib_cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Burns us microseconds of the calling thread's CPU time. */
uint64_t emulate_lib_burn(long us)
{
	uint64_t end = emulate_lib_cpu_ns() + (uint64_t)us * 1000u, x = 1;
	while (emulate_lib_cpu_ns() < end)
		for (int i = 0; i < 100; i++)
			x = x * 6364136223846793005u + 1442695040888963407u;
	return x;
}

uint64_t emulate_lib_hot(long us) { return emulate_lib_burn(us) + 1; }
uint64_t emulate_lib_cold(long us) { return emulate_lib_burn(us) + 2; }
