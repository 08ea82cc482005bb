/* td_emu + the emulate backend: the rdpmc read path against the emulated
 * PMU, with a scripted CPU clock so the expected values are exact. */
#include "td_backend.h"
#include "td_backend_rdpmc.h"
#include "td_emu.h"
#include "td_topdown.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t fake_ns;
static uint64_t fake_clock(void *arg) { return fake_ns; }

/* 60/4/16/20 with L2 20/2/8/12: bytes 153,10,41,51 and 51,5,20,31
 * (255 x fraction, rounded; none sits on .5). */
#define SPEC_A "default=ret:60,bad:4,fe:16,be:20,heavy:20,br:2,fetchlat:8,mem:12"
#define WORD_A UINT64_C(0x1f14053333290a99) /* see the bytes above */

static struct td_emu_spec spec;
static struct td_emu emu;

static void emu_setup(const char *text)
{
	char err[160];
	cr_assert_eq(td_emu_spec_parse(&spec, text, err, sizeof(err)), 0, "%s", err);
	fake_ns = 1000;
	td_emu_init(&emu, &spec, 4, fake_clock, NULL);
}

static int snap(struct td_sample *s, uint32_t epoch)
{
	struct td_pmu_reader r = td_emu_reader(&emu);
	struct td_thread_counters tc = { .epoch = epoch };
	td_backend_rdpmc_sample(&r, &emu.leader_pg, &emu.metric_pg, &tc, s);
	return (s->flags & TD_SAMPLE_OK) ? 0 : -1;
}

Test(emulate, spec_parsing_and_errors)
{
	char err[160];
	struct td_emu_spec s;
	cr_assert_eq(td_emu_spec_parse(&s, NULL, err, sizeof(err)), 0);
	cr_expect_float_eq(s.prof[s.def].frac[0], 0.40, 1e-12);
	cr_expect_float_eq(s.prof[s.def].frac[4], 0.20, 1e-12, "L2 default: half the parent");
	cr_assert_eq(td_emu_spec_parse(&s,
					" default = ret:40,bad:10,fe:20,be:30 ;thread:chaser=ret:10,"
					"bad:5,fe:15,be:70,mem:60;region:f=ret:100;sim=bump:7,switch:3;",
					err, sizeof(err)),
		     0, "%s", err);
	int t = td_emu_spec_find(&s, TD_EMU_THREAD, "chaser");
	cr_assert_geq(t, 0);
	cr_expect_float_eq(s.prof[t].frac[TD_BACKEND_BOUND], 0.70, 1e-12);
	cr_expect_float_eq(s.prof[t].frac[7], 0.60, 1e-12);
	cr_expect(s.has_thread);
	cr_expect_geq(td_emu_spec_find(&s, TD_EMU_REGION, "f"), 0);
	cr_expect_eq(s.sim.bump, 7);
	cr_expect_eq(s.sim.sw, 3);
	cr_expect_eq(td_emu_spec_parse(&s, "default=ret:40,bad:10,fe:20", err, sizeof(err)), -EINVAL);
	cr_expect(strstr(err, "add up to 70"), "%s", err);
	cr_expect_eq(td_emu_spec_parse(&s, "default=ret:50,be:50,heavy:60", err, sizeof(err)),
		     -EINVAL);
	cr_expect(strstr(err, "heavy"), "%s", err);
	cr_expect_eq(td_emu_spec_parse(&s, "default=ret:100,xyz:1", err, sizeof(err)), -EINVAL);
	cr_expect_eq(td_emu_spec_parse(&s, "bogus=ret:100", err, sizeof(err)), -EINVAL);
	cr_expect_eq(td_emu_spec_parse(&s, "sim=warp:3", err, sizeof(err)), -EINVAL);
	cr_expect_eq(td_emu_spec_parse(&s, "default=ret:abc", err, sizeof(err)), -EINVAL);
}

