/* td_formulas: generic-event TopDown formula sets (see td_formulas.h). */
#include "td_formulas.h"

#include "td_backend.h"
#include "td_counts.h"
#include "td_machine.h"

#include <errno.h>
#include <math.h>
#include <string.h>

static const struct td_formula_desc descs[] = {
	{ TD_FORMULAS_SKYLAKE, "skylake-generic (SLOTS = 4*CLKS)", 5,
	  { { "cpu_clk_unhalted.thread", 0x003c },
	    { "uops_issued.any", 0x010e },
	    { "uops_retired.retire_slots", 0x02c2 },
	    { "idq_uops_not_delivered.core", 0x019c },
	    { "int_misc.recovery_cycles", 0x010d } },
	  false },
	{ TD_FORMULAS_SKYLAKE_SMT, "skylake-generic-smt (per-thread SMT correction)", 7,
	  { { "cpu_clk_unhalted.thread", 0x003c },
	    { "uops_issued.any", 0x010e },
	    { "uops_retired.retire_slots", 0x02c2 },
	    { "idq_uops_not_delivered.core", 0x019c },
	    { "int_misc.recovery_cycles", 0x010d },
	    { "cpu_clk_thread_unhalted.one_thread_active", 0x023c },
	    { "cpu_clk_thread_unhalted.ref_xclk", 0x013c } },
	  false },
	{ TD_FORMULAS_ZEN4, "zen4-pipeline-utilization (6 slots/cycle)", 6,
	  { { "ls_not_halted_cyc", 0x76 },
	    { "ex_ret_ops", 0xc1 },
	    { "de_src_op_disp.all", 0x7aa },
	    { "de_no_dispatch_per_slot.no_ops_from_frontend", 0x1000001a0ull },
	    { "de_no_dispatch_per_slot.backend_stalls", 0x100001ea0ull },
	    { "de_no_dispatch_per_slot.smt_contention", 0x1000060a0ull } },
	  false },
	{ TD_FORMULAS_PERF_METRICS_L1, "perf-metrics level 1 (group read())", 4,
	  { { "topdown-retiring", 0x8000 },
	    { "topdown-bad-spec", 0x8100 },
	    { "topdown-fe-bound", 0x8200 },
	    { "topdown-be-bound", 0x8300 } },
	  true },
	{ TD_FORMULAS_PERF_METRICS_L2, "perf-metrics level 2 (group read())", 8,
	  { { "topdown-retiring", 0x8000 },
	    { "topdown-bad-spec", 0x8100 },
	    { "topdown-fe-bound", 0x8200 },
	    { "topdown-be-bound", 0x8300 },
	    { "topdown-heavy-ops", 0x8400 },
	    { "topdown-br-mispredict", 0x8500 },
	    { "topdown-fetch-lat", 0x8600 },
	    { "topdown-mem-bound", 0x8700 } },
	  true },
};

const struct td_formula_desc *td_formulas_desc(enum td_formula_set set)
{
	for (size_t i = 0; i < sizeof(descs) / sizeof(descs[0]); i++)
		if (descs[i].set == set)
			return &descs[i];
	return NULL;
}

enum td_formula_set td_formulas_of(const struct td_backend *be)
{
	if (!be || !be->method)
		return TD_FORMULAS_NONE;
	for (size_t i = 0; i < sizeof(descs) / sizeof(descs[0]); i++)
		if (be->method == descs[i].method || !strcmp(be->method, descs[i].method))
			return descs[i].set;
	return TD_FORMULAS_NONE;
}

static bool is_skylake_family(int model)
{
	switch (model) {
	case 78:  /* Skylake client (mobile) */
	case 94:  /* Skylake client (desktop) */
	case 85:  /* Skylake/Cascade Lake/Cooper Lake server */
	case 142: /* Kaby/Coffee/Whiskey/Amber Lake mobile */
	case 158: /* Kaby/Coffee Lake desktop */
	case 165: /* Comet Lake */
	case 166: /* Comet Lake mobile */
		return true;
	default:
		return false;
	}
}

static bool is_zen4(int family, int model)
{
	return family == 0x19 && ((model >= 0x10 && model <= 0x1f) || (model >= 0x60 && model <= 0x7f) ||
				  (model >= 0xa0 && model <= 0xaf));
}

