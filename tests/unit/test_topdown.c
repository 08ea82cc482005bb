/* td_topdown: decoding, deltas, validity, normalisation, error bound and
 * reset policy, on hand-computed PERF_METRICS words. */
#include "td_topdown.h"

#include <criterion/criterion.h>
#include <math.h>

/* L1 bytes: retiring 102, bad_spec 26, fe 51, be 76 (sum 255);
 * L2 bytes: heavy 25, br_mispredict 13, fetch_lat 30, mem_bound 40. */
#define WORD_L1 UINT64_C(0x000000004c331a66)
#define WORD_L2 UINT64_C(0x281e0d194c331a66)

static struct td_sample sample(uint64_t slots, uint64_t metrics, uint32_t epoch)
{
	return (struct td_sample){ .slots = slots, .metrics = metrics, .epoch = epoch,
				   .flags = TD_SAMPLE_OK };
}

Test(topdown, byte_extracts_each_field)
{
	unsigned want[8] = { 0x66, 0x1a, 0x33, 0x4c, 0x19, 0x0d, 0x1e, 0x28 };
	for (int i = 0; i < 8; i++)
		cr_expect_eq(td_topdown_byte(WORD_L2, i), want[i], "byte %d: %u", i,
			     td_topdown_byte(WORD_L2, i));
}

Test(topdown, slot_counts_divide_by_255_not_slots)
{
	uint64_t s[8];
	td_topdown_slot_counts(2550, WORD_L2, 8, s);
	uint64_t want[8] = { 1020, 260, 510, 760, 250, 130, 300, 400 };
	for (int i = 0; i < 8; i++)
		cr_expect_eq(s[i], want[i], "field %d: %lu != %lu", i, s[i], want[i]);
}

Test(topdown, slot_counts_round_down_like_the_kernel)
{
	uint64_t s[4];
	/* 1000 * 128 / 255 = 501.96 -> 501 */
	td_topdown_slot_counts(1000, 0x3f400080, 4, s);
	cr_expect_eq(s[0], 501);
	cr_expect_eq(s[1], 0);
	cr_expect_eq(s[2], 250);
	cr_expect_eq(s[3], 247);
}

Test(topdown, slot_counts_do_not_overflow_on_48bit_slots)
{
	uint64_t s[1];
	uint64_t slots = (UINT64_C(1) << 48) - 1;
	td_topdown_slot_counts(slots, 0xff, 1, s);
	cr_expect_eq(s[0], slots);
}

Test(topdown, level2_delta_from_reset_has_all_twelve_nodes)
{
	struct td_sample a = sample(0, 0, 3), b = sample(2550, WORD_L2, 3);
	struct td_counts d;
	cr_assert_eq(td_topdown_delta(&a, &b, 2, &d), TD_TOPDOWN_VALID);
	uint64_t want[TD_NODE_COUNT] = {
		[TD_RETIRING] = 1020,	      [TD_BAD_SPECULATION] = 260,
		[TD_FRONTEND_BOUND] = 510,    [TD_BACKEND_BOUND] = 760,
		[TD_HEAVY_OPERATIONS] = 250,  [TD_LIGHT_OPERATIONS] = 770,
		[TD_BRANCH_MISPREDICTS] = 130, [TD_MACHINE_CLEARS] = 130,
		[TD_FETCH_LATENCY] = 300,     [TD_FETCH_BANDWIDTH] = 210,
		[TD_MEMORY_BOUND] = 400,      [TD_CORE_BOUND] = 360,
	};
	for (int i = 0; i < TD_NODE_COUNT; i++)
		cr_expect_eq(d.node[i], want[i], "%s: %lu != %lu", td_node_names[i], d.node[i],
			     want[i]);
	cr_expect_eq(d.slots, 2550);
	cr_expect_eq(d.err_slots, 12, "err %lu", d.err_slots); /* ceil(2550/255) + 2 */
	cr_expect_eq(d.deltas, 1);
	cr_expect_eq(d.invalid, 0);
}

Test(topdown, level1_ignores_level2_bytes)
{
	struct td_sample a = sample(0, 0, 0), b = sample(2550, WORD_L2, 0);
	struct td_counts d;
	td_topdown_delta(&a, &b, 1, &d);
	cr_expect_eq(d.node[TD_RETIRING], 1020);
	for (int i = TD_L1_NODES; i < TD_NODE_COUNT; i++)
		cr_expect_eq(d.node[i], 0, "%s = %lu", td_node_names[i], d.node[i]);
}

