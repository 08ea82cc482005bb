/* perf backend target: named threads each touch a known number of fresh
 * pages (one minor fault each) and burn some CPU, so the per-thread
 * page-faults and task-clock of the report can be checked against what the
 * program did. Usage: perf_pages PAGES_A PAGES_B PAGES_MAIN. Prints the page
 * counts it touched (deterministic output). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

struct job {
	const char *name;
	long pages;
	int ms;
};

static void touch(long pages)
{
	long pg = sysconf(_SC_PAGESIZE);
	volatile char *p = mmap(NULL, (size_t)(pages * pg), PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		exit(3);
	for (long i = 0; i < pages; i++)
		p[i * pg] = (char)i;
	munmap((void *)p, (size_t)(pages * pg));
}

static void burn(int ms)
{
	struct timespec a, b;
	volatile unsigned long x = 0;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
	do {
		for (int i = 0; i < 20000; i++)
			x += (unsigned long)i ^ x;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
	} while ((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000 < ms);
}

static void *run(void *arg)
{
	struct job *j = arg;
	pthread_setname_np(pthread_self(), j->name);
	touch(j->pages);
	burn(j->ms);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: %s PAGES_A PAGES_B PAGES_MAIN\n", argv[0]);
		return 2;
	}
	struct job a = { "pages_a", atol(argv[1]), 40 }, b = { "pages_b", atol(argv[2]), 10 };
	pthread_t ta, tb;
	pthread_create(&ta, NULL, run, &a);
	pthread_create(&tb, NULL, run, &b);
	touch(atol(argv[3]));
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);
	printf("perf_pages: a=%ld b=%ld main=%ld\n", a.pages, b.pages, atol(argv[3]));
	return 0;
}
