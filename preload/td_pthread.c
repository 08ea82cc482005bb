/* pthread_create and pthread_exit interposers: every thread opens its own
 * counter group before the user's start routine runs, and folds its figures
 * into the process report however it ends (return, pthread_exit, cancel). */
#include "td_preload.h"

#include "../collector/td_limits.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef TD_UNIT_TEST

struct td_start {
	void *(*fn)(void *);
	void *arg;
	pid_t parent_tid;
	struct td_start *next; /* free list */
};

/* Start blocks are recycled through a free list, never the host's malloc:
 * a malloc in the parent freed on the child would make allocators with
 * per-thread arenas (jemalloc) set one up for threads that never allocate,
 * and start background threads the program would not have had. */
static struct td_start *td_start_free;
static atomic_flag td_start_lock = ATOMIC_FLAG_INIT;

static struct td_start *td_start_get(void)
{
	while (atomic_flag_test_and_set_explicit(&td_start_lock, memory_order_acquire))
		;
	struct td_start *s = td_start_free;
	if (s)
		td_start_free = s->next;
	atomic_flag_clear_explicit(&td_start_lock, memory_order_release);
	return s ? s : td_limits_record_alloc(sizeof(*s));
}

/* Forked child: the parent thread that held the lock at fork is gone. */
void td_pthread_after_fork_child(void)
{
	atomic_flag_clear_explicit(&td_start_lock, memory_order_release);
}

static void td_start_put(struct td_start *s)
{
	while (atomic_flag_test_and_set_explicit(&td_start_lock, memory_order_acquire))
		;
	s->next = td_start_free;
	td_start_free = s;
	atomic_flag_clear_explicit(&td_start_lock, memory_order_release);
}

static void td_thread_cancelled(void *unused)
{
	(void)unused;
	td_preload_thread_end(2);
}

static void *td_thread_entry(void *p)
{
	struct td_start s = *(struct td_start *)p;
	td_start_put(p);
	struct td_collector *c = td_preload_collector();
	if (c) {
		struct td_thread *t = td_thread_start(c, s.parent_tid);
		td_preload_set_thread(t);
	}
	void *ret;
	pthread_cleanup_push(td_thread_cancelled, NULL);
	ret = s.fn(s.arg);
	pthread_cleanup_pop(0);
	td_preload_thread_end(0);
	return ret;
}

typedef int (*td_pthread_create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *),
				    void *);

TD_EXPORT int pthread_create(pthread_t *th, const pthread_attr_t *attr, void *(*fn)(void *),
			     void *arg)
{
	static td_pthread_create_fn real;
	if (td_unlikely(!real)) {
		/* Pick the default version: glibc also has the GLIBC_2.2.5 one. */
		real = (td_pthread_create_fn)dlvsym(RTLD_NEXT, "pthread_create", "GLIBC_2.34");
		if (!real)
			real = (td_pthread_create_fn)td_preload_next("pthread_create");
	}
	if (!td_preload_collector())
		return real(th, attr, fn, arg);
	struct td_start *s = td_start_get();
	if (!s)
		return real(th, attr, fn, arg);
	s->fn = fn;
	s->arg = arg;
	s->parent_tid = (pid_t)syscall(SYS_gettid);
	int rc = real(th, attr, td_thread_entry, s);
	if (rc != 0)
		td_start_put(s);
	return rc;
}

TD_EXPORT void pthread_exit(void *ret)
{
	static void (*real)(void *);
	if (td_unlikely(!real))
		real = (void (*)(void *))td_preload_next("pthread_exit");
	td_preload_thread_end(1);
	real(ret);
	__builtin_unreachable();
}

#endif
