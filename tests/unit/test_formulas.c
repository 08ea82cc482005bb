/* td_formulas on hand-computed counter sets (pmu-facts §3.1, §3.2, §4). */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "td_backend.h"
#include "td_counts.h"
#include "td_formulas.h"
#include "td_machine.h"

#define EPS 1e-12
#define expect_near(a, b) cr_expect(fabs((a) - (b)) < EPS, #a " = %.15g, want %.15g", (a), (b))

static void expect_l1(const struct td_l1 *r, double ret, double bs, double fe, double be, double smt)
{
	cr_expect(!r->no_data);
	expect_near(r->retiring, ret);
	expect_near(r->bad_speculation, bs);
	expect_near(r->frontend_bound, fe);
	expect_near(r->backend_bound, be);
	expect_near(r->smt_contention, smt);
}

Test(formulas, skylake_smt_off)
{
	/* CLKS 1000 -> SLOTS 4000. FE 800/4000; BS (2600-2000+4*50)/4000;
	 * RET 2000/4000; BE 1 - 0.2 - (2600+200)/4000 = 0.1. */
	uint64_t ev[TD_SKL_NR] = { 1000, 2600, 2000, 800, 50, 0, 0 };
	struct td_l1 r;
	td_formulas_skylake(ev, false, &r);
	expect_near(r.slots, 4000.0);
	expect_l1(&r, 0.5, 0.2, 0.2, 0.1, 0);
}

Test(formulas, skylake_smt_on_per_thread_correction)
{
	/* Alone half the time (ONE_THREAD_ACTIVE/REF_XCLK = 300/600):
	 * CORE_CLKS = 1000/2*(1+0.5) = 750, SLOTS 3000; RECOV = 50*0.75 = 37.5.
	 * FE 600/3000 = 0.2; BS (1800-1500+150)/3000 = 0.15; RET 0.5;
	 * BE 1 - 0.2 - (1800+150)/3000 = 0.15. */
	uint64_t ev[TD_SKL_NR] = { 1000, 1800, 1500, 600, 50, 300, 600 };
	struct td_l1 r;
	td_formulas_skylake(ev, true, &r);
	expect_near(r.slots, 3000.0);
	expect_l1(&r, 0.5, 0.15, 0.2, 0.15, 0);
	/* Never alone: SLOTS = 2*CLKS. */
	uint64_t shared[TD_SKL_NR] = { 1000, 1000, 1000, 0, 0, 0, 600 };
	td_formulas_skylake(shared, true, &r);
	expect_near(r.slots, 2000.0);
	expect_l1(&r, 0.5, 0, 0, 0.5, 0);
	/* Always alone: same as SMT off. */
	uint64_t alone[TD_SKL_NR] = { 1000, 2600, 2000, 800, 50, 600, 600 };
	td_formulas_skylake(alone, true, &r);
	expect_near(r.slots, 4000.0);
	expect_l1(&r, 0.5, 0.2, 0.2, 0.1, 0);
}

Test(formulas, zen4_five_categories)
{
	/* 6*1000 slots: RET 2400, BS 3000-2400, FE 1200, BE 1500, SMT 300. */
	uint64_t ev[TD_ZEN4_NR] = { 1000, 2400, 3000, 1200, 1500, 300 };
	struct td_l1 r;
	td_formulas_zen4(ev, &r);
	expect_near(r.slots, 6000.0);
	expect_l1(&r, 0.4, 0.1, 0.2, 0.25, 0.05);
	expect_near(r.retiring + r.bad_speculation + r.frontend_bound + r.backend_bound +
			    r.smt_contention, 1.0);
}

static const struct td_arm_counts arm_set = {
	.cpu_cycles = 1000, .op_retired = 2400, .op_spec = 3000, .stall_slot = 2000,
	.stall_slot_frontend = 800, .stall_slot_backend = 1200, .br_mis_pred = 20,
	.stall_frontend = 300, .stall_backend = 450,
};

