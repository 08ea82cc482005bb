/* arm64 TopDown level 1 at report time: the backend's raw event deltas
 * through the Neoverse/sbsa formulas of td_formulas.c (pmu-facts §4). */
#include "td_arm64.h"
#include "td_backend.h"
#include "td_counts.h"
#include "td_formulas.h"

#include <errno.h>
#include <math.h>
#include <string.h>

static uint64_t td_arm64_slots_of(double fraction, double slots)
{
	double v = fraction * slots;
	return v > 0 ? (uint64_t)llround(v) : 0;
}

int td_arm64_topdown_apply(enum td_arm64_topdown td, int slots, unsigned long midr,
			   struct td_counts *c)
{
	if (td != TD_ARM64_TD_SBSA && td != TD_ARM64_TD_V1 && td != TD_ARM64_TD_N2)
		return -ENOENT;
	/* events[]: cycles, instructions, stall_slot_frontend, stall_slot_backend,
	 * stall_slot, op_retired, op_spec[, br_mis_pred] (td_arm64_events). */
	const uint64_t *e = c->events;
	struct td_arm_counts a = {
		.cpu_cycles = e[0],
		.stall_slot_frontend = e[2],
		.stall_slot_backend = e[3],
		.stall_slot = e[4],
		.op_retired = e[5],
		.op_spec = e[6],
		.br_mis_pred = td == TD_ARM64_TD_SBSA ? 0 : e[7],
	};
	memset(c->node, 0, sizeof(c->node));
	c->slots = 0;
	/* Cycles alone do not make a breakdown: without any slot or op count
	 * the formulas would call every slot bad speculation. */
	if (!a.cpu_cycles || (!a.op_spec && !a.op_retired && !a.stall_slot &&
			      !a.stall_slot_frontend && !a.stall_slot_backend))
		return -ENODATA;
	struct td_l1 r;
	switch (td) {
	case TD_ARM64_TD_V1: td_formulas_neoverse_v1(&a, slots, &r); break;
	case TD_ARM64_TD_N2: td_formulas_neoverse_n2(&a, slots, midr, &r); break;
	default: td_formulas_arm_sbsa(&a, slots, &r); break;
	}
	if (r.no_data)
		return -ENODATA;
	c->slots = (uint64_t)llround(r.slots);
	c->node[TD_RETIRING] = td_arm64_slots_of(r.retiring, r.slots);
	c->node[TD_BAD_SPECULATION] = td_arm64_slots_of(r.bad_speculation, r.slots);
	c->node[TD_FRONTEND_BOUND] = td_arm64_slots_of(r.frontend_bound, r.slots);
	c->node[TD_BACKEND_BOUND] = td_arm64_slots_of(r.backend_bound, r.slots);
	return 0;
}
