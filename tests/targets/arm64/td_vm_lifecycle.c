/* td-vm-lifecycle: process and thread life under the preload, on a real
 * PMU. Counts this process's perf_event fds (/proc/self/fd links to
 * "anon_inode:[perf_event]") at each step and prints them.
 *
 *   threads  8 threads alive at once (barrier), then joined: their fds
 *            must be gone after they exit
 *   fork     the child works and exits 0 (touching the parent's perf pages
 *            would SIGSEGV it: they are not inherited); the parent checks
 *            the child's exit status
 *   exec     re-executes itself as "execd": the new image starts with only
 *            its own main thread's fds (CLOEXEC), none of the old image's
 * Exit 0 when every check holds. */
#define _GNU_SOURCE
#include "td_vm_lib.h"

#include <dirent.h>
#include <stdbool.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int perf_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;
	char path[64], link[64];
	if (!d)
		return -1;
	while ((e = readdir(d))) {
		snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
		ssize_t l = readlink(path, link, sizeof(link) - 1);
		if (l > 0) {
			link[l] = '\0';
			n += strstr(link, "perf_event") != NULL;
		}
	}
	closedir(d);
	return n;
}

static pthread_barrier_t bar;

static void *worker(void *arg)
{
	vm_hooked_work(1000 + (uint64_t)(long)arg);
	pthread_barrier_wait(&bar); /* all alive */
	pthread_barrier_wait(&bar); /* main has counted */
	return NULL;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "threads";
	int base = perf_fds();
	printf("%s: main thread has %d perf fds\n", mode, base);
	if (!strcmp(mode, "threads")) {
		pthread_t t[8];
		pthread_barrier_init(&bar, NULL, 9);
		for (long i = 0; i < 8; i++)
			pthread_create(&t[i], NULL, worker, (void *)i);
		pthread_barrier_wait(&bar);
		int alive = perf_fds();
		pthread_barrier_wait(&bar);
		for (int i = 0; i < 8; i++)
			pthread_join(t[i], NULL);
		int after = perf_fds();
		int per = base;
		bool ok = base > 0 && alive == 9 * per && after == base;
		printf("%s 8 threads alive: %d perf fds (expected 9 x %d); after they exited: %d (expected %d)\n",
		       ok ? "ok  " : "FAIL", alive, per, after, base);
		return ok ? 0 : 1;
	}
	if (!strcmp(mode, "fork")) {
		vm_hooked_work(5000);
		pid_t p = fork();
		if (p == 0) {
			vm_hooked_work(7000);
			printf("child: %d perf fds (its own, reopened after fork)\n", perf_fds());
			exit(0);
		}
		int st = 0;
		waitpid(p, &st, 0);
		vm_hooked_work(5000);
		bool ok = WIFEXITED(st) && WEXITSTATUS(st) == 0;
		printf("%s child exit: %s %d; parent still has %d perf fds\n", ok ? "ok  " : "FAIL",
		       WIFEXITED(st) ? "status" : "signal", WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st),
		       perf_fds());
		return ok ? 0 : 1;
	}
	if (!strcmp(mode, "exec")) {
		vm_hooked_work(5000);
		fflush(stdout);
		execl("/proc/self/exe", argv[0], "execd", (char *)NULL);
		perror("execl");
		return 1;
	}
	if (!strcmp(mode, "execd")) {
		vm_hooked_work(3000);
		printf("execd image: %d perf fds (its main thread's only: the old image's were CLOEXEC)\n",
		       base);
		return 0;
	}
	return 2;
}