Test(emulate, page_fields_look_like_the_kernel)
{
	emu_setup(SPEC_A);
	cr_expect_eq(emu.leader_pg.index, TD_PMU_SLOTS_INDEX);
	cr_expect_eq(emu.metric_pg.index, TD_PMU_METRICS_INDEX);
	cr_expect_eq(emu.leader_pg.pmc_width, 48);
	cr_expect_eq(emu.leader_pg.cap_user_rdpmc, 1);
	cr_expect_eq(emu.leader_pg.lock % 2, 0);
}

Test(emulate, slots_follow_cpu_time_and_metrics_are_quantised)
{
	emu_setup(SPEC_A);
	fake_ns += 1000;
	struct td_sample s;
	cr_assert_eq(snap(&s, 0), 0);
	cr_expect_eq(s.slots, 4000, "4 slots/ns x 1000 ns: %lu", s.slots);
	cr_expect_eq(s.metrics, WORD_A, "metrics %#lx", s.metrics);
	struct td_sample z = { .flags = TD_SAMPLE_OK };
	struct td_counts d;
	td_topdown_delta(&z, &s, 2, &d);
	/* 4000 x 153/255 = 2400 ... exact because 4000 is a multiple of 255/gcd */
	cr_expect_eq(d.node[TD_RETIRING], 4000 * 153 / 255);
	cr_expect_eq(d.node[TD_MEMORY_BOUND], 4000 * 31 / 255);
	cr_expect_eq(d.node[TD_CORE_BOUND], 4000 * 51 / 255 - 4000 * 31 / 255);
}

Test(emulate, context_switch_saves_and_restores_not_resets)
{
	emu_setup(SPEC_A);
	fake_ns += 1000;
	struct td_sample a, b;
	cr_assert_eq(snap(&a, 0), 0);
	uint32_t lock_a = emu.leader_pg.lock;
	fake_ns += 1000;
	td_emu_context_switch(&emu);
	fake_ns += 1000;
	cr_assert_eq(snap(&b, 0), 0);
	cr_expect_neq(emu.leader_pg.lock, lock_a, "the switch bumped lock");
	cr_expect_eq(b.slots, 12000, "raw SLOTS continues across the switch: %lu", b.slots);
	cr_expect_eq(emu.leader_pg.offset, 8000, "offset = count saved at sched-out");
	cr_expect_neq((uint64_t)emu.leader_pg.offset + b.slots, b.slots,
		      "offset + raw would double-count");
	struct td_counts d;
	cr_expect_eq(td_topdown_delta(&a, &b, 2, &d), TD_TOPDOWN_VALID);
	cr_expect_eq(d.slots, 8000);
	cr_expect_eq(d.node[TD_RETIRING], 12000 * 153 / 255 - 4000 * 153 / 255);
}

Test(emulate, index_zero_while_descheduled)
{
	emu_setup(SPEC_A);
	fake_ns += 1000;
	td_emu_sched_out(&emu);
	uint64_t reads = emu.reads;
	struct td_sample s;
	cr_expect_neq(snap(&s, 0), 0);
	cr_expect(s.flags & TD_SAMPLE_NOT_RUNNING);
	cr_expect_eq(emu.reads, reads, "no instruction executed with index 0");
	fake_ns += 5000; /* not counted: the group is out */
	td_emu_sched_in(&emu);
	cr_assert_eq(snap(&s, 0), 0);
	cr_expect_eq(s.slots, 4000);
	cr_expect_eq(s.time_enabled - s.time_running, 5000, "not-running time visible");
}

Test(emulate, seqlock_bump_mid_read_is_retried)
{
	emu_setup(SPEC_A ";sim=bump:3");
	fake_ns += 1000;
	struct td_sample s;
	cr_assert_eq(snap(&s, 0), 0); /* reads 1, 2 */
	cr_expect_eq(emu.reads, 2);
	fake_ns += 1000;
	/* reads 3 (bump) 4 -> retry; 5 6 (bump) -> retry; 7 8 -> ok */
	cr_assert_eq(snap(&s, 0), 0);
	cr_expect_eq(emu.reads, 8, "reads %lu", emu.reads);
	cr_expect_eq(s.slots, 8000);
	cr_expect_eq(s.metrics, WORD_A);
}

