/* td_rep: tdprobe JSON reports ("tdprobe/1") loaded into plain structs, and
 * the metrics arithmetic used to merge them.
 *
 * Merging is exact through the slot counts and time sums: fractions of a
 * merged entry are recomputed from summed slot counts, never averaged. A
 * figure a report lacks stays absent (has_* false / mask bit clear); a sum
 * over parts of which one lacks a figure lacks it too. Single-threaded. */
#ifndef TD_REP_H
#define TD_REP_H

#include "../td_counts.h"
#include "td_jsonr.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TD_REP_MAX_EVENTS 16
#define TD_REP_SCHEMA "tdprobe/1"

/* JSON name ("retiring") and perf metric name ("tma_retiring") of a node. */
extern const char *const td_rep_node_json[TD_NODE_COUNT];
extern const char *const td_rep_node_tma[TD_NODE_COUNT];
/* Level-1 parent of a level-2 node (TD_RETIRING for heavy_operations, ...). */
extern const int td_rep_node_parent[TD_NODE_COUNT];

struct td_rep_metrics {
	bool has_cpu, has_wall, has_slots, has_err, has_ipc, has_err_slots;
	uint64_t cpu_ns, wall_ns, slots;
	uint64_t err_slots;             /* error bound in slots (exact to merge) */
	unsigned count_mask;            /* nodes with a slot count (1u << node) */
	uint64_t count[TD_NODE_COUNT];
	unsigned frac_mask;             /* nodes with a fraction */
	double frac[TD_NODE_COUNT];
	double error_pp;                /* bound on each fraction's error, in points */
	double ipc;
	int nr_events;
	const char *event_name[TD_REP_MAX_EVENTS];
	uint64_t event[TD_REP_MAX_EVENTS];
	unsigned parts;                 /* entries summed into this one */
};

struct td_rep_frame {
	const char *module, *symbol;
	uint64_t offset, address;
};

struct td_rep_region {
	const char *function;
	struct td_rep_frame *callsite;
	size_t nr_frames;
	bool has_calls;
	bool other;                     /* call sites folded when the table was full */
	uint64_t calls;
	struct td_rep_metrics m;        /* inclusive */
	bool has_excl;
	struct td_rep_metrics excl;     /* exclusive of nested regions */
};

/* Per-thread time series: nr_points rows of nr_cols numbers; columns named
 * by cols ("t_ns", "cpu_ns", then "slots" and node names when counted).
 * Values are cumulative since the thread started. */
struct td_rep_series {
	double interval_ms;
	uint64_t dropped;
	size_t nr_cols, nr_points;
	const char **cols;
	double *v;
};

struct td_rep_proc;

struct td_rep_thread {
	int64_t tid, parent_tid;
	const char *name, *state;
	struct td_rep_metrics m;
	struct td_rep_region *regions;
	size_t nr_regions;
	struct td_rep_series *series;   /* NULL when not recorded */
	const struct td_rep_proc *proc;
};

struct td_rep_backend {
	const char *name, *reason, *method;
	int topdown_level;              /* 0 none, 1, 2 */
	bool emulated;
};

struct td_rep_proc {
	const char *file;
	struct td_jsonr_doc *doc;       /* owns every string below */
	int64_t pid, ppid, ncpus;
	const char **argv;
	size_t argc;
	const char *host, *kernel, *cpu_model;
	const struct td_jsonr_value *start_time, *end_time, *config; /* start_unix_ns... */
	struct td_rep_backend backend;
	struct td_rep_thread *threads;
	size_t nr_threads;
	struct td_rep_region *regions;  /* process-wide */
	size_t nr_regions;
	void **allocs;                  /* what to free with the process */
	size_t nr_allocs, cap_allocs;
};

struct td_rep_set {
	struct td_rep_proc **procs;
	size_t nr;
};

/* Loads one report file into set. 0, or -1 with "FILE: where: what is
 * wrong" in err (the set is unchanged then). */
int td_rep_load(struct td_rep_set *set, const char *path, char *err, size_t errlen);
/* Same from a parsed document (takes ownership of doc, also on error). */
int td_rep_load_doc(struct td_rep_set *set, const char *name, struct td_jsonr_doc *doc,
		    char *err, size_t errlen);
void td_rep_set_exit(struct td_rep_set *set);

/* Metrics arithmetic (td_rep_metrics.c). */
void td_rep_metrics_zero(struct td_rep_metrics *m);
/* acc += add; absent figures stay absent. Call finish before reading fractions. */
void td_rep_metrics_add(struct td_rep_metrics *acc, const struct td_rep_metrics *add);
/* Recomputes fractions from the slot counts (fraction = count / sum of the
 * four level-1 counts) and ipc from instructions/cycles events when present. */
void td_rep_metrics_finish(struct td_rep_metrics *m);
/* Sum of the level-1 slot counts; 0 when any is missing. */
uint64_t td_rep_metrics_l1_sum(const struct td_rep_metrics *m);
/* Highest TopDown level with fractions: 0, 1 or 2. */
int td_rep_metrics_level(const struct td_rep_metrics *m);
/* Level-1 node with the largest fraction, or -1 without TopDown; for L2,
 * the level-2 node with the largest fraction, or -1. */
int td_rep_metrics_dominant(const struct td_rep_metrics *m, int level);
/* Event count by name; false when absent. */
bool td_rep_metrics_event(const struct td_rep_metrics *m, const char *name, uint64_t *out);

#endif