Test(formulas, arm_sbsa_defaults)
{
	/* 5*1000 slots; busy 1-2000/5000 = 0.6; OP_RETIRED/OP_SPEC 0.8. */
	struct td_l1 r;
	td_formulas_arm_sbsa(&arm_set, 5, &r);
	expect_near(r.slots, 5000.0);
	expect_l1(&r, 0.48, 0.12, 0.16, 0.24, 0);
}

Test(formulas, neoverse_n2_r0p3_mispredict_corrections)
{
	/* FE 0.16 - 20/1000 = 0.14; BE 0.24 - 3*0.02 = 0.18. */
	struct td_l1 r;
	td_formulas_neoverse_n2(&arm_set, 5, 0x410fd493ul, &r);
	expect_l1(&r, 0.48, 0.12, 0.14, 0.18, 0);
	/* V2 takes the same file. */
	cr_expect_eq(td_formulas_arm_l1(&arm_set, 5, 0x410fd4f1ul, &r), 0);
	expect_l1(&r, 0.48, 0.12, 0.14, 0.18, 0);
}

Test(formulas, neoverse_n2_before_r0p3_subtracts_cycles)
{
	/* STALL_SLOT' = 3000-1000, STALL_SLOT_FRONTEND' = 1800-1000:
	 * busy 1-2000/5000 = 0.6 -> RET 0.48, BS 0.12; FE 800/5000-0.02 = 0.14. */
	struct td_arm_counts c = arm_set;
	c.stall_slot = 3000;
	c.stall_slot_frontend = 1800;
	struct td_l1 r;
	td_formulas_neoverse_n2(&c, 5, 0x410fd490ul, &r);
	expect_l1(&r, 0.48, 0.12, 0.14, 0.18, 0);
	cr_expect_eq(td_formulas_arm_l1(&c, 5, 0x410fd492ul, &r), 0);
	expect_l1(&r, 0.48, 0.12, 0.14, 0.18, 0);
	/* r1p0 is past r0p3: no subtraction. */
	td_formulas_neoverse_n2(&c, 5, 0x411fd490ul, &r);
	expect_near(r.frontend_bound, 1800.0 / 5000 - 0.02);
}

Test(formulas, neoverse_v1_width_8)
{
	/* 8*1000 slots: FE 2400/8000 - 4*10/1000 = 0.26; BS 0.2*0.5 + 0.04;
	 * RET 0.8*0.5; BE 1600/8000. */
	struct td_arm_counts c = { .cpu_cycles = 1000, .op_retired = 2400, .op_spec = 3000,
				   .stall_slot = 4000, .stall_slot_frontend = 2400,
				   .stall_slot_backend = 1600, .br_mis_pred = 10 };
	struct td_l1 r;
	td_formulas_neoverse_v1(&c, 8, &r);
	expect_l1(&r, 0.4, 0.14, 0.26, 0.2, 0);
	cr_expect_eq(td_formulas_arm_l1(&c, 0, 0x411fd401ul, &r), 0, "V1 needs no caps/slots");
	expect_l1(&r, 0.4, 0.14, 0.26, 0.2, 0);
}

Test(formulas, neoverse_n1_stall_cycles_only)
{
	struct td_stall_cycles s;
	td_formulas_neoverse_n1(&arm_set, &s);
	cr_expect(!s.no_data);
	expect_near(s.frontend_stalled, 0.3);
	expect_near(s.backend_stalled, 0.45);
	struct td_l1 r;
	cr_expect_eq(td_formulas_arm_l1(&arm_set, 4, 0x413fd0c1ul, &r), -EOPNOTSUPP);
	cr_expect(r.no_data);
	/* Unknown core: sbsa with caps/slots, nothing without. */
	cr_expect_eq(td_formulas_arm_l1(&arm_set, 5, 0x411fd0b0ul, &r), 0);
	expect_l1(&r, 0.48, 0.12, 0.16, 0.24, 0);
	cr_expect_eq(td_formulas_arm_l1(&arm_set, 0, 0x411fd0b0ul, &r), -ENOENT);
}