enum td_formula_set td_formulas_choose(const struct td_machine *m, const char **why)
{
	return td_formulas_choose_level(m, 2, why);
}

enum td_formula_set td_formulas_choose_level(const struct td_machine *m, int wanted,
					     const char **why)
{
	const char *dummy;
	if (!why)
		why = &dummy;
	if (m->core_pmu < 0) {
		*why = m->no_pmu_reason[0] ? m->no_pmu_reason : "no core PMU";
		return TD_FORMULAS_NONE;
	}
	if (m->topdown_level > 0) {
		/* rdpmc is the better path; this is for when it cannot run. */
		*why = "perf-metrics read with read() (one syscall per snapshot)";
		return m->topdown_level >= 2 && wanted >= 2 ? TD_FORMULAS_PERF_METRICS_L2
							    : TD_FORMULAS_PERF_METRICS_L1;
	}
	if (!strcmp(m->vendor, "GenuineIntel") && m->family == 6 && is_skylake_family(m->model)) {
		*why = m->smt ? "Intel Skylake family with SMT on: per-thread SMT-corrected slots"
			      : "Intel Skylake family with SMT off: 4 slots per cycle";
		return m->smt ? TD_FORMULAS_SKYLAKE_SMT : TD_FORMULAS_SKYLAKE;
	}
	if (!strcmp(m->vendor, "AuthenticAMD") && is_zen4(m->family, m->model)) {
		*why = "AMD Zen 4: pipeline utilisation from 6 core events";
		return TD_FORMULAS_ZEN4;
	}
	*why = "no generic-event TopDown formula set for this CPU model";
	return TD_FORMULAS_NONE;
}

static void l1_clear(struct td_l1 *out)
{
	memset(out, 0, sizeof(*out));
	out->no_data = true;
}

static double pos(double x) { return x > 0 ? x : 0; }

void td_formulas_skylake(const uint64_t *ev, bool smt, struct td_l1 *out)
{
	l1_clear(out);
	double clks = (double)ev[TD_SKL_CLKS];
	if (clks <= 0)
		return;
	double core_clks = clks, recov = (double)ev[TD_SKL_RECOVERY_CYCLES];
	if (smt) {
		/* Per thread, the share of the core this thread had: alone for
		 * ONE_THREAD_ACTIVE/REF_XCLK of its time. The thread's recovery
		 * cycles are weighted by the same share, the per-thread analogue
		 * of RECOVERY_CYCLES_ANY/2, which needs AnyThread (privileged). */
		double ref = (double)ev[TD_SKL_REF_XCLK];
		double alone = ref > 0 ? (double)ev[TD_SKL_ONE_THREAD_ACTIVE] / ref : 0;
		if (alone > 1)
			alone = 1;
		core_clks = clks / 2 * (1 + alone);
		recov *= core_clks / clks;
	}
	double slots = 4 * core_clks;
	double issued = (double)ev[TD_SKL_UOPS_ISSUED];
	double retired = (double)ev[TD_SKL_RETIRE_SLOTS];
	double fe = (double)ev[TD_SKL_IDQ_NOT_DELIVERED];
	out->slots = slots;
	out->frontend_bound = pos(fe / slots);
	out->bad_speculation = pos((issued - retired + 4 * recov) / slots);
	out->retiring = pos(retired / slots);
	out->backend_bound = pos(1 - fe / slots - (issued + 4 * recov) / slots);
	out->no_data = false;
}

void td_formulas_zen4(const uint64_t *ev, struct td_l1 *out)
{
	l1_clear(out);
	double slots = 6.0 * (double)ev[TD_ZEN4_CYCLES];
	if (slots <= 0)
		return;
	out->slots = slots;
	out->frontend_bound = (double)ev[TD_ZEN4_NO_DISP_FRONTEND] / slots;
	out->bad_speculation = pos(((double)ev[TD_ZEN4_DISP_OPS] - (double)ev[TD_ZEN4_RET_OPS]) / slots);
	out->backend_bound = (double)ev[TD_ZEN4_NO_DISP_BACKEND] / slots;
	out->smt_contention = (double)ev[TD_ZEN4_NO_DISP_SMT] / slots;
	out->retiring = (double)ev[TD_ZEN4_RET_OPS] / slots;
	out->no_data = false;
}

