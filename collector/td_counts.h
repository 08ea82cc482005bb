/* td_counts: what one snapshot holds (td_sample) and what a thread or a
 * region accumulates (td_counts). Plain data shared by every backend. */
#ifndef TD_COUNTS_H
#define TD_COUNTS_H

#include <stdint.h>

#define TD_MAX_EVENTS 8 /* extra [counters] events per thread */

/* TopDown nodes, stored as slot counts so reports merge exactly.
 * The first four are level 1; the rest are level 2 (SPR+). */
enum td_node {
	TD_RETIRING,
	TD_BAD_SPECULATION,
	TD_FRONTEND_BOUND,
	TD_BACKEND_BOUND,
	TD_HEAVY_OPERATIONS,
	TD_LIGHT_OPERATIONS,
	TD_BRANCH_MISPREDICTS,
	TD_MACHINE_CLEARS,
	TD_FETCH_LATENCY,
	TD_FETCH_BANDWIDTH,
	TD_MEMORY_BOUND,
	TD_CORE_BOUND,
	TD_NODE_COUNT
};
#define TD_L1_NODES 4

/* JSON names of the nodes ("retiring", ..., "core_bound"). */
extern const char *const td_node_names[TD_NODE_COUNT];

enum td_sample_flags {
	TD_SAMPLE_OK = 1u << 0,         /* counter fields are valid */
	TD_SAMPLE_NOT_RUNNING = 1u << 1, /* group not scheduled (index 0, E-core) */
	TD_SAMPLE_NO_CPU = 1u << 2,     /* cpu_ns unknown */
};

/* One snapshot of a thread's counters, taken on that thread. */
struct td_sample {
	uint64_t wall_ns;       /* CLOCK_MONOTONIC */
	uint64_t cpu_ns;        /* thread CPU time */
	uint64_t slots;         /* raw SLOTS (rdpmc path) */
	uint64_t metrics;       /* raw PERF_METRICS word (rdpmc path) */
	uint64_t events[TD_MAX_EVENTS]; /* extra/generic events, continuous values */
	uint64_t time_enabled;  /* group times, when the backend has them */
	uint64_t time_running;
	uint32_t epoch;         /* software reset epoch (ours) */
	uint32_t flags;         /* enum td_sample_flags */
};

/* Accumulated figures of a thread or a region. */
struct td_counts {
	uint64_t cpu_ns;
	uint64_t wall_ns;
	uint64_t slots;
	uint64_t node[TD_NODE_COUNT];   /* slots per TopDown node */
	uint64_t events[TD_MAX_EVENTS];
	uint64_t smt_slots;        /* AMD Zen 4: slots lost to SMT contention (not in node[];
				    * part of slots), filled by td_formulas_apply */
	uint64_t err_slots;        /* bound on |error| of each L1 node count, in slots */
	uint64_t time_enabled;     /* sum over deltas */
	uint64_t time_running;
	uint32_t deltas;           /* deltas folded in */
	uint32_t invalid;          /* deltas dropped (epoch change, slots backwards, not running) */
	uint32_t no_cpu;           /* deltas without CPU time: cpu_ns is not known */
};

/* acc += add, field by field. */
void td_counts_add(struct td_counts *acc, const struct td_counts *add);
/* out = a - b, clamped at 0 per field (exclusive = inclusive - children). */
void td_counts_sub_clamped(struct td_counts *out, const struct td_counts *a,
			   const struct td_counts *b);

#endif
