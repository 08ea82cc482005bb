/* emulate_regions: two threads alternate between two marked regions
 * ("hot", "cold") and unmarked work, for a fixed amount of CPU each, so
 * the emulated PMU can give each region and the remainder different true
 * fractions. Prints one line; exit 0.
 * Usage: emulate_regions [rounds, default 200] */
#define _GNU_SOURCE
#include "tdprobe.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static int rounds = 200;

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t burn_us(long us)
{
	uint64_t end = thread_cpu_ns() + (uint64_t)us * 1000u, x = 1;
	while (thread_cpu_ns() < end)
		for (int i = 0; i < 100; i++)
			x = x * 6364136223846793005u + 1442695040888963407u;
	return x;
}

static void *worker(void *arg)
{
	pthread_setname_np(pthread_self(), arg);
	uint64_t x = 0;
	for (int i = 0; i < rounds; i++) {
		tdprobe_region_begin("hot");
		x += burn_us(150);
		tdprobe_region_end("hot");
		x += burn_us(60);
		tdprobe_region_begin("cold");
		x += burn_us(50);
		tdprobe_region_end("cold");
	}
	return (void *)(uintptr_t)(x & 1);
}

int main(int argc, char **argv)
{
	if (argc > 1)
		rounds = atoi(argv[1]);
	static const char *names[] = { "left", "right" };
	pthread_t th[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&th[i], NULL, worker, (void *)names[i]);
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	printf("emulate_regions: 2 threads x %d rounds\n", rounds);
	return 0;
}