/* The sbsa shape: retiring and bad speculation split the non-stalled slots
 * by OP_RETIRED/OP_SPEC. stall and stall_fe may carry corrections. */
static void arm_shape(const struct td_arm_counts *c, double width, double stall, double stall_fe,
		      struct td_l1 *out)
{
	double slots = width * (double)c->cpu_cycles;
	out->slots = slots;
	double spec_ratio = c->op_spec ? (double)c->op_retired / (double)c->op_spec : 0;
	double busy = 1 - stall / slots;
	out->frontend_bound = pos(stall_fe / slots);
	out->backend_bound = pos((double)c->stall_slot_backend / slots);
	out->retiring = pos(spec_ratio * busy);
	out->bad_speculation = pos((1 - spec_ratio) * busy);
	out->no_data = false;
}

void td_formulas_arm_sbsa(const struct td_arm_counts *c, int slots, struct td_l1 *out)
{
	l1_clear(out);
	if (c->cpu_cycles == 0 || slots <= 0)
		return;
	arm_shape(c, slots, (double)c->stall_slot, (double)c->stall_slot_frontend, out);
}

void td_formulas_neoverse_v1(const struct td_arm_counts *c, int slots, struct td_l1 *out)
{
	l1_clear(out);
	if (c->cpu_cycles == 0)
		return;
	if (slots <= 0)
		slots = 8;
	/* perf's V1 file overrides frontend and bad speculation with a
	 * hard-coded width of 8 and a mispredict correction; backend and
	 * retiring keep the sbsa defaults (width from caps/slots). */
	double cyc = (double)c->cpu_cycles, mis = 4.0 * (double)c->br_mis_pred / cyc;
	arm_shape(c, slots, (double)c->stall_slot, (double)c->stall_slot_frontend, out);
	double busy8 = 1 - (double)c->stall_slot / (8 * cyc);
	double spec_ratio = c->op_spec ? (double)c->op_retired / (double)c->op_spec : 0;
	out->frontend_bound = pos((double)c->stall_slot_frontend / (8 * cyc) - mis);
	out->bad_speculation = pos((1 - spec_ratio) * busy8 + mis);
}

void td_formulas_neoverse_n2(const struct td_arm_counts *c, int slots, unsigned long midr,
			     struct td_l1 *out)
{
	l1_clear(out);
	if (c->cpu_cycles == 0 || slots <= 0)
		return;
	double cyc = (double)c->cpu_cycles;
	/* N2 before r0p3 counts one extra slot-cycle per cycle in STALL_SLOT
	 * and STALL_SLOT_FRONTEND: perf subtracts CPU_CYCLES there. */
	bool old_n2 = (midr & 0xff0ffff0UL) == 0x410fd490UL && ((midr >> 20) & 0xf) == 0 &&
		      (midr & 0xf) < 3;
	double stall = (double)c->stall_slot - (old_n2 ? cyc : 0);
	double stall_fe = (double)c->stall_slot_frontend - (old_n2 ? cyc : 0);
	double mis = (double)c->br_mis_pred / cyc;
	arm_shape(c, slots, stall, stall_fe, out);
	out->frontend_bound = pos(stall_fe / (slots * cyc) - mis);
	out->backend_bound = pos((double)c->stall_slot_backend / (slots * cyc) - 3 * mis);
}

void td_formulas_neoverse_n1(const struct td_arm_counts *c, struct td_stall_cycles *out)
{
	memset(out, 0, sizeof(*out));
	out->no_data = true;
	if (c->cpu_cycles == 0)
		return;
	out->frontend_stalled = (double)c->stall_frontend / (double)c->cpu_cycles;
	out->backend_stalled = (double)c->stall_backend / (double)c->cpu_cycles;
	out->no_data = false;
}

int td_formulas_arm_l1(const struct td_arm_counts *c, int slots, unsigned long midr,
		       struct td_l1 *out)
{
	unsigned long impl_part = midr & 0xff00fff0UL;
	l1_clear(out);
	if (impl_part == 0x4100d490UL || impl_part == 0x4100d4f0UL) { /* N2, V2 */
		td_formulas_neoverse_n2(c, slots, midr, out);
		return 0;
	}
	if (impl_part == 0x4100d400UL) { /* V1 */
		td_formulas_neoverse_v1(c, slots, out);
		return 0;
	}
	if (impl_part == 0x4100d0c0UL) /* N1: stall cycles only */
		return -EOPNOTSUPP;
	if (slots <= 0)
		return -ENOENT;
	td_formulas_arm_sbsa(c, slots, out);
	return 0;
}

