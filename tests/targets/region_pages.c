/* Per-region extra events, exactly: thread i calls region_touch_pages(100 *
 * (i + 1)) five times, so with [counters] events = page-faults the region
 * of thread i must show 500 * (i + 1) faults. Prints what it did. */
#include <pthread.h>
#include <stdio.h>

long region_touch_pages(long pages);

static void *worker(void *arg)
{
	long i = (long)arg, total = 0;
	for (int k = 0; k < 5; k++)
		total += region_touch_pages(100 * (i + 1));
	return (void *)total;
}

int main(void)
{
	pthread_t t[4];
	for (long i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < 4; i++) {
		void *r;
		pthread_join(t[i], &r);
		printf("thread %d touched %ld pages\n", i, (long)r);
	}
	return 0;
}
