/* td_formulas: TopDown level 1 from generic (non-perf-metrics) events.
 *
 *   Intel pre-Ice Lake  Skylake formulas (pmu-facts §3.1), SLOTS = 4·CORE_CLKS,
 *                       with the per-thread SMT correction
 *                       CORE_CLKS = CLKS/2·(1 + ONE_THREAD_ACTIVE/REF_XCLK)
 *   AMD Zen 4           pipeline utilisation (§3.2), 6 dispatch slots per
 *                       cycle, five categories including SMT contention
 *   Arm Neoverse        sbsa defaults, V1, N2/V2 and N1 stall cycles (§4),
 *                       pure functions for the arm64 backend
 *
 * The perf backend counts the events of a formula set as td_sample.events[0..n)
 * and accumulates raw deltas; td_formulas_apply turns accumulated events
 * into node slot counts at report time. Every result has a no_data flag:
 * all-zero inputs give "no data", never 0 % or NaN.
 * Threading: pure functions, any thread. */
#ifndef TD_FORMULAS_H
#define TD_FORMULAS_H

#include <stdbool.h>
#include <stdint.h>

struct td_backend;
struct td_counts;
struct td_machine;

enum td_formula_set {
	TD_FORMULAS_NONE,
	TD_FORMULAS_SKYLAKE,     /* SMT off: SLOTS = 4·CLKS */
	TD_FORMULAS_SKYLAKE_SMT, /* SMT on, per thread: the ONE_THREAD_ACTIVE correction */
	TD_FORMULAS_ZEN4,
	TD_FORMULAS_PERF_METRICS_L1, /* Intel perf-metrics read with read(2): slot counts */
	TD_FORMULAS_PERF_METRICS_L2,
};

/* Index of each event in td_sample.events[] for a formula set. */
enum { TD_SKL_CLKS, TD_SKL_UOPS_ISSUED, TD_SKL_RETIRE_SLOTS, TD_SKL_IDQ_NOT_DELIVERED,
       TD_SKL_RECOVERY_CYCLES, TD_SKL_ONE_THREAD_ACTIVE, TD_SKL_REF_XCLK, TD_SKL_NR };
/* perf-metrics: the slots leader is td_sample.slots; events are the
 * kernel's per-node slot counts (topdown-* events read with read()). */
enum { TD_PM_RETIRING, TD_PM_BAD_SPEC, TD_PM_FE_BOUND, TD_PM_BE_BOUND, TD_PM_HEAVY_OPS,
       TD_PM_BR_MISPREDICT, TD_PM_FETCH_LAT, TD_PM_MEM_BOUND, TD_PM_NR };
enum { TD_ZEN4_CYCLES, TD_ZEN4_RET_OPS, TD_ZEN4_DISP_OPS, TD_ZEN4_NO_DISP_FRONTEND,
       TD_ZEN4_NO_DISP_BACKEND, TD_ZEN4_NO_DISP_SMT, TD_ZEN4_NR };

struct td_formula_event {
	const char *name;   /* perf JSON / sysfs name, shown in reports */
	uint64_t config;    /* PERF_TYPE_RAW encoding, or the core PMU's (perf-metrics) */
};

struct td_formula_desc {
	enum td_formula_set set;
	const char *method;       /* be->method: names the formula set */
	int nr_events;
	struct td_formula_event events[TD_PM_NR];
	bool core_pmu_type;       /* events use the core PMU's sysfs type, slots leader first */
};

/* The formula set for this machine, or NONE; *why says why, one phrase.
 * Perf-metrics CPUs get the read() variant (level min(machine, wanted)). */
enum td_formula_set td_formulas_choose(const struct td_machine *m, const char **why);
enum td_formula_set td_formulas_choose_level(const struct td_machine *m, int wanted,
					     const char **why);
/* Node slot counts from perf-metrics slot counts (L2 derived by clamped
 * subtraction, as the rdpmc path does). level 1 or 2. */
void td_formulas_perf_metrics(const uint64_t *ev, int level, uint64_t *node);
/* Description of a set (NULL for NONE). */
const struct td_formula_desc *td_formulas_desc(enum td_formula_set set);
/* The set whose method string is be->method (NONE if none). */
enum td_formula_set td_formulas_of(const struct td_backend *be);

/* Level-1 result: fractions of all slots (SMT contention only on Zen 4). */
struct td_l1 {
	double slots;
	double retiring, bad_speculation, frontend_bound, backend_bound, smt_contention;
	bool no_data;   /* no cycles counted: no figure at all */
};

/* Skylake: ev[TD_SKL_*]; smt selects the per-thread SMT correction
 * (ONE_THREAD_ACTIVE, REF_XCLK then required). */
void td_formulas_skylake(const uint64_t *ev, bool smt, struct td_l1 *out);
/* Zen 4: ev[TD_ZEN4_*]. */
void td_formulas_zen4(const uint64_t *ev, struct td_l1 *out);

/* Arm PMUv3 common events. */
struct td_arm_counts {
	uint64_t cpu_cycles, op_retired, op_spec, stall_slot, stall_slot_frontend,
		stall_slot_backend, br_mis_pred, stall_frontend, stall_backend;
};
/* sbsa.json defaults; slots from <pmu>/caps/slots. */
void td_formulas_arm_sbsa(const struct td_arm_counts *c, int slots, struct td_l1 *out);
/* Neoverse V1: frontend and bad speculation with width 8 hard-coded and a
 * branch-mispredict correction; backend/retiring with slots (8 if <= 0). */
void td_formulas_neoverse_v1(const struct td_arm_counts *c, int slots, struct td_l1 *out);
/* Neoverse N2/V2: midr selects the pre-r0p3 N2 correction (STALL_SLOT and
 * STALL_SLOT_FRONTEND minus CPU_CYCLES). */
void td_formulas_neoverse_n2(const struct td_arm_counts *c, int slots, unsigned long midr,
			     struct td_l1 *out);
/* Neoverse N1 has no slot metrics: stall-cycle fractions. */
struct td_stall_cycles {
	double frontend_stalled, backend_stalled;
	bool no_data;
};
void td_formulas_neoverse_n1(const struct td_arm_counts *c, struct td_stall_cycles *out);
/* Chooses by MIDR part: N2/V2, V1, N1 (returns -EOPNOTSUPP: use stall
 * cycles), else sbsa defaults when slots > 0 (-ENOENT when 0). */
int td_formulas_arm_l1(const struct td_arm_counts *c, int slots, unsigned long midr,
		       struct td_l1 *out);

/* Fills c->node[] (level 1; level 2 for perf-metrics L2), c->slots and
 * c->smt_slots from c->events[] for be's formula set (perf-metrics: c->slots
 * is the accumulated SLOTS and is kept). Idempotent (recomputed from events each time), so
 * call it on every counts object, merged ones included, before writing
 * metrics. Leaves c untouched when be has no formula set; when no cycles
 * were counted, nodes and slots are 0 ("no data": the metrics writer then
 * prints null fractions). The core's metrics writer calls it (weak). */
void td_formulas_apply(const struct td_backend *be, struct td_counts *c);
/* Same, returning 0, -ENOENT (no formula set) or -ENODATA (no cycles). */
int td_formulas_apply_counts(const struct td_backend *be, struct td_counts *c);

#endif
