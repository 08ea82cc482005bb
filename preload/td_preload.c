/* The constructor's work: read what the user asked for, pick a backend,
 * open the main thread's counters; and the destructor's: write the report.
 * Everything that can go wrong says so in one `tdprobe:` line and leaves
 * the program running, unprofiled if need be. */
#include "td_preload.h"

#include "../collector/td_limits.h"
#include "../collector/td_log.h"
#include "../collector/td_region.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

/* The one process context, and the per-thread pointer the hooks need. */
_Atomic int td_state = TD_STATE_OFF;
static struct td_collector *td_ctx;
static __thread struct td_thread *td_self;
static __thread int td_self_done; /* this thread's record has ended: never recreate */
static pthread_key_t td_thread_key;

/* Optional modules (own files). */
void td_machine_probe(struct td_machine *m, const char *sysfs_root, const char *proc_root)
	__attribute__((weak));
int td_check_run(const struct td_config *cfg, const struct td_machine *m, FILE *out)
	__attribute__((weak));
int td_list_run(const struct td_config *cfg, const struct td_machine *m, FILE *out)
	__attribute__((weak));

struct td_collector *td_preload_collector(void)
{
	return atomic_load_explicit(&td_state, memory_order_acquire) == TD_STATE_RUNNING ? td_ctx
										 : NULL;
}

void *td_preload_next(const char *name)
{
	return dlsym(RTLD_NEXT, name);
}

void td_preload_set_thread(struct td_thread *t)
{
	td_self = t;
	if (t)
		pthread_setspecific(td_thread_key, t);
}

struct td_thread *td_preload_thread(void)
{
	struct td_thread *t = td_self;
	if (td_likely(t != NULL))
		return t;
	if (td_self_done || atomic_load(&td_state) != TD_STATE_RUNNING)
		return NULL;
	/* A thread we did not see start: count it from its first event on. */
	td_self_done = 1; /* blocks recursion while the record is made */
	t = td_thread_start(td_ctx, 0);
	td_self_done = 0;
	if (t)
		td_preload_set_thread(t);
	else
		td_self_done = 1;
	return t;
}

/* Ends the calling thread's record (thread end paths). */
void td_preload_thread_end(int how)
{
	struct td_thread *t = td_self;
	struct td_collector *c = td_ctx;
	if (!t || !c)
		return;
	if (td_hooks_thread_exit)
		td_hooks_thread_exit(c, t);
	td_thread_end(c, t, how);
	td_self = NULL;
	td_self_done = 1;
}

/* pthread key destructor: covers threads that end without passing through
 * our pthread_create wrapper (threads made before us, or by clone). */
static void td_thread_key_dtor(void *arg)
{
	struct td_thread *t = arg;
	if (t && td_ctx && atomic_load(&td_state) == TD_STATE_RUNNING) {
		if (td_hooks_thread_exit)
			td_hooks_thread_exit(td_ctx, t);
		td_thread_end(td_ctx, t, 0);
	}
	td_self = NULL;
	td_self_done = 1;
}

static const char *td_getenv(const char *name) { return getenv(name); }

static __attribute__((unused)) void td_copy_argv(struct td_collector *c, int argc, char **argv)
{
	if (argc <= 0 || !argv)
		return;
	c->argv = calloc((size_t)argc + 1, sizeof(char *));
	if (!c->argv)
		return;
	for (int i = 0; i < argc; i++)
		c->argv[i] = strdup(argv[i] ? argv[i] : "");
	c->argc = argc;
}

static void td_child_after_fork(void);

/* Reads configuration and environment into c. Returns 0 to profile, 1 to run
 * unprofiled, or exits 2 (strict) before main. */
static int td_startup_config(struct td_collector *c)
{
	char err[512];
	int bad = 0;
	if (td_config_init(&c->cfg) != 0) {
		td_err("out of memory at startup; running unprofiled");
		return 1;
	}
	const char *path = getenv("TDPROBE_CONFIG");
	if (path && path[0] && td_config_load_file(&c->cfg, path, err, sizeof(err)) != 0) {
		td_err("%s", err);
		bad = 1;
	}
	if (td_config_apply_env(&c->cfg, td_getenv, err, sizeof(err)) != 0) {
		td_err("%s", err);
		bad = 1;
	}
	td_log_set_level((enum td_log_level)c->cfg.log_level);
	/* The error line above is the one line the user gets; then the
	 * program runs unprofiled, or strict = yes stops it before main. */
	if (bad && c->cfg.strict)
		_exit(2);
	/* tdprobe check validates the config first of all: a bad one is a "no". */
	if (bad && c->cfg.mode && strcmp(c->cfg.mode, "check") == 0) {
		printf("result: no (exit 1): configuration error (see the tdprobe: line above)\n");
		fflush(stdout);
		_exit(1);
	}
	if (bad)
		return 1;
	if (c->cfg.disabled)
		return 1;
	return 0;
}

