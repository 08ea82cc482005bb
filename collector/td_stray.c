/* Threads tdprobe did not see start: made by a library that calls libc's
 * pthread_create directly (jemalloc's background thread takes it with
 * dlsym(RTLD_NEXT) from libjemalloc, which is past us), by clone(), or
 * before our constructor. At report time /proc/self/task lists them; each
 * gets a record with its whole-life CPU time from the kernel's per-thread
 * clock and its wall time from its start time in /proc, marked as found at
 * exit. Threads of that kind that ended earlier are not reported. */
#include "td_collector.h"
#include "td_limits.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int td_stray_known(struct td_collector *c, pid_t tid)
{
	for (struct td_thread *t = atomic_load(&c->threads); t; t = t->next)
		if (t->tid == tid)
			return 1;
	return 0;
}

/* Nanoseconds the thread has existed: now (CLOCK_BOOTTIME) minus its
 * start time (field 22 of stat, in clock ticks since boot). 0 if unknown. */
static uint64_t td_stray_age_ns(pid_t tid)
{
	char path[64], buf[1024];
	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	char *p = strrchr(buf, ')'); /* comm may hold spaces and parentheses */
	if (!p)
		return 0;
	/* After ")": field 3 (state) ... field 22 (starttime) is the 20th. */
	for (int field = 3; field <= 22 && p; field++)
		p = strchr(p + 1, ' ');
	if (!p)
		return 0;
	unsigned long long start = strtoull(p + 1, NULL, 10);
	long hz = sysconf(_SC_CLK_TCK);
	struct timespec now;
	if (hz <= 0 || clock_gettime(CLOCK_BOOTTIME, &now) != 0)
		return 0;
	uint64_t now_ns = (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
	uint64_t start_ns = start * (1000000000u / (uint64_t)hz);
	return now_ns > start_ns ? now_ns - start_ns : 0;
}

static void td_stray_adopt(struct td_collector *c, pid_t tid)
{
	struct td_thread *t = td_limits_record_alloc(sizeof(*t));
	if (!t)
		return;
	t->tid = tid;
	t->ctr.tid = tid;
	for (int i = 0; i < TD_MAX_FDS; i++)
		t->ctr.fds[i] = -1;
	t->ctr.fallback = true;
	t->fallback_reason = "not started through tdprobe (libc's pthread_create called directly, "
			     "clone, or before startup): found at exit, CPU time from the thread's clock";
	uint64_t now = td_clock_wall_ns();
	uint64_t age = td_stray_age_ns(tid);
	t->end_wall_ns = now;
	t->start_wall_ns = age && age < now && now - age > c->start_wall_ns ? now - age : c->start_wall_ns;
	t->seg_start.wall_ns = t->start_wall_ns;
	t->seg_start.flags = TD_SAMPLE_OK;
	/* seg_start.cpu_ns = 0: the thread clock counts from the thread's start. */
	atomic_store(&t->state, TD_THREAD_RUNNING);
	struct td_thread *head = atomic_load(&c->threads);
	do
		t->next = head;
	while (!atomic_compare_exchange_weak(&c->threads, &head, t));
	atomic_fetch_add(&c->nr_threads, 1);
	atomic_fetch_add(&c->nr_fallback_threads, 1);
	/* The report's settle pass reads its clock and names it. */
}

int td_threads_adopt_strays(struct td_collector *c)
{
	DIR *d = opendir("/proc/self/task");
	if (!d)
		return -1;
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		pid_t tid = (pid_t)atoi(e->d_name);
		if (tid <= 0 || td_stray_known(c, tid))
			continue;
		td_stray_adopt(c, tid);
		n++;
	}
	closedir(d);
	return n;
}
