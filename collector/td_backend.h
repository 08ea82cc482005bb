/* td_backend: the one interface every counter source sits behind.
 *
 * A backend is chosen once at startup (td_backend_select) and then used by
 * every thread: thread_open on the thread itself, snapshot on the hot path,
 * accumulate to fold "b minus a" into a thread's or region's td_counts.
 *
 *   software  thread CPU time and wall time only
 *   perf      perf_event_open group read() (software events here; generic
 *             hardware events and TopDown formulas on real PMUs)
 *   rdpmc     Intel perf-metrics through the mmap page and RDPMC
 *   emulate   the rdpmc code path against an emulated PMU (td_emu_*)
 */
#ifndef TD_BACKEND_H
#define TD_BACKEND_H

#include "td_counts.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct td_config;
struct td_machine;

#define TD_MAX_FDS (TD_MAX_EVENTS + 2)

/* Per-thread counter state, embedded in struct td_thread and owned by it. */
struct td_thread_counters {
	int fds[TD_MAX_FDS];    /* leader first; -1 when unused */
	int nr_fds;
	void *page;             /* leader's perf_event_mmap_page (rdpmc/emulate), or NULL */
	void *event_pages[TD_MAX_EVENTS]; /* user pages of extra events, or NULL */
	uint32_t epoch;         /* bumped by every reset this thread's group gets */
	int tid;                /* owner */
	bool open;              /* thread_open succeeded */
	bool fallback;          /* thread fell back to software (fd/mlock budget) */
	uint64_t scratch[8];    /* backend-private per-thread words */
	void *priv;             /* backend-private per-thread pointer (e.g. emulator) */
};

struct td_backend;

struct td_backend_ops {
	const char *name;
	/* Decides whether this backend can run here. Returns 0 and a reason for
	 * choosing it, or -errno and a reason why not, in be->reason. */
	int (*probe)(struct td_backend *be);
	/* Opens the calling thread's counters. 0 or -errno; never prints. */
	int (*thread_open)(struct td_backend *be, struct td_thread_counters *tc);
	/* Hot path: snapshot the calling thread's counters. No allocation, no
	 * lock; no syscall where the backend can avoid it. */
	void (*snapshot)(const struct td_backend *be, struct td_thread_counters *tc,
			 struct td_sample *out);
	/* Folds b - a into acc (epoch and validity checks included). */
	void (*accumulate)(const struct td_backend *be, const struct td_sample *a,
			   const struct td_sample *b, struct td_counts *acc);
	/* Optional (NULL if none): start a new measurement epoch (TopDown reset). */
	int (*reset)(const struct td_backend *be, struct td_thread_counters *tc);
	/* Optional: snapshot a thread's counters from another thread via read(2),
	 * used for threads still running when the process exits. */
	int (*snapshot_foreign)(const struct td_backend *be, struct td_thread_counters *tc,
				struct td_sample *out);
	/* Closes the calling thread's counters. */
	void (*thread_close)(const struct td_backend *be, struct td_thread_counters *tc);
	/* Optional: process-wide teardown of be->priv. */
	void (*exit)(struct td_backend *be);
};

/* Process-wide backend instance. */
struct td_backend {
	const struct td_backend_ops *ops;
	const struct td_config *cfg;
	const struct td_machine *machine;
	char reason[256];       /* why this backend (or why not), one line */
	int topdown_level;      /* 0 none, 1, 2 */
	const char *method;     /* formula set, e.g. "perf-metrics (rdpmc)" */
	bool emulated;          /* figures come from the emulated PMU */
	bool no_time;           /* counts no time either (backend none) */
	int nr_events;          /* extra events counted (names below) */
	char event_names[TD_MAX_EVENTS][48];
	void *priv;             /* backend-private process-wide state */
};

extern const struct td_backend_ops td_backend_software_ops;
extern const struct td_backend_ops td_backend_perf_ops;
extern const struct td_backend_ops td_backend_rdpmc_ops;
extern const struct td_backend_ops td_backend_emulate_ops;
extern const struct td_backend_ops td_backend_none_ops;
/* aarch64 builds only: core PMU with user-space reads (collector/arch/aarch64). */
extern const struct td_backend_ops td_backend_arm64_ops;

/* Picks the backend cfg asks for ("auto": rdpmc, then perf TopDown, then
 * software) and probes it; on failure of an explicitly asked backend falls
 * back to software. Fills be; returns 0, or -errno if even software failed.
 * The caller logs be->reason. */
int td_backend_select(struct td_backend *be, const struct td_config *cfg,
		      const struct td_machine *machine);

/* Shared helpers for backends. */
uint64_t td_clock_wall_ns(void);         /* CLOCK_MONOTONIC via the vDSO */
uint64_t td_clock_thread_cpu_ns(void);   /* CLOCK_THREAD_CPUTIME_ID */

#endif