Test(emulate, seqlock_that_never_settles_gives_up)
{
	emu_setup(SPEC_A ";sim=bump:1");
	struct td_sample s;
	cr_expect_neq(snap(&s, 0), 0);
	cr_expect_eq(s.flags & (TD_SAMPLE_OK | TD_SAMPLE_NOT_RUNNING), 0);
	cr_expect_eq(emu.reads, 2 * TD_PMU_READ_RETRIES);
}

Test(emulate, our_reset_zeroes_and_epochs_separate)
{
	emu_setup(SPEC_A);
	fake_ns += 1000;
	struct td_sample a, b, c;
	snap(&a, 0);
	td_emu_reset(&emu);
	cr_assert_eq(snap(&b, 1), 0);
	cr_expect_eq(b.slots, 0);
	cr_expect_eq(b.metrics, 0);
	cr_expect_eq(emu.leader_pg.offset, 0);
	fake_ns += 1000;
	cr_assert_eq(snap(&c, 1), 0);
	struct td_counts d;
	cr_expect_eq(td_topdown_delta(&a, &c, 2, &d), TD_TOPDOWN_EPOCH, "never mixed");
	cr_expect_eq(td_topdown_delta(&b, &c, 2, &d), TD_TOPDOWN_VALID);
	cr_expect_eq(d.slots, 4000);
}

Test(emulate, overflow_pmi_resets_without_lock_and_is_caught_by_backwards)
{
	emu_setup(SPEC_A);
	fake_ns += 2000;
	struct td_sample a, b;
	snap(&a, 0);
	uint32_t lock = emu.leader_pg.lock;
	td_emu_pmi(&emu);
	fake_ns += 1000;
	snap(&b, 0);
	cr_expect_eq(emu.leader_pg.lock, lock, "PMI does not touch the page");
	cr_expect_eq(a.slots, 8000);
	cr_expect_eq(b.slots, 4000);
	struct td_counts d;
	cr_expect_eq(td_topdown_delta(&a, &b, 2, &d), TD_TOPDOWN_BACKWARDS);
}

Test(emulate, hybrid_guard_refuses_on_ecore_and_never_faults)
{
	emu_setup(SPEC_A ";sim=ecore:1");
	fake_ns += 1000;
	struct td_sample s;
	/* read 1 migrates to an E-core after index was loaded: the guard
	 * refuses, the lock changed, the retry sees index 0. */
	cr_expect_neq(snap(&s, 0), 0);
	cr_expect(s.flags & TD_SAMPLE_NOT_RUNNING);
	cr_expect_eq(emu.faults, 0);
	cr_expect_eq(emu.refusals, 1);
	cr_expect_eq(emu.leader_pg.index, 0);
}

Test(emulate, without_the_guard_the_ecore_read_faults)
{
	emu_setup(SPEC_A ";sim=ecore:1");
	struct td_pmu_reader r = td_emu_reader(&emu);
	r.read_checked = NULL; /* the naive reader: index check only */
	struct td_pmu_value v;
	td_pmu_read_topdown(&r, &emu.leader_pg, &emu.metric_pg, &v);
	cr_expect_geq(emu.faults, 1, "the fault the guard prevents");
}

Test(emulate, ecore_stay_ends_at_the_next_snapshot)
{
	emu_setup(SPEC_A ";sim=ecore:3");
	fake_ns += 1000;
	struct td_sample a, b, c;
	cr_assert_eq(snap(&a, 0), 0); /* reads 1, 2 */
	td_emu_tick(&emu);
	fake_ns += 1000;
	cr_expect_neq(snap(&b, 0), 0); /* read 3 migrates */
	fake_ns += 7000;                /* on the E-core: not counted */
	td_emu_tick(&emu);              /* back on a P-core */
	fake_ns += 1000;
	cr_assert_eq(snap(&c, 0), 0);
	cr_expect_eq(c.slots, a.slots + 8000, "%lu", c.slots);
	struct td_counts d;
	cr_expect_eq(td_topdown_delta(&a, &c, 2, &d), TD_TOPDOWN_VALID);
	cr_expect_eq(d.time_enabled - d.time_running, 7000);
}