Test(topdown, delta_between_two_snapshots)
{
	/* A: 1000 slots, bytes 128/0/64/63. B: 3000 slots, bytes 100/50/50/55.
	 * s(A) = 501, 0, 250, 247; s(B) = 1176, 588, 588, 647. */
	struct td_sample a = sample(1000, 0x3f400080, 1), b = sample(3000, 0x37323264, 1);
	struct td_counts d;
	cr_assert_eq(td_topdown_delta(&a, &b, 1, &d), TD_TOPDOWN_VALID);
	cr_expect_eq(d.node[TD_RETIRING], 675);
	cr_expect_eq(d.node[TD_BAD_SPECULATION], 588);
	cr_expect_eq(d.node[TD_FRONTEND_BOUND], 338);
	cr_expect_eq(d.node[TD_BACKEND_BOUND], 400);
	cr_expect_eq(d.slots, 2000);
	cr_expect_eq(d.err_slots, 18, "err %lu", d.err_slots); /* ceil(4000/255) + 2 */
}

Test(topdown, shrinking_fraction_clamps_at_zero)
{
	/* s_ret(A) = 1000, s_ret(B) = 1100 * 100 / 255 = 431: clamped to 0. */
	struct td_sample a = sample(1000, 0xff, 0), b = sample(1100, 0x9b64, 0);
	struct td_counts d;
	td_topdown_delta(&a, &b, 1, &d);
	cr_expect_eq(d.node[TD_RETIRING], 0);
	cr_expect_eq(d.node[TD_BAD_SPECULATION], 1100 * 0x9b / 255);
}

Test(topdown, level2_derived_nodes_clamp_at_zero)
{
	/* heavy (byte 4 = 0x80) larger than retiring (0x10): light = 0. */
	struct td_sample a = sample(0, 0, 0), b = sample(255, UINT64_C(0x0000008000000010), 0);
	struct td_counts d;
	td_topdown_delta(&a, &b, 2, &d);
	cr_expect_eq(d.node[TD_RETIRING], 16);
	cr_expect_eq(d.node[TD_HEAVY_OPERATIONS], 128);
	cr_expect_eq(d.node[TD_LIGHT_OPERATIONS], 0);
}

Test(topdown, our_reset_between_samples_is_never_mixed)
{
	struct td_sample a = sample(5000, WORD_L1, 1), b = sample(6000, WORD_L1, 2);
	a.wall_ns = 100;
	b.wall_ns = 350;
	struct td_counts d;
	cr_expect_eq(td_topdown_delta(&a, &b, 1, &d), TD_TOPDOWN_EPOCH);
	cr_expect_eq(d.invalid, 1);
	cr_expect_eq(d.deltas, 0);
	cr_expect_eq(d.slots, 0);
	for (int i = 0; i < TD_NODE_COUNT; i++)
		cr_expect_eq(d.node[i], 0);
	cr_expect_eq(d.wall_ns, 250, "time still counts");
}

Test(topdown, slots_going_backwards_invalidates)
{
	struct td_sample a = sample(5000, WORD_L1, 1), b = sample(4000, WORD_L1, 1);
	struct td_counts d;
	cr_expect_eq(td_topdown_delta(&a, &b, 1, &d), TD_TOPDOWN_BACKWARDS);
	cr_expect_eq(d.invalid, 1);
	cr_expect_eq(d.slots, 0);
}

Test(topdown, unreadable_or_not_running_samples_invalidate)
{
	struct td_sample a = sample(0, 0, 0), b = sample(100, WORD_L1, 0);
	struct td_counts d;
	b.flags = TD_SAMPLE_OK | TD_SAMPLE_NOT_RUNNING;
	cr_expect_eq(td_topdown_delta(&a, &b, 1, &d), TD_TOPDOWN_UNREADABLE);
	b.flags = 0;
	cr_expect_eq(td_topdown_delta(&a, &b, 1, &d), TD_TOPDOWN_UNREADABLE);
	a.flags = TD_SAMPLE_NOT_RUNNING;
	b.flags = TD_SAMPLE_OK;
	cr_expect_eq(td_topdown_delta(&a, &b, 1, &d), TD_TOPDOWN_UNREADABLE);
}

Test(topdown, times_are_deltas_and_cpu_only_when_known)
{
	struct td_sample a = sample(0, 0, 0), b = sample(10, WORD_L1, 0);
	a.wall_ns = 1000, b.wall_ns = 1600;
	a.cpu_ns = 10, b.cpu_ns = 510;
	a.time_enabled = 100, b.time_enabled = 900;
	a.time_running = 100, b.time_running = 500;
	struct td_counts d;
	td_topdown_delta(&a, &b, 1, &d);
	cr_expect_eq(d.wall_ns, 600);
	cr_expect_eq(d.cpu_ns, 500);
	cr_expect_eq(d.time_enabled, 800);
	cr_expect_eq(d.time_running, 400, "not-running time = enabled - running = 400");
	b.flags |= TD_SAMPLE_NO_CPU;
	td_topdown_delta(&a, &b, 1, &d);
	cr_expect_eq(d.cpu_ns, 0);
}