Test(formulas, zero_inputs_are_no_data)
{
	uint64_t zero[TD_SKL_NR] = { 0 };
	struct td_arm_counts z = { 0 };
	struct td_l1 r;
	struct td_stall_cycles s;
	td_formulas_skylake(zero, false, &r);
	cr_expect(r.no_data);
	cr_expect_eq(r.retiring, 0);
	td_formulas_skylake(zero, true, &r);
	cr_expect(r.no_data);
	td_formulas_zen4(zero, &r);
	cr_expect(r.no_data);
	td_formulas_arm_sbsa(&z, 5, &r);
	cr_expect(r.no_data);
	td_formulas_neoverse_v1(&z, 8, &r);
	cr_expect(r.no_data);
	td_formulas_neoverse_n2(&z, 5, 0x410fd493ul, &r);
	cr_expect(r.no_data);
	td_formulas_neoverse_n1(&z, &s);
	cr_expect(s.no_data);
	cr_expect(!isnan(r.retiring) && !isnan(s.frontend_stalled));
}

static struct td_machine machine(const char *name)
{
	char sys[256], proc[256];
	struct td_machine m;
	snprintf(sys, sizeof(sys), "data/machines/%s/sys", name);
	snprintf(proc, sizeof(proc), "data/machines/%s/proc", name);
	td_machine_probe(&m, sys, proc);
	return m;
}

Test(formulas, choose_from_machine_facts)
{
	const char *why = NULL;
	struct td_machine m = machine("skl");
	cr_expect_eq(td_formulas_choose(&m, &why), TD_FORMULAS_SKYLAKE_SMT);
	m.smt = false;
	cr_expect_eq(td_formulas_choose(&m, &why), TD_FORMULAS_SKYLAKE);
	m = machine("zen4");
	cr_expect_eq(td_formulas_choose(&m, &why), TD_FORMULAS_ZEN4);
	m.model = 0x21; /* Zen 3 */
	cr_expect_eq(td_formulas_choose(&m, &why), TD_FORMULAS_NONE);
	m = machine("icl");
	cr_expect_eq(td_formulas_choose(&m, &why), TD_FORMULAS_PERF_METRICS_L1);
	cr_expect(strstr(why, "perf-metrics") != NULL, "%s", why);
	m = machine("spr");
	cr_expect_eq(td_formulas_choose_level(&m, 2, &why), TD_FORMULAS_PERF_METRICS_L2);
	cr_expect_eq(td_formulas_choose_level(&m, 1, &why), TD_FORMULAS_PERF_METRICS_L1);
	m = machine("adl");
	cr_expect_eq(td_formulas_choose(&m, &why), TD_FORMULAS_PERF_METRICS_L2);
	m = machine("kvm");
	cr_expect_eq(td_formulas_choose(&m, &why), TD_FORMULAS_NONE);
	cr_expect_str_eq(why, "no hardware PMU: running under a hypervisor without vPMU");
	m = machine("n2");
	cr_expect_eq(td_formulas_choose(&m, &why), TD_FORMULAS_NONE);
}