int td_startup(void)
{
	static int argc_dummy;
	(void)argc_dummy;
	int expect = TD_STATE_OFF;
	if (!atomic_compare_exchange_strong(&td_state, &expect, TD_STATE_STARTING))
		return 0;
	struct td_collector *c = calloc(1, sizeof(*c));
	if (!c) {
		atomic_store(&td_state, TD_STATE_OFF);
		return -ENOMEM;
	}
	td_log_init(getenv("TDPROBE_LOG_FD"));
	const char *lvl = getenv("TDPROBE_LOG");
	enum td_log_level level;
	if (lvl && td_log_parse_level(lvl, &level) == 0)
		td_log_set_level(level);

	if (td_startup_config(c) != 0) {
		td_config_exit(&c->cfg);
		free(c);
		atomic_store(&td_state, TD_STATE_OFF);
		return 0;
	}
	if (td_machine_probe)
		td_machine_probe(&c->machine, "/sys", "/proc");
	else
		c->machine.core_pmu = -1;

	if (c->cfg.mode) {
		/* tdprobe check / list: answer and leave before main. */
		int rc = 1;
		int (*fn)(const struct td_config *, const struct td_machine *, FILE *) =
			strcmp(c->cfg.mode, "check") == 0 ? td_check_run : td_list_run;
		if (fn)
			rc = fn(&c->cfg, &c->machine, stdout);
		else
			td_err("%s is not built into this library", c->cfg.mode);
		fflush(stdout);
		_exit(rc);
	}

	c->pid = getpid();
	c->start_wall_ns = td_clock_wall_ns();
	struct timespec rt;
	clock_gettime(CLOCK_REALTIME, &rt);
	c->start_realtime_ns = (uint64_t)rt.tv_sec * 1000000000u + (uint64_t)rt.tv_nsec;
	if (!getcwd(c->cwd, sizeof(c->cwd)))
		c->cwd[0] = '\0';

	td_backend_select(&c->backend, &c->cfg, &c->machine);
	td_info("backend %s%s: %s", c->backend.ops->name,
		c->backend.emulated ? " (emulated PMU)" : "", c->backend.reason);

	if (pthread_key_create(&td_thread_key, td_thread_key_dtor) != 0) {
		td_err("no pthread key left: running unprofiled");
		free(c);
		atomic_store(&td_state, TD_STATE_OFF);
		return 0;
	}
	pthread_atfork(NULL, NULL, td_child_after_fork);
	td_ctx = c;
	struct td_thread *main_t = td_thread_start(c, 0);
	if (!main_t) {
		td_err("cannot allocate the main thread's record: running unprofiled");
		td_ctx = NULL;
		atomic_store(&td_state, TD_STATE_OFF);
		return 0;
	}
	td_preload_set_thread(main_t);
	main_t->guard = 1;
	if (c->cfg.functions && c->cfg.functions[0]) {
		if (td_hooks_install && td_hooks_install(c) == 0)
			c->report_hooks = td_hooks_json;
		else
			td_err("function regions are not built into this library");
	}
	if (td_signal_install)
		td_signal_install(c);
	main_t->guard = 0;
	atomic_store(&td_state, TD_STATE_RUNNING);
	return 0;
}

/* Forked child: a fresh report of its own. The parent's thread records are
 * abandoned (their fds closed: they count the parent's threads). */
static void td_child_after_fork(void)
{
	struct td_collector *c = td_ctx;
	if (!c || atomic_load(&td_state) != TD_STATE_RUNNING)
		return;
	td_limits_fork_child(c); /* the parent's fds below are no longer ours to guard */
	if (td_pthread_after_fork_child)
		td_pthread_after_fork_child();
	for (struct td_thread *t = atomic_load(&c->threads); t; t = t->next) {
		if (atomic_load(&t->state) != TD_THREAD_RUNNING)
			continue;
		for (int i = 0; i < t->ctr.nr_fds; i++)
			if (t->ctr.fds[i] >= 0)
				close(t->ctr.fds[i]);
	}
	atomic_store(&c->threads, NULL);
	atomic_store(&c->nr_threads, 0);
	atomic_store(&c->nr_fallback_threads, 0);
	atomic_store(&c->report_state, 0);
	c->pid = getpid();
	c->start_wall_ns = td_clock_wall_ns();
	struct timespec rt;
	clock_gettime(CLOCK_REALTIME, &rt);
	c->start_realtime_ns = (uint64_t)rt.tv_sec * 1000000000u + (uint64_t)rt.tv_nsec;
	pid_t parent = td_self ? td_self->tid : 0;
	td_self = NULL;
	td_self_done = 0;
	struct td_thread *t = td_thread_start(c, parent);
	td_preload_set_thread(t);
	if (!t)
		td_self_done = 1;
	if (td_hooks_after_fork_child)
		td_hooks_after_fork_child();
}

void td_preload_write_report(const char *why)
{
	struct td_collector *c = td_ctx;
	if (!c || atomic_load(&td_state) != TD_STATE_RUNNING)
		return;
	/* A vfork child shares our memory: it must not write the parent's report. */
	if (getpid() != c->pid)
		return;
	struct td_thread *self = td_self;
	if (self) {
		self->guard++;
		if (td_hooks_thread_exit)
			td_hooks_thread_exit(c, self);
		td_thread_end(c, self, 4);
	}
	td_report_write(c, why);
	/* Hooks still firing in later destructors must not touch ended records. */
	atomic_store(&td_state, TD_STATE_STOPPING);
	if (self)
		self->guard--;
}

void td_shutdown(void)
{
	td_preload_write_report("exit");
}

#ifndef TD_UNIT_TEST
/* glibc passes (argc, argv, envp) to .init_array functions. */
__attribute__((constructor)) static void td_preload_ctor(int argc, char **argv, char **envp)
{
	(void)envp;
	td_startup();
	if (td_ctx)
		td_copy_argv(td_ctx, argc, argv);
}

__attribute__((destructor)) static void td_preload_dtor(void)
{
	td_shutdown();
}
#endif
