/* td_preload: how tdprobe gets into the process. The constructor reads the
 * configuration and selects a backend (td_startup); pthread_create is
 * interposed so every thread opens its own counters; exit, _exit, exec and
 * fork are interposed so each process image writes exactly one report.
 *
 * The other preload pieces (hooks, markers, signals) reach the process
 * context and the calling thread through the functions below. */
#ifndef TD_PRELOAD_H
#define TD_PRELOAD_H

#include "../collector/td_collector.h"

#include <stdbool.h>

#define TD_EXPORT __attribute__((visibility("default")))
#define td_likely(x) __builtin_expect(!!(x), 1)
#define td_unlikely(x) __builtin_expect(!!(x), 0)

enum td_run_state { TD_STATE_OFF, TD_STATE_STARTING, TD_STATE_RUNNING, TD_STATE_STOPPING };

/* Process state word, tested at the top of every hook. */
extern _Atomic int td_state;

/* The process context while profiling (TD_STATE_RUNNING), else NULL. */
struct td_collector *td_preload_collector(void);

/* The calling thread's record, created lazily for threads tdprobe did not
 * see start (clone without pthreads, threads made before the constructor).
 * NULL when not profiling or when the thread has ended. Async-signal-safe
 * once the record exists. */
struct td_thread *td_preload_thread(void);

/* Makes t the calling thread's record (thread start paths). */
void td_preload_set_thread(struct td_thread *t);
/* Ends the calling thread's record; how: 0 return, 1 pthread_exit, 2 cancel. */
void td_preload_thread_end(int how);

/* Reentrancy guard: tdprobe code running on this thread (hooks, snapshot,
 * our own calls into libc) must not count itself. Returns false when the
 * guard was already held: the caller must then do nothing. */
static inline bool td_guard_take(struct td_thread *t)
{
	if (t->guard)
		return false;
	t->guard = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	return true;
}

static inline void td_guard_drop(struct td_thread *t)
{
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->guard = 0;
}

/* Resolves the next definition of an interposed symbol (RTLD_NEXT). */
void *td_preload_next(const char *name);

/* Startup and shutdown, called by the two-line constructor/destructor shims
 * (compiled out under TD_UNIT_TEST so tests can drive them). */
int td_startup(void);
void td_shutdown(void);
/* Writes the report now (exit paths: exit, _exit, exec, signals). Once per image. */
void td_preload_write_report(const char *why);

/* Implemented by other preload modules; weak so each lands on its own. */
int td_hooks_install(struct td_collector *c) __attribute__((weak));
void td_hooks_json(struct td_json *j) __attribute__((weak));
void td_hooks_thread_exit(struct td_collector *c, struct td_thread *t) __attribute__((weak));
void td_hooks_after_fork_child(void) __attribute__((weak));
/* Forked child: locks of td_pthread.c a vanished parent thread may hold. */
void td_pthread_after_fork_child(void) __attribute__((weak));
/* on_signal handlers (td_signal.c). */
int td_signal_install(struct td_collector *c) __attribute__((weak));

#endif