Test(formulas, apply_fills_slot_counts_from_events)
{
	struct td_backend be = { 0 };
	struct td_counts c = { 0 };
	be.method = td_formulas_desc(TD_FORMULAS_SKYLAKE_SMT)->method;
	uint64_t ev[TD_SKL_NR] = { 1000, 1800, 1500, 600, 50, 300, 600 };
	memcpy(c.events, ev, sizeof(ev));
	cr_expect_eq(td_formulas_apply_counts(&be, &c), 0);
	cr_expect_eq(c.slots, 3000);
	cr_expect_eq(c.node[TD_RETIRING], 1500);
	cr_expect_eq(c.node[TD_BAD_SPECULATION], 450);
	cr_expect_eq(c.node[TD_FRONTEND_BOUND], 600);
	cr_expect_eq(c.node[TD_BACKEND_BOUND], 450);
	/* Idempotent: merged counts re-derive from their events. */
	td_formulas_apply(&be, &c);
	cr_expect_eq(c.slots, 3000);

	struct td_counts z = { 0 };
	be.method = td_formulas_desc(TD_FORMULAS_ZEN4)->method;
	uint64_t zev[TD_ZEN4_NR] = { 1000, 2400, 3000, 1200, 1500, 300 };
	memcpy(z.events, zev, sizeof(zev));
	td_formulas_apply(&be, &z);
	cr_expect_eq(z.slots, 6000);
	cr_expect_eq(z.node[TD_RETIRING], 2400);
	cr_expect_eq(z.node[TD_BAD_SPECULATION], 600);
	cr_expect_eq(z.node[TD_FRONTEND_BOUND], 1200);
	cr_expect_eq(z.node[TD_BACKEND_BOUND], 1500);
	cr_expect_eq(z.smt_slots, 300);

	/* No cycles: nothing, not zeros dressed as figures (slots 0 -> null fractions). */
	memset(z.events, 0, sizeof(z.events));
	cr_expect_eq(td_formulas_apply_counts(&be, &z), -ENODATA);
	cr_expect_eq(z.slots, 0);
	cr_expect_eq(z.node[TD_RETIRING], 0);

	/* Plain backends are left alone. */
	struct td_counts p = { .slots = 7 };
	be.method = "perf_event_open group read()";
	cr_expect_eq(td_formulas_apply_counts(&be, &p), -ENOENT);
	cr_expect_eq(p.slots, 7);
}

Test(formulas, perf_metrics_slot_counts_and_level2_derivation)
{
	/* Kernel slot counts per topdown event: L2 nodes are derived by clamped
	 * subtraction (light = retiring - heavy, ...). */
	uint64_t ev[TD_PM_NR] = { 4000, 1000, 2000, 3000, 1500, 700, 1200, 2500 };
	uint64_t node[TD_NODE_COUNT];
	td_formulas_perf_metrics(ev, 2, node);
	cr_expect_eq(node[TD_RETIRING], 4000);
	cr_expect_eq(node[TD_BAD_SPECULATION], 1000);
	cr_expect_eq(node[TD_FRONTEND_BOUND], 2000);
	cr_expect_eq(node[TD_BACKEND_BOUND], 3000);
	cr_expect_eq(node[TD_HEAVY_OPERATIONS], 1500);
	cr_expect_eq(node[TD_LIGHT_OPERATIONS], 2500);
	cr_expect_eq(node[TD_BRANCH_MISPREDICTS], 700);
	cr_expect_eq(node[TD_MACHINE_CLEARS], 300);
	cr_expect_eq(node[TD_FETCH_LATENCY], 1200);
	cr_expect_eq(node[TD_FETCH_BANDWIDTH], 800);
	cr_expect_eq(node[TD_MEMORY_BOUND], 2500);
	cr_expect_eq(node[TD_CORE_BOUND], 500);
	/* A child larger than its parent (rounding in the kernel) clamps at 0. */
	ev[TD_PM_BR_MISPREDICT] = 1001;
	td_formulas_perf_metrics(ev, 2, node);
	cr_expect_eq(node[TD_MACHINE_CLEARS], 0);
	td_formulas_perf_metrics(ev, 1, node);
	cr_expect_eq(node[TD_HEAVY_OPERATIONS], 0, "level 1 leaves level-2 nodes empty");
}

Test(formulas, perf_metrics_apply_keeps_accumulated_slots)
{
	struct td_backend be = { 0 };
	struct td_counts c = { 0 };
	be.method = td_formulas_desc(TD_FORMULAS_PERF_METRICS_L1)->method;
	uint64_t ev[4] = { 400, 100, 200, 300 };
	memcpy(c.events, ev, sizeof(ev));
	c.slots = 1000;
	cr_expect_eq(td_formulas_apply_counts(&be, &c), 0);
	cr_expect_eq(c.slots, 1000);
	cr_expect_eq(c.node[TD_RETIRING], 400);
	cr_expect_eq(c.node[TD_BACKEND_BOUND], 300);
	cr_expect_eq(c.node[TD_LIGHT_OPERATIONS], 0);
	c.slots = 0;
	cr_expect_eq(td_formulas_apply_counts(&be, &c), -ENODATA);
	cr_expect_eq(c.node[TD_RETIRING], 0);
}