static void expect_within(const struct td_counts *d, const double *truth_slots, const char *what)
{
	for (int i = 0; i < 8; i++) {
		static const int node[8] = { 0, 1, 2, 3, 4, 6, 8, 10 };
		double got = (double)d->node[node[i]];
		cr_expect_leq(fabs(got - truth_slots[i]), (double)d->err_slots,
			      "%s %s: %.0f vs true %.0f, bound %lu", what, td_node_names[node[i]],
			      got, truth_slots[i], d->err_slots);
	}
}

Test(emulate, per_region_fractions_within_the_error_bound)
{
	emu_setup(SPEC_A ";region:inner=ret:10,bad:10,fe:10,be:70,mem:35");
	fake_ns += 1000; /* default profile: 4000 slots */
	struct td_sample a, r0, r1, b;
	snap(&a, 0);
	td_emu_region(&emu, "inner");
	snap(&r0, 0);
	fake_ns += 3000; /* 12000 slots in the region */
	snap(&r1, 0);
	td_emu_region(&emu, NULL);
	fake_ns += 500; /* 2000 more with the default */
	snap(&b, 0);
	struct td_counts d;
	cr_assert_eq(td_topdown_delta(&r0, &r1, 2, &d), TD_TOPDOWN_VALID);
	cr_expect_eq(d.slots, 12000);
	double region[8] = { 1200, 1200, 1200, 8400, 600, 600, 600, 4200 };
	expect_within(&d, region, "region");
	cr_assert_eq(td_topdown_delta(&a, &b, 2, &d), TD_TOPDOWN_VALID);
	double all[8];
	const double *f = spec.prof[spec.def].frac;
	for (int i = 0; i < 8; i++)
		all[i] = region[i] + 2000 * f[i];
	expect_within(&d, all, "a..b");
}

/* The backend ops end to end on the real thread CPU clock. */
Test(emulate, backend_ops_report_configured_fractions)
{
	struct td_config cfg;
	cr_assert_eq(td_config_init(&cfg), 0);
	free(cfg.emulate_fractions);
	cfg.emulate_fractions = strdup("default=ret:25,bad:15,fe:35,be:25;sim=bump:5,switch:7");
	struct td_backend be = { .ops = &td_backend_emulate_ops, .cfg = &cfg };
	cr_assert_eq(be.ops->probe(&be), 0, "%s", be.reason);
	cr_expect(be.emulated);
	cr_expect(strstr(be.reason, "emulated PMU"), "%s", be.reason);
	cr_expect(strstr(be.method, "emulated PMU"), "%s", be.method);
	cr_expect_eq(be.topdown_level, 2);
	struct td_thread_counters tc = { 0 };
	cr_assert_eq(be.ops->thread_open(&be, &tc), 0);
	struct td_sample a, b, c;
	struct td_counts acc = { 0 };
	be.ops->snapshot(&be, &tc, &a);
	struct timespec t0;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	volatile uint64_t x = 0;
	for (int i = 0; i < 3000000; i++)
		x += (uint64_t)i * i;
	be.ops->snapshot(&be, &tc, &b);
	be.ops->accumulate(&be, &a, &b, &acc);
	cr_assert_eq(be.ops->reset(&be, &tc), 0);
	cr_expect_eq(tc.epoch, 1);
	be.ops->snapshot(&be, &tc, &a);
	for (int i = 0; i < 3000000; i++)
		x += (uint64_t)i * i;
	be.ops->snapshot(&be, &tc, &c);
	be.ops->accumulate(&be, &b, &c, &acc); /* across the reset: refused */
	be.ops->accumulate(&be, &a, &c, &acc);
	cr_expect_eq(acc.deltas, 2);
	cr_expect_eq(acc.invalid, 1);
	cr_expect_gt(acc.slots, 0);
	cr_expect_gt(acc.cpu_ns, 0);
	double want[4] = { 0.25, 0.15, 0.35, 0.25 };
	double bound = td_topdown_error_pp(&acc);
	for (int i = 0; i < 4; i++) {
		double got = td_topdown_fraction(&acc, i);
		cr_expect_leq(fabs(got - want[i]) * 100, bound, "%s %.4f vs %.2f (bound %.3f pp)",
			      td_node_names[i], got, want[i], bound);
	}
	cr_expect_lt(bound, 1.0, "bound %.3f pp", bound);
	struct td_emu *e = tc.priv;
	cr_expect_gt(e->switches, 0);
	be.ops->thread_close(&be, &tc);
	be.ops->exit(&be);
	td_config_exit(&cfg);
}

