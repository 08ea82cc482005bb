/* td_topdown: the pure arithmetic of Intel perf-metrics TopDown.
 *
 * PERF_METRICS holds eight 8-bit fractions of the SLOTS counted since the
 * last reset (byte i: 0 retiring, 1 bad_spec, 2 fe_bound, 3 be_bound,
 * 4 heavy_ops, 5 br_mispredict, 6 fetch_lat, 7 mem_bound). A snapshot X
 * therefore says "s_i(X) = X.slots * byte_i(X) / 255 slots went to i since
 * the reset"; a delta A->B is s_i(B) - s_i(A), clamped at 0 as the kernel
 * does. Deltas are only meaningful inside one reset epoch.
 *
 * Precision: each byte is off by up to one LSB, so s_i(X) is off by up to
 * X.slots/255 (+1 for the integer division), and a delta by up to
 * (A.slots + B.slots)/255 + 2 slots per node. td_counts.err_slots carries
 * that bound summed over the deltas folded in.
 *
 * No state, no syscalls: safe anywhere, including the hot path. */
#ifndef TD_TOPDOWN_H
#define TD_TOPDOWN_H

#include "../config/td_config.h"
#include "td_counts.h"

#include <stdbool.h>
#include <stdint.h>

#define TD_TOPDOWN_FIELDS 8 /* bytes of PERF_METRICS */

/* Byte i of a PERF_METRICS word. */
static inline unsigned td_topdown_byte(uint64_t metrics, int i)
{
	return (unsigned)(metrics >> (8 * i)) & 0xffu;
}

/* s[i] = slots * byte_i / 255 (rounded down, as the kernel's
 * mul_u64_u32_div) for the first nfields bytes. */
void td_topdown_slot_counts(uint64_t slots, uint64_t metrics, int nfields, uint64_t *s);

/* Bound on |error| of one node's slot count over a delta A->B. */
uint64_t td_topdown_err_slots(uint64_t slots_a, uint64_t slots_b);

/* Why a delta cannot be used (0 when it can). */
enum td_topdown_invalid {
	TD_TOPDOWN_VALID = 0,
	TD_TOPDOWN_UNREADABLE,   /* a sample lacks TD_SAMPLE_OK or was not running */
	TD_TOPDOWN_EPOCH,        /* our own reset between A and B: never mixed */
	TD_TOPDOWN_BACKWARDS,    /* SLOTS went down: a reset we did not make (PMI) */
};

enum td_topdown_invalid td_topdown_check(const struct td_sample *a, const struct td_sample *b);

/* Computes the delta A->B into d (zeroed first): slots, the hardware nodes
 * (4 at level 1, 8 at level 2), the level-2 derived nodes by clamped
 * subtraction (light_operations = retiring - heavy, machine_clears =
 * bad_spec - br_mispredicts, fetch_bandwidth = fe - fetch_latency,
 * core_bound = be - memory_bound), err_slots, times and deltas = 1.
 * Returns the validity; when not valid, d holds only the times and
 * invalid = 1. */
enum td_topdown_invalid td_topdown_delta(const struct td_sample *a, const struct td_sample *b,
					 int level, struct td_counts *d);

/* acc += delta(A->B). Times (wall, cpu, enabled, running) are always
 * added, so time stays exact; an invalid delta adds no slots and bumps
 * acc->invalid instead of acc->deltas. */
void td_topdown_accumulate(const struct td_sample *a, const struct td_sample *b, int level,
			   struct td_counts *acc);

/* Level-1 fraction of node n from accumulated counts, normalised by the
 * sum of the four level-1 counts (as perf and toplev do); NAN if empty. */
double td_topdown_fraction(const struct td_counts *c, int node);

/* Error bound of the level-1 fractions in percentage points:
 * 100 * err_slots / (sum of level-1 counts); NAN if empty. */
double td_topdown_error_pp(const struct td_counts *c);

/* [topdown] reset policy, resolved once from the configuration. */
struct td_topdown_policy {
	enum td_reset_policy policy;
	uint64_t threshold_slots;   /* outermost: reset once this many slots since reset */
	uint64_t interval_ns;       /* interval: reset once this much wall time since reset */
};

void td_topdown_policy_init(struct td_topdown_policy *p, const struct td_config *cfg);

/* Whether to reset the group now. at_outermost_boundary: the caller is at
 * the entry of an outermost region or otherwise outside every region
 * (a reset inside an open region would split that region across epochs,
 * so the answer is then always false). slots_since_reset is the current
 * raw SLOTS (it counts since the last reset), ns_since_reset the wall time
 * since the last reset. */
bool td_topdown_should_reset(const struct td_topdown_policy *p, uint64_t slots_since_reset,
			     uint64_t ns_since_reset, bool at_outermost_boundary);

#endif
