/* emulate_threads: named threads that each burn a fixed amount of CPU, so
 * the emulated PMU (TDPROBE_BACKEND=emulate, per-thread fractions) has
 * something to attribute. Prints one line; exit 0.
 * Usage: emulate_threads [cpu milliseconds per thread, default 40] */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long cpu_ms = 40;

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t burn(long ms)
{
	uint64_t end = thread_cpu_ns() + (uint64_t)ms * 1000000u, x = 1;
	while (thread_cpu_ns() < end)
		for (int i = 0; i < 1000; i++)
			x = x * 6364136223846793005u + 1442695040888963407u;
	return x;
}

static void *worker(void *arg)
{
	pthread_setname_np(pthread_self(), arg);
	return (void *)(uintptr_t)(burn(cpu_ms) & 1);
}

int main(int argc, char **argv)
{
	if (argc > 1)
		cpu_ms = atol(argv[1]);
	static const char *names[] = { "alpha", "beta", "gamma" };
	pthread_t th[3];
	for (int i = 0; i < 3; i++)
		pthread_create(&th[i], NULL, worker, (void *)names[i]);
	uint64_t x = burn(cpu_ms / 2);
	for (int i = 0; i < 3; i++)
		pthread_join(th[i], NULL);
	printf("emulate_threads: 3 threads x %ld ms (%lu)\n", cpu_ms, (unsigned long)(x & 1));
	return 0;
}