Test(emulate, bad_fractions_fail_the_probe_with_a_reason)
{
	struct td_config cfg;
	cr_assert_eq(td_config_init(&cfg), 0);
	free(cfg.emulate_fractions);
	cfg.emulate_fractions = strdup("default=ret:30");
	struct td_backend be = { .ops = &td_backend_emulate_ops, .cfg = &cfg };
	cr_expect_eq(be.ops->probe(&be), -EINVAL);
	cr_expect(strstr(be.reason, "add up to 30"), "%s", be.reason);
	td_config_exit(&cfg);
}

Test(emulate, set_region_is_a_noop_for_other_backends)
{
	struct td_backend be = { .ops = &td_backend_rdpmc_ops };
	struct td_thread_counters tc = { .priv = (void *)1 };
	td_emu_set_region(&be, &tc, "x"); /* must not touch tc->priv */
	td_emu_set_region(NULL, &tc, "x");
}

/* Ordinary counters: offset + sext(raw) is continuous across a context
 * switch even though the raw counter is re-armed at sched-in. */
Test(emulate, ordinary_counter_continuous_across_context_switch)
{
	emu_setup(SPEC_A);
	const struct perf_event_mmap_page *pg = td_emu_add_event(&emu, 3);
	cr_assert_not_null(pg);
	struct td_pmu_reader r = td_emu_reader(&emu);
	struct td_pmu_value a, b;
	fake_ns += 1000;
	cr_assert_eq(td_pmu_read_counter(&r, pg, &a), 0);
	cr_expect_eq(a.index, 1, "GP counter 0 -> page index 1");
	cr_expect_eq(a.value, 3000, "%ld", (long)a.value);
	uint64_t raw_before = emu.ev[0].raw;
	td_emu_context_switch(&emu);
	cr_expect_lt(emu.ev[0].raw, raw_before, "re-armed at sched-in");
	cr_expect_gt(emu.ev[0].raw, UINT64_C(1) << 47, "armed raw is negative in 48 bits");
	fake_ns += 1000;
	cr_assert_eq(td_pmu_read_counter(&r, pg, &b), 0);
	cr_expect_eq(b.value, 6000, "%ld", (long)b.value);
	cr_expect_eq(emu.ev[0].truth, 6000);
}

/* After our reset the kernel leaves prev_count = the 48-bit raw value, so
 * the page is off by 2^48 until the next sched-in: only deltas modulo
 * 2^48 are right. */
Test(emulate, ordinary_counter_after_reset_is_right_modulo_2_48)
{
	emu_setup(SPEC_A);
	const struct perf_event_mmap_page *pg = td_emu_add_event(&emu, 3);
	struct td_pmu_reader r = td_emu_reader(&emu);
	struct td_pmu_value a, b;
	fake_ns += 1000;
	td_emu_reset(&emu);
	cr_assert_eq(td_pmu_read_counter(&r, pg, &a), 0);
	cr_expect_eq(a.value, (uint64_t)0 - (UINT64_C(1) << 48), "%#lx", a.value);
	fake_ns += 1000;
	td_emu_context_switch(&emu);
	fake_ns += 1000;
	cr_assert_eq(td_pmu_read_counter(&r, pg, &b), 0);
	cr_expect_eq(b.value, 6000, "count since the reset: %ld", (long)b.value);
	cr_expect_eq(b.value - a.value, 6000 + (UINT64_C(1) << 48), "the naive delta");
	cr_expect_eq(td_backend_rdpmc_event_delta(a.value, b.value, 48), 6000);
	cr_expect_eq(td_backend_rdpmc_event_delta(10, 4, 48), (UINT64_C(1) << 48) - 6);
}

