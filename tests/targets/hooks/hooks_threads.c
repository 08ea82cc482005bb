/* hooks_threads: 8 threads; thread i calls the hooked hk_work exactly
 * 1000*(i+1) times and hk_rec(10) (10 entries) i+1 times. Threads are
 * named hkw<i> so the report can be checked per thread. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

uint64_t hk_work(uint64_t x);
uint64_t hk_rec(int n);

static void *worker(void *arg)
{
	long i = (long)arg;
	char name[16];
	snprintf(name, sizeof(name), "hkw%ld", i);
	pthread_setname_np(pthread_self(), name);
	uint64_t acc = 0;
	for (long k = 0; k < 1000 * (i + 1); k++)
		acc += hk_work((uint64_t)k);
	for (long k = 0; k <= i; k++)
		acc += hk_rec(10);
	return (void *)(uintptr_t)acc;
}

int main(void)
{
	pthread_t t[8];
	uint64_t sum = 0;
	for (long i = 0; i < 8; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < 8; i++) {
		void *r;
		pthread_join(t[i], &r);
		sum += (uintptr_t)r;
	}
	printf("threads sum %llx\n", (unsigned long long)sum);
	return 0;
}
