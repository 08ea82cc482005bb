/* td_collector: the process-wide context — configuration, backend, the
 * registry of threads (kept after they exit, for the report) and the table
 * of region names. One instance per process image, owned by preload/.
 *
 * Threading: the registry is an append-only lock-free list; each td_thread
 * is written only by its own thread until it is marked exited; the exit
 * report reads all of them. */
#ifndef TD_COLLECTOR_H
#define TD_COLLECTOR_H

#include "../config/td_config.h"
#include "td_backend.h"
#include "td_counts.h"
#include "td_machine.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct td_regions; /* per-thread region state, td_region.h */
struct td_json;

/* RUNNING -> ENDING -> EXITED on the thread itself; RUNNING -> SETTLED when
 * the exit report takes a still-running thread's figures. A CAS on the
 * state decides who owns the record's totals. */
enum td_thread_state { TD_THREAD_RUNNING, TD_THREAD_ENDING, TD_THREAD_EXITED, TD_THREAD_SETTLED };

struct td_thread {
	struct td_thread *next;     /* registry link, set once at registration */
	pid_t tid;
	pid_t parent_tid;           /* creating thread, 0 for the main thread */
	char name[16];              /* comm, read at thread end / report time */
	_Atomic int state;          /* enum td_thread_state */
	int guard;                  /* reentrancy: >0 while tdprobe code runs here */
	int how_ended;              /* 0 return, 1 pthread_exit, 2 cancel, 3 still running */
	uint64_t start_wall_ns, end_wall_ns;
	uint64_t start_cpu_ns;      /* thread CPU clock at start: totals when the
				     * backend's samples carry no CPU time */
	struct td_thread_counters ctr;
	struct td_sample seg_start; /* start of the current counter epoch */
	struct td_counts total;     /* whole-thread figures, exact across resets */
	struct td_regions *regions; /* NULL until regions are configured */
	void *series;               /* time series ring (td_series.h), or NULL */
	const char *fallback_reason; /* static string when ctr.fallback (td_limits.h) */
};

#define TD_MAX_REGIONS 1024

struct td_collector {
	struct td_config cfg;
	struct td_machine machine;
	struct td_backend backend;
	bool backend_ok;
	pid_t pid;
	uint64_t start_wall_ns;     /* CLOCK_MONOTONIC at startup */
	uint64_t start_realtime_ns; /* CLOCK_REALTIME at startup */
	char **argv;                /* command line (copied at startup) */
	int argc;
	_Atomic(struct td_thread *) threads; /* registry head */
	_Atomic int nr_threads;
	_Atomic int nr_fallback_threads;     /* threads that fell back to software */
	/* Region names: id -> name. Ids are handed out at hook install or on the
	 * first marker call; the table never shrinks. */
	const char *region_names[TD_MAX_REGIONS];
	_Atomic int nr_regions;
	_Atomic int report_state;   /* 0 not written, 1 writing, 2 written */
	char report_path[4096];     /* final path of the report written */
	char cwd[4096];             /* working directory at startup (relative report paths) */
	char exit_how[32];          /* "exit", "_exit", "exec", "signal SIGTERM", ... */
	int hooks_missing;          /* configured functions found nowhere */
	/* Set by preload/ when function hooks are installed: writes the report's
	 * "hooks" member (what was patched, what was not found). */
	void (*report_hooks)(struct td_json *j);
};

/* Creates the calling thread's record: allocates it, opens its counters,
 * takes the first snapshot, links it into the registry. Not a hot path. */
struct td_thread *td_thread_start(struct td_collector *c, pid_t parent_tid);

/* Ends the calling thread's record: closes open regions, final snapshot into
 * total, closes counters, marks it exited. how: 0 return, 1 pthread_exit,
 * 2 cancelled. Idempotent. */
void td_thread_end(struct td_collector *c, struct td_thread *t, int how);

/* Folds what a still-running thread has so far into its total (from any
 * thread, at process exit). */
void td_thread_settle_foreign(struct td_collector *c, struct td_thread *t);

/* Starts a new counter epoch on the calling thread (TopDown reset): folds
 * the segment so far into t->total first. */
int td_thread_new_epoch(struct td_collector *c, struct td_thread *t);

/* Snapshots the calling thread's counters (its fallback backend if any). */
void td_thread_snapshot(struct td_collector *c, struct td_thread *t, struct td_sample *s);

/* acc += b - a through the thread's backend (its fallback backend if any).
 * Regions must use these two rather than c->backend.ops directly. */
void td_thread_accumulate(struct td_collector *c, struct td_thread *t, const struct td_sample *a,
			  const struct td_sample *b, struct td_counts *acc);

/* Folds seg_start..now into t->total and makes now the new seg_start. */
void td_thread_fold(struct td_collector *c, struct td_thread *t);

/* Writes the report (JSON file + stderr summary) once per process image.
 * `how` says what ended the image. Returns 0 or -errno. */
int td_report_write(struct td_collector *c, const char *how);

/* Returns the id for a region name, adding it if new (not async-signal-safe
 * when adding). -1 when the table is full. */
int td_collector_region_id(struct td_collector *c, const char *name);

#endif
