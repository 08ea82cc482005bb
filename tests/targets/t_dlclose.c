/* dlclose of a library with hooked call sites while other threads run
 * hooked calls (tests/integration/harden_odd.sh):
 * t_dlclose LIB CYCLES: the main thread dlopens LIB, calls dlc_work(10)
 * through dlsym and dlcloses it, CYCLES times, while 4 threads call the
 * hooked getppid in a loop until it is done. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define NTH 4
#define PER 20000
static atomic_int started;

static void *caller(void *arg)
{
	long *n = arg;
	atomic_fetch_add(&started, 1);
	for (int i = 0; i < PER; i++)
		*n += getppid() > 0;
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	int cycles = atoi(argv[2]);
	pthread_t th[NTH];
	long counts[NTH] = { 0 };
	for (int i = 0; i < NTH; i++)
		pthread_create(&th[i], NULL, caller, &counts[i]);
	while (atomic_load(&started) < NTH)
		;
	long total = 0;
	for (int c = 0; c < cycles; c++) {
		void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
		if (!h) {
			fprintf(stderr, "%s\n", dlerror());
			return 3;
		}
		long (*work)(long) = (long (*)(long))dlsym(h, "dlc_work");
		total += work(10);
		if (dlclose(h) != 0)
			return 4;
	}
	long calls = 0;
	for (int i = 0; i < NTH; i++) {
		pthread_join(th[i], NULL);
		calls += counts[i];
	}
	printf("%d dlopen/dlclose cycles, dlc_work total %ld, getppid calls %ld\n", cycles, total, calls);
	return 0;
}