static uint64_t sub0(uint64_t a, uint64_t b) { return a > b ? a - b : 0; }

void td_formulas_perf_metrics(const uint64_t *ev, int level, uint64_t *node)
{
	memset(node, 0, TD_NODE_COUNT * sizeof(node[0]));
	node[TD_RETIRING] = ev[TD_PM_RETIRING];
	node[TD_BAD_SPECULATION] = ev[TD_PM_BAD_SPEC];
	node[TD_FRONTEND_BOUND] = ev[TD_PM_FE_BOUND];
	node[TD_BACKEND_BOUND] = ev[TD_PM_BE_BOUND];
	if (level < 2)
		return;
	node[TD_HEAVY_OPERATIONS] = ev[TD_PM_HEAVY_OPS];
	node[TD_LIGHT_OPERATIONS] = sub0(ev[TD_PM_RETIRING], ev[TD_PM_HEAVY_OPS]);
	node[TD_BRANCH_MISPREDICTS] = ev[TD_PM_BR_MISPREDICT];
	node[TD_MACHINE_CLEARS] = sub0(ev[TD_PM_BAD_SPEC], ev[TD_PM_BR_MISPREDICT]);
	node[TD_FETCH_LATENCY] = ev[TD_PM_FETCH_LAT];
	node[TD_FETCH_BANDWIDTH] = sub0(ev[TD_PM_FE_BOUND], ev[TD_PM_FETCH_LAT]);
	node[TD_MEMORY_BOUND] = ev[TD_PM_MEM_BOUND];
	node[TD_CORE_BOUND] = sub0(ev[TD_PM_BE_BOUND], ev[TD_PM_MEM_BOUND]);
}

static uint64_t round_slots(double fraction, double slots)
{
	double v = fraction * slots;
	return v > 0 ? (uint64_t)llround(v) : 0;
}

/* The arm64 backend's Neoverse/sbsa sets (collector/arch/aarch64); weak so
 * other builds link without it. 0, -ENOENT (not that backend), -ENODATA. */
int td_arm64_formulas_apply(const struct td_backend *be, struct td_counts *c)
	__attribute__((weak));

int td_formulas_apply_counts(const struct td_backend *be, struct td_counts *c)
{
	enum td_formula_set set = td_formulas_of(be);
	struct td_l1 r;
	switch (set) {
	case TD_FORMULAS_SKYLAKE:
	case TD_FORMULAS_SKYLAKE_SMT:
		td_formulas_skylake(c->events, set == TD_FORMULAS_SKYLAKE_SMT, &r);
		break;
	case TD_FORMULAS_ZEN4:
		td_formulas_zen4(c->events, &r);
		break;
	case TD_FORMULAS_PERF_METRICS_L1:
	case TD_FORMULAS_PERF_METRICS_L2:
		c->smt_slots = 0;
		if (!c->slots) {
			memset(c->node, 0, sizeof(c->node));
			return -ENODATA;
		}
		td_formulas_perf_metrics(c->events, set == TD_FORMULAS_PERF_METRICS_L2 ? 2 : 1,
					 c->node);
		return 0;
	default:
		return td_arm64_formulas_apply ? td_arm64_formulas_apply(be, c) : -ENOENT;
	}
	memset(c->node, 0, sizeof(c->node));
	c->slots = 0;
	c->smt_slots = 0;
	if (r.no_data)
		return -ENODATA;
	c->slots = (uint64_t)llround(r.slots);
	c->node[TD_RETIRING] = round_slots(r.retiring, r.slots);
	c->node[TD_BAD_SPECULATION] = round_slots(r.bad_speculation, r.slots);
	c->node[TD_FRONTEND_BOUND] = round_slots(r.frontend_bound, r.slots);
	c->node[TD_BACKEND_BOUND] = round_slots(r.backend_bound, r.slots);
	c->smt_slots = round_slots(r.smt_contention, r.slots);
	return 0;
}

void td_formulas_apply(const struct td_backend *be, struct td_counts *c)
{
	td_formulas_apply_counts(be, c);
}
