/* Marker API end to end: 8 worker threads, worker i calls
 * tdprobe_region_begin/end("work") 1000 * (i + 1) times, with a nested
 * "inner" region every 10th call, and one deliberately mismatched end.
 * Threads are named worker<i> so the report can be checked per thread.
 * Runs the same without the preload (the markers are weak). */
#define _GNU_SOURCE
#include <tdprobe.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define NR_WORKERS 8

static volatile unsigned long sink;

static void spin(unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		sink += i;
}

static void *worker(void *arg)
{
	int id = (int)(long)arg;
	char name[16];
	snprintf(name, sizeof(name), "worker%d", id);
	pthread_setname_np(pthread_self(), name);
	int calls = 1000 * (id + 1);
	for (int i = 0; i < calls; i++) {
		tdprobe_region_begin("work");
		spin(200);
		if (i % 10 == 0) {
			tdprobe_region_begin("inner");
			spin(100);
			tdprobe_region_end("inner");
		}
		tdprobe_region_end("work");
	}
	/* An end without a begin: ignored and counted, nothing else changes. */
	tdprobe_region_end("never-begun");
	return NULL;
}

int main(void)
{
	pthread_t th[NR_WORKERS];
	for (long i = 0; i < NR_WORKERS; i++)
		if (pthread_create(&th[i], NULL, worker, (void *)i))
			return 1;
	for (int i = 0; i < NR_WORKERS; i++)
		pthread_join(th[i], NULL);
	printf("markers done: %lu\n", sink > 0 ? 1ul : 0ul);
	return 0;
}
