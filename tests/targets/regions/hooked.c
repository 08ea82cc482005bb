/* Hooked regions on 8 threads: worker i calls regions_lib_outer(3)
 * 100 * (i + 1) times (3 leaf calls each) and regions_lib_fib(10) once
 * (177 calls, recursive). Threads are named worker<i>. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>

unsigned long regions_lib_outer(int n);
unsigned long regions_lib_fib(unsigned n);

static void *worker(void *arg)
{
	int id = (int)(long)arg;
	char name[16];
	snprintf(name, sizeof(name), "worker%d", id);
	pthread_setname_np(pthread_self(), name);
	unsigned long s = 0;
	for (int i = 0; i < 100 * (id + 1); i++)
		s += regions_lib_outer(3);
	s += regions_lib_fib(10);
	return (void *)s;
}

int main(void)
{
	pthread_t th[8];
	for (long i = 0; i < 8; i++)
		if (pthread_create(&th[i], NULL, worker, (void *)i))
			return 1;
	for (int i = 0; i < 8; i++)
		pthread_join(th[i], NULL);
	printf("fib(10) = %lu\n", regions_lib_fib(10));
	return 0;
}