Test(topdown, accumulate_folds_valid_and_counts_invalid)
{
	struct td_counts acc = { 0 };
	struct td_sample s0 = sample(0, 0, 0), s1 = sample(2550, WORD_L1, 0);
	struct td_sample s2 = sample(100, WORD_L1, 1), s3 = sample(2650, WORD_L1, 1);
	td_topdown_accumulate(&s0, &s1, 1, &acc);
	td_topdown_accumulate(&s1, &s2, 1, &acc); /* across our reset: dropped */
	td_topdown_accumulate(&s2, &s3, 1, &acc);
	/* s2->s3: 2650*102/255 - 100*102/255 = 1060 - 40 = 1020 */
	cr_expect_eq(acc.node[TD_RETIRING], 2040);
	cr_expect_eq(acc.slots, 5100);
	cr_expect_eq(acc.deltas, 2);
	cr_expect_eq(acc.invalid, 1);
	cr_expect_eq(acc.err_slots, 12 + 13, "err %lu", acc.err_slots); /* ceil(2750/255)+2 = 13 */
}

Test(topdown, fractions_normalised_by_level1_sum)
{
	struct td_counts c = { 0 };
	c.node[TD_RETIRING] = 675;
	c.node[TD_BAD_SPECULATION] = 588;
	c.node[TD_FRONTEND_BOUND] = 338;
	c.node[TD_BACKEND_BOUND] = 400;
	c.node[TD_MEMORY_BOUND] = 100;
	c.slots = 2000; /* the sum is 2001: normalise by the sum, not by slots */
	c.err_slots = 18;
	cr_expect_float_eq(td_topdown_fraction(&c, TD_RETIRING), 675.0 / 2001.0, 1e-12);
	cr_expect_float_eq(td_topdown_fraction(&c, TD_MEMORY_BOUND), 100.0 / 2001.0, 1e-12);
	double sum = 0;
	for (int i = 0; i < TD_L1_NODES; i++)
		sum += td_topdown_fraction(&c, i);
	cr_expect_float_eq(sum, 1.0, 1e-12);
	cr_expect_float_eq(td_topdown_error_pp(&c), 1800.0 / 2001.0, 1e-12);
	struct td_counts empty = { 0 };
	cr_expect(isnan(td_topdown_fraction(&empty, TD_RETIRING)));
	cr_expect(isnan(td_topdown_error_pp(&empty)));
}

Test(topdown, error_bound_formula)
{
	cr_expect_eq(td_topdown_err_slots(0, 0), 2);
	cr_expect_eq(td_topdown_err_slots(0, 255), 3);
	cr_expect_eq(td_topdown_err_slots(0, 256), 4);
	cr_expect_eq(td_topdown_err_slots(1000000, 1100000), 8238, "%lu",
		     td_topdown_err_slots(1000000, 1100000)); /* ceil(2100000/255)=8236 */
}

Test(topdown, reset_policy_outermost_threshold)
{
	struct td_topdown_policy p = { TD_RESET_OUTERMOST, 1000000, 0 };
	cr_expect_not(td_topdown_should_reset(&p, 999999, 0, true));
	cr_expect(td_topdown_should_reset(&p, 1000000, 0, true));
	cr_expect_not(td_topdown_should_reset(&p, 5000000, 0, false), "never inside a region");
}

Test(topdown, reset_policy_interval_and_never)
{
	struct td_topdown_policy p = { TD_RESET_INTERVAL, 1000, 1000000000u };
	cr_expect_not(td_topdown_should_reset(&p, UINT64_MAX, 999999999, true));
	cr_expect(td_topdown_should_reset(&p, 0, 1000000000u, true));
	cr_expect_not(td_topdown_should_reset(&p, 0, 5000000000u, false));
	p.policy = TD_RESET_NEVER;
	cr_expect_not(td_topdown_should_reset(&p, UINT64_MAX, UINT64_MAX, true));
}

Test(topdown, policy_from_config)
{
	struct td_config cfg;
	cr_assert_eq(td_config_init(&cfg), 0);
	struct td_topdown_policy p;
	td_topdown_policy_init(&p, &cfg);
	cr_expect_eq(p.policy, TD_RESET_OUTERMOST);
	cr_expect_eq(p.threshold_slots, 1000000);
	cr_expect_eq(p.interval_ns, 1000000000u);
	td_config_exit(&cfg);
}