Test(emulate, backend_extra_events_per_interval)
{
	struct td_config cfg;
	cr_assert_eq(td_config_init(&cfg), 0);
	free(cfg.emulate_fractions);
	cfg.emulate_fractions = strdup("events=instructions:6,cycles:3;sim=switch:3");
	free(cfg.events);
	cfg.events = strdup("instructions, cycles");
	struct td_backend be = { .ops = &td_backend_emulate_ops, .cfg = &cfg };
	cr_assert_eq(be.ops->probe(&be), 0, "%s", be.reason);
	cr_assert_eq(be.nr_events, 2);
	cr_expect_str_eq(be.event_names[0], "instructions");
	struct td_thread_counters tc = { 0 };
	cr_assert_eq(be.ops->thread_open(&be, &tc), 0);
	struct td_emu *e = tc.priv;
	e->clock = fake_clock; /* exact figures from here on */
	fake_ns = e->last_ns;
	struct td_sample a, b;
	struct td_counts acc = { 0 };
	be.ops->snapshot(&be, &tc, &a);
	fake_ns += 10000;
	be.ops->snapshot(&be, &tc, &b);
	be.ops->accumulate(&be, &a, &b, &acc);
	cr_assert_eq(be.ops->reset(&be, &tc), 0);
	be.ops->snapshot(&be, &tc, &a);
	fake_ns += 5000;
	be.ops->snapshot(&be, &tc, &b);
	be.ops->accumulate(&be, &a, &b, &acc);
	cr_expect_eq(acc.events[0], 90000, "instructions %lu", acc.events[0]);
	cr_expect_eq(acc.events[1], 45000, "cycles %lu", acc.events[1]);
	cr_expect_eq(acc.slots, 60000);
	cr_expect_eq(acc.cpu_ns, 15000, "time_running extrapolated through the emulated TSC: %lu",
		     acc.cpu_ns);
	cr_expect_gt(e->switches, 0);
	be.ops->thread_close(&be, &tc);
	be.ops->exit(&be);
	td_config_exit(&cfg);
}

/* A region switch takes effect at the emulated read nearest to the call:
 * just before the entry snapshot, just after the exit snapshot. */
Test(emulate, region_switch_snaps_to_the_nearest_read)
{
	emu_setup(SPEC_A ";region:inner=ret:10,bad:10,fe:10,be:70");
	struct td_sample r0, r1, b;
	td_emu_region(&emu, "inner"); /* t=1000 */
	fake_ns += 5;
	snap(&r0, 0);                 /* t=1005: the entry snapshot */
	fake_ns += 1000;
	snap(&r1, 0);                 /* t=2005: the exit snapshot */
	fake_ns += 10;
	td_emu_region(&emu, NULL);    /* t=2015 */
	fake_ns += 2000;
	snap(&b, 0);                  /* t=4015 */
	/* retiring: 20 slots x 0.6 + 4000 x 0.1 + 8040 x 0.6 */
	cr_expect_float_eq(emu.truth[TD_RETIRING], 20 * 0.6 + 400 + 8040 * 0.6, 1e-6, "%f",
			   emu.truth[TD_RETIRING]);
	cr_expect_float_eq(emu.truth[TD_BACKEND_BOUND], 20 * 0.2 + 2800 + 8040 * 0.2, 1e-6);
	struct td_counts d;
	cr_assert_eq(td_topdown_delta(&r0, &r1, 1, &d), TD_TOPDOWN_VALID);
	cr_expect_eq(d.slots, 4000);
	cr_expect_leq(fabs((double)d.node[TD_RETIRING] - 400), (double)d.err_slots, "%lu",
		      d.node[TD_RETIRING]);
	cr_expect_leq(fabs((double)d.node[TD_BACKEND_BOUND] - 2800), (double)d.err_slots, "%lu",
		      d.node[TD_BACKEND_BOUND]);
}
