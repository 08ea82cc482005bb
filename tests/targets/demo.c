/* tdprobe-demo: named threads doing visibly different work, so that on a
 * machine with a PMU each thread shows a different TopDown profile:
 *   chaser    pointer chasing through a large random cycle (memory bound)
 *   brancher  data-dependent unpredictable branches (bad speculation)
 *   cruncher  tight dependent-free arithmetic (retiring)
 * Usage: tdprobe-demo [milliseconds per thread, default 300] */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long demo_ms = 300;

static uint64_t demo_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t demo_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* The work itself lives in libtdprobe-demo-work.so (demo_work.c), so that
 * [regions] functions = demo_chase_step, ... can hook the calls. */
uint64_t demo_chase_step(const uint32_t *next, uint32_t at, int n);
uint64_t demo_branch_step(uint64_t *seed, int n);
double demo_crunch_step(double x, int n);

static void *chaser(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "chaser");
	const uint32_t n = 1u << 22; /* 16 MiB of links: far beyond the caches */
	uint32_t *next = malloc(n * sizeof(*next));
	uint32_t *perm = malloc(n * sizeof(*perm));
	if (!next || !perm)
		return NULL;
	uint64_t seed = 88172645463325252ull;
	for (uint32_t i = 0; i < n; i++)
		perm[i] = i;
	for (uint32_t i = n - 1; i > 0; i--) { /* one random cycle */
		uint32_t j = (uint32_t)(demo_rand(&seed) % (i + 1));
		uint32_t t = perm[i];
		perm[i] = perm[j];
		perm[j] = t;
	}
	for (uint32_t i = 0; i < n; i++)
		next[perm[i]] = perm[(i + 1) % n];
	uint64_t end = demo_now_ns() + (uint64_t)demo_ms * 1000000u, at = 0, steps = 0;
	while (demo_now_ns() < end) {
		at = demo_chase_step(next, (uint32_t)at, 100000);
		steps++;
	}
	printf("chaser: %llu rounds (end %llu)\n", (unsigned long long)steps,
	       (unsigned long long)(at % 10));
	free(next);
	free(perm);
	return NULL;
}

static void *brancher(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "brancher");
	uint64_t seed = 0x9e3779b97f4a7c15ull, acc = 0, rounds = 0;
	uint64_t end = demo_now_ns() + (uint64_t)demo_ms * 1000000u;
	while (demo_now_ns() < end) {
		acc += demo_branch_step(&seed, 100000);
		rounds++;
	}
	printf("brancher: %llu rounds (acc %llu)\n", (unsigned long long)rounds,
	       (unsigned long long)(acc % 10));
	return NULL;
}

static void *cruncher(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "cruncher");
	double x = 1.0;
	uint64_t rounds = 0, end = demo_now_ns() + (uint64_t)demo_ms * 1000000u;
	while (demo_now_ns() < end) {
		x = demo_crunch_step(x, 100000) * 1e-9;
		rounds++;
	}
	printf("cruncher: %llu rounds (x %.1f)\n", (unsigned long long)rounds, x > 1 ? 1.0 : 0.0);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		demo_ms = atol(argv[1]);
	if (demo_ms <= 0)
		demo_ms = 300;
	pthread_t th[3];
	void *(*fn[3])(void *) = { chaser, brancher, cruncher };
	for (int i = 0; i < 3; i++)
		if (pthread_create(&th[i], NULL, fn[i], NULL) != 0)
			return 1;
	for (int i = 0; i < 3; i++)
		pthread_join(th[i], NULL);
	return 0;
}
