/* td_region against a fake deterministic backend: the test sets the clock
 * the fake snapshot reads, so every inclusive/exclusive figure is exact. */
#include "td_region.h"
#include "td_region_table.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

static uint64_t fake_now;      /* what the next snapshot reads */
static unsigned fake_snapshots; /* snapshots taken */
static uint64_t fake_reset_at;  /* fake_now at the last reset: slots count from there */
static unsigned fake_resets;

static void fake_snapshot(const struct td_backend *be, struct td_thread_counters *tc,
			  struct td_sample *out)
{
	memset(out, 0, sizeof(*out));
	out->wall_ns = fake_now;
	out->cpu_ns = fake_now;
	out->slots = 4 * (fake_now - fake_reset_at);
	out->epoch = fake_resets;
	out->flags = TD_SAMPLE_OK;
	fake_snapshots++;
}

static int fake_reset(const struct td_backend *be, struct td_thread_counters *tc)
{
	fake_reset_at = fake_now;
	fake_resets++;
	return 0;
}

static void fake_accumulate(const struct td_backend *be, const struct td_sample *a,
			    const struct td_sample *b, struct td_counts *acc)
{
	if (a->epoch != b->epoch) {
		acc->invalid++;
		return;
	}
	acc->wall_ns += b->wall_ns - a->wall_ns;
	acc->cpu_ns += b->cpu_ns - a->cpu_ns;
	acc->slots += b->slots - a->slots;
	acc->node[TD_RETIRING] += (b->slots - a->slots) / 4;
	acc->node[TD_BACKEND_BOUND] += 3 * (b->slots - a->slots) / 4;
	acc->deltas++;
}

static const struct td_backend_ops fake_ops = {
	.name = "fake",
	.snapshot = fake_snapshot,
	.accumulate = fake_accumulate,
};

static struct td_collector c;
static struct td_thread t;

static struct td_backend_ops fake_reset_ops;

static void setup_with(unsigned long max_depth, unsigned long max_callsites, unsigned long depth)
{
	memset(&c, 0, sizeof(c));
	memset(&t, 0, sizeof(t));
	cr_assert_eq(td_config_init(&c.cfg), 0);
	c.cfg.max_depth = max_depth;
	c.cfg.max_callsites = max_callsites;
	c.cfg.callsite_depth = depth;
	c.backend.ops = &fake_ops;
	t.regions = td_regions_new(&c.cfg);
	cr_assert_not_null(t.regions);
	fake_now = 0;
	fake_snapshots = 0;
	fake_reset_at = 0;
	fake_resets = 0;
	c.cfg.reset_policy = TD_RESET_NEVER;
}

static void setup(void) { setup_with(256, 4096, 1); }

static void teardown(void)
{
	td_regions_delete(t.regions);
	t.regions = NULL;
	td_config_exit(&c.cfg);
}

/* The entry of (region, call site ra), or of its [other] entry. */
static struct td_region_entry *find(int region, uintptr_t ra, bool other)
{
	struct td_regions *r = t.regions;
	uint32_t used = atomic_load(&r->used);
	for (uint32_t i = 0; i < used; i++) {
		struct td_region_entry *e = &r->entries[i];
		if (e->region != region || e->other != other)
			continue;
		if (other || e->nframes == 0)
			return e;
		if (td_region_entry_chain(r, e)[0] == ra)
			return e;
	}
	return NULL;
}

static void enter_at(uint64_t now, int region, uintptr_t ra)
{
	fake_now = now;
	cr_assert_eq(td_region_enter(&c, &t, region, ra), 0, "enter region %d", region);
}

static void exit_at(uint64_t now, int region)
{
	fake_now = now;
	td_region_exit(&c, &t, region);
}

static uint64_t excl_wall(const struct td_region_entry *e)
{
	struct td_counts x;
	td_counts_sub_clamped(&x, &e->incl, &e->child);
	return x.wall_ns;
}

TestSuite(region, .init = setup, .fini = teardown);

TestSuite(region_small, .fini = teardown);

Test(region, nesting_gives_inclusive_and_exclusive)
{
	enter_at(100, 0, 0x1000);
	enter_at(130, 1, 0x2000);
	cr_assert_eq(td_region_depth(&t), 2);
	exit_at(170, 1);
	exit_at(200, 0);
	cr_assert_eq(td_region_depth(&t), 0);

	struct td_region_entry *a = find(0, 0x1000, false), *b = find(1, 0x2000, false);
	cr_assert_not_null(a);
	cr_assert_not_null(b);
	cr_assert_eq(a->calls, 1);
	cr_assert_eq(b->calls, 1);
	cr_assert_eq(a->incl.wall_ns, 100, "A inclusive %lu", (unsigned long)a->incl.wall_ns);
	cr_assert_eq(a->incl.slots, 400);
	cr_assert_eq(a->incl.node[TD_RETIRING], 100);
	cr_assert_eq(a->incl.node[TD_BACKEND_BOUND], 300);
	cr_assert_eq(excl_wall(a), 60, "A exclusive %lu", (unsigned long)excl_wall(a));
	cr_assert_eq(b->incl.wall_ns, 40);
	cr_assert_eq(excl_wall(b), 40);
	cr_assert_eq(fake_snapshots, 4);
}

Test(region, calls_split_by_call_site_and_accumulate)
{
	enter_at(0, 0, 0x1000);
	exit_at(10, 0);
	enter_at(20, 0, 0x1000);
	exit_at(50, 0);
	enter_at(60, 0, 0x1008);
	exit_at(61, 0);

	struct td_region_entry *a = find(0, 0x1000, false), *b = find(0, 0x1008, false);
	cr_assert_eq(a->calls, 2);
	cr_assert_eq(a->incl.wall_ns, 40);
	cr_assert_eq(a->incl.deltas, 2);
	cr_assert_eq(b->calls, 1);
	cr_assert_eq(b->incl.wall_ns, 1);
	cr_assert_eq(atomic_load(&t.regions->used), 2);
}

Test(region, recursion_counts_calls_each_time_but_slots_once)
{
	enter_at(0, 0, 0x1000);  /* outermost, from outside */
	enter_at(10, 0, 0x1100); /* recursive calls from inside the function */
	enter_at(20, 0, 0x1100);
	exit_at(30, 0);
	exit_at(40, 0);
	exit_at(50, 0);

	struct td_region_entry *outer = find(0, 0x1000, false), *inner = find(0, 0x1100, false);
	cr_assert_eq(outer->calls, 1);
	cr_assert_eq(inner->calls, 2);
	cr_assert_eq(outer->incl.wall_ns, 50);
	cr_assert_eq(outer->incl.slots, 200, "slots counted once: %lu",
		     (unsigned long)outer->incl.slots);
	cr_assert_eq(inner->incl.wall_ns, 0);
	cr_assert_eq(inner->incl.deltas, 0);
	cr_assert_eq(excl_wall(outer), 50);
	/* Recursive activations take no snapshot at all. */
	cr_assert_eq(fake_snapshots, 2);
}

Test(region, region_inside_recursion_is_subtracted_from_outermost_activation)
{
	enter_at(0, 0, 0x1000);
	enter_at(10, 0, 0x1100);
	enter_at(20, 1, 0x2000);
	exit_at(30, 1);
	exit_at(40, 0);
	enter_at(42, 1, 0x2000);
	exit_at(45, 1);
	exit_at(50, 0);

	struct td_region_entry *a = find(0, 0x1000, false), *b = find(1, 0x2000, false);
	cr_assert_eq(b->calls, 2);
	cr_assert_eq(b->incl.wall_ns, 13);
	cr_assert_eq(a->incl.wall_ns, 50);
	cr_assert_eq(excl_wall(a), 37, "A exclusive %lu", (unsigned long)excl_wall(a));
}

Test(region, nested_recursion_through_another_region)
{
	/* A -> B -> A(recursive) -> C: C's time belongs to B's children (the
	 * nearest frame that counts), B's to A's. */
	enter_at(0, 0, 0x1000);
	enter_at(10, 1, 0x2000);
	enter_at(20, 0, 0x1100);
	enter_at(25, 2, 0x3000);
	exit_at(35, 2);
	exit_at(40, 0);
	exit_at(60, 1);
	exit_at(100, 0);

	struct td_region_entry *a = find(0, 0x1000, false), *b = find(1, 0x2000, false),
			       *cc = find(2, 0x3000, false);
	cr_assert_eq(a->incl.wall_ns, 100);
	cr_assert_eq(excl_wall(a), 50);
	cr_assert_eq(b->incl.wall_ns, 50);
	cr_assert_eq(excl_wall(b), 40);
	cr_assert_eq(cc->incl.wall_ns, 10);
	cr_assert_eq(excl_wall(cc), 10);
}

Test(region_small, table_overflow_folds_into_other)
{
	setup_with(256, 16, 1);
	for (uintptr_t ra = 1; ra <= 40; ra++) {
		enter_at(ra * 100, 0, 0x5000 + ra);
		exit_at(ra * 100 + 3, 0);
	}
	enter_at(10000, 1, 0x7000);
	exit_at(10005, 1);

	struct td_regions *r = t.regions;
	cr_assert_eq(atomic_load(&r->used_plain), 16);
	struct td_region_entry *o0 = find(0, 0, true), *o1 = find(1, 0, true);
	cr_assert_not_null(o0);
	cr_assert_not_null(o1);
	cr_assert_eq(o0->calls, 24);
	cr_assert_eq(o0->incl.wall_ns, 24 * 3);
	cr_assert_eq(o1->calls, 1);
	cr_assert_eq(o1->incl.wall_ns, 5);
	cr_assert_eq(atomic_load(&r->folded), 25);
	/* Call sites that got an entry keep getting it. */
	enter_at(20000, 0, 0x5001);
	exit_at(20001, 0);
	cr_assert_eq(find(0, 0x5001, false)->calls, 2);
	cr_assert_eq(atomic_load(&r->folded), 25);
}

Test(region_small, other_entries_run_out_into_catch_all)
{
	setup_with(256, 16, 1);
	struct td_regions *r = t.regions;
	uint32_t reserve = r->nr_entries - r->max_callsites;
	for (uintptr_t ra = 1; ra <= 16; ra++) {
		enter_at(0, 0, ra);
		exit_at(1, 0);
	}
	/* One more call site per region: each region needs an [other] entry. */
	for (int region = 1; region <= (int)reserve + 3; region++) {
		enter_at(0, region, 0x9000);
		exit_at(2, region);
	}
	cr_assert_eq(atomic_load(&r->used), r->nr_entries);
	cr_assert_eq(r->other_all.calls, 3);
	cr_assert_eq(r->other_all.incl.wall_ns, 6);
	cr_assert_eq(atomic_load(&r->folded), reserve + 3);
}

Test(region_small, depth_limit_refuses_and_close_all_closes)
{
	setup_with(8, 4096, 1);
	for (int i = 0; i < 8; i++)
		enter_at(10 * i, i, 0x100 + i);
	fake_now = 100;
	cr_assert_eq(td_region_enter(&c, &t, 9, 0x999), -1);
	cr_assert_eq(atomic_load(&t.regions->depth_refused), 1);
	cr_assert_eq(td_region_depth(&t), 8);

	fake_now = 200;
	td_regions_close_all(&c, &t);
	cr_assert_eq(td_region_depth(&t), 0);
	for (int i = 0; i < 8; i++) {
		struct td_region_entry *e = find(i, 0x100 + i, false);
		cr_assert_eq(e->incl.wall_ns, 200 - 10 * i);
		cr_assert_eq(excl_wall(e), i == 7 ? 130 : 10, "region %d exclusive %lu", i,
			     (unsigned long)excl_wall(e));
	}
	cr_assert_null(find(9, 0x999, false));
}

Test(region, exit_of_outer_region_closes_the_ones_left_open)
{
	enter_at(0, 0, 0x1000);
	enter_at(10, 1, 0x2000);
	exit_at(30, 0); /* 1 was never ended */
	cr_assert_eq(td_region_depth(&t), 0);
	cr_assert_eq(find(1, 0x2000, false)->incl.wall_ns, 20);
	cr_assert_eq(find(0, 0x1000, false)->incl.wall_ns, 30);
	cr_assert_eq(excl_wall(find(0, 0x1000, false)), 10);

	unsigned snaps = fake_snapshots;
	exit_at(40, 5); /* not open */
	cr_assert_eq(atomic_load(&t.regions->unmatched_exits), 1);
	cr_assert_eq(fake_snapshots, snaps);
}

Test(region_small, marker_end_of_refused_begin_is_consumed)
{
	setup_with(8, 4096, 1);
	for (int i = 0; i < 8; i++) {
		fake_now = i;
		cr_assert_eq(td_region_marker_enter(&c, &t, 0, 0x100), 0);
	}
	fake_now = 8;
	cr_assert_eq(td_region_marker_enter(&c, &t, 0, 0x100), -E2BIG);
	fake_now = 50;
	td_region_marker_exit(&c, &t, 0); /* the refused one */
	cr_assert_eq(td_region_depth(&t), 8);
	for (int i = 0; i < 8; i++)
		td_region_marker_exit(&c, &t, 0);
	cr_assert_eq(td_region_depth(&t), 0);
	struct td_region_entry *e = find(0, 0x100, false);
	cr_assert_eq(e->calls, 8);
	cr_assert_eq(e->incl.wall_ns, 50);
	cr_assert_eq(atomic_load(&t.regions->unmatched_exits), 0);
}

Test(region_small, callsite_depth_zero_keeps_one_entry_per_region)
{
	setup_with(256, 4096, 0);
	enter_at(0, 3, 0x1000);
	exit_at(5, 3);
	enter_at(10, 3, 0x2000);
	exit_at(12, 3);
	struct td_region_entry *e = find(3, 0, false);
	cr_assert_eq(e->nframes, 0);
	cr_assert_eq(e->calls, 2);
	cr_assert_eq(e->incl.wall_ns, 7);
	cr_assert_eq(atomic_load(&t.regions->used), 1);
}

Test(region, bad_region_ids_are_refused)
{
	cr_assert_eq(td_region_enter(&c, &t, -1, 0x1), -1);
	cr_assert_eq(td_region_enter(&c, &t, TD_MAX_REGIONS, 0x1), -1);
	struct td_thread bare = { 0 };
	cr_assert_eq(td_region_enter(&c, &bare, 0, 0x1), -1);
	td_region_exit(&c, &bare, 0);
	cr_assert_eq(td_region_depth(&bare), 0);
}

/* A reader on another thread copies entries while the owner updates them:
 * every stable copy must be internally consistent. The fake backend is
 * driven by the owner's own counter here (per-call delta 10). */
static _Atomic int stop_reader;
static _Atomic uint64_t stable_reads, bad_reads;

static void *reader(void *arg)
{
	struct td_regions *r = arg;
	while (!atomic_load(&stop_reader)) {
		uint32_t used = atomic_load_explicit(&r->used, memory_order_acquire);
		for (uint32_t i = 0; i < used; i++) {
			struct td_region_entry e;
			if (!td_region_entry_read(&r->entries[i], &e))
				continue;
			atomic_fetch_add(&stable_reads, 1);
			const uintptr_t *chain = td_region_entry_chain(r, &r->entries[i]);
			bool ok = e.incl.slots == 4 * e.incl.wall_ns &&
				  e.incl.cpu_ns == e.incl.wall_ns &&
				  e.incl.wall_ns == 10 * (uint64_t)e.incl.deltas &&
				  (e.calls == e.incl.deltas || e.calls == e.incl.deltas + 1u) &&
				  e.nframes == 1 && chain[0] == 0x4000 + (uintptr_t)e.region;
			if (!ok)
				atomic_fetch_add(&bad_reads, 1);
		}
	}
	return NULL;
}

Test(region, concurrent_reader_sees_consistent_entries)
{
	pthread_t th;
	pthread_create(&th, NULL, reader, t.regions);
	for (int i = 0; i < 200000; i++) {
		int region = i % 7;
		enter_at(1000 * (uint64_t)i, region, 0x4000 + region);
		exit_at(1000 * (uint64_t)i + 10, region);
	}
	atomic_store(&stop_reader, 1);
	pthread_join(th, NULL);
	cr_log_info("stable reads %lu", (unsigned long)atomic_load(&stable_reads));
	cr_assert_eq(atomic_load(&bad_reads), 0, "%lu inconsistent reads",
		     (unsigned long)atomic_load(&bad_reads));
	cr_assert_gt(atomic_load(&stable_reads), 0);
	cr_assert_eq(find(3, 0x4003, false)->calls, 200000 / 7 + (200000 % 7 > 3));
}

/* [topdown] reset = outermost: a new epoch at an outermost entry once the
 * slots since the last reset pass the threshold, never inside a region;
 * regions stay exact across epochs. */
static void setup_reset(enum td_reset_policy policy)
{
	setup_with(256, 4096, 1);
	fake_reset_ops = fake_ops;
	fake_reset_ops.reset = fake_reset;
	c.backend.ops = &fake_reset_ops;
	c.cfg.reset_policy = policy;
	c.cfg.reset_threshold = 1000; /* slots: 250 ns of fake time */
	td_regions_delete(t.regions);
	t.regions = td_regions_new(&c.cfg);
	td_thread_snapshot(&c, &t, &t.seg_start);
}

Test(region_small, outermost_reset_policy_resets_only_at_outermost_entries)
{
	setup_reset(TD_RESET_OUTERMOST);
	enter_at(100, 0, 0x1000); /* 400 slots since reset: no */
	enter_at(400, 1, 0x2000); /* nested, 1600 slots: never inside a region */
	exit_at(450, 1);
	exit_at(500, 0);
	cr_assert_eq(fake_resets, 0);
	enter_at(600, 0, 0x1000); /* outermost, 2400 slots: reset */
	cr_assert_eq(fake_resets, 1);
	exit_at(650, 0);
	enter_at(700, 0, 0x1000); /* 200 slots since the reset: no */
	exit_at(720, 0);
	cr_assert_eq(fake_resets, 1);
	cr_assert_eq(atomic_load(&t.regions->resets), 1);

	struct td_region_entry *a = find(0, 0x1000, false), *b = find(1, 0x2000, false);
	cr_assert_eq(a->calls, 3);
	cr_assert_eq(a->incl.invalid, 0, "a region straddled a reset");
	cr_assert_eq(a->incl.wall_ns, 400 + 50 + 20);
	cr_assert_eq(a->incl.slots, 4 * (400 + 50 + 20));
	cr_assert_eq(excl_wall(a), 400 + 50 + 20 - 50);
	cr_assert_eq(b->incl.slots, 200);
	/* The thread's own figures were folded before the reset. */
	cr_assert_eq(t.total.wall_ns, 600);
}

Test(region_small, never_reset_policy_never_resets)
{
	setup_reset(TD_RESET_NEVER);
	for (int i = 0; i < 10; i++) {
		enter_at(1000 * (uint64_t)i, 0, 0x1000);
		exit_at(1000 * (uint64_t)i + 500, 0);
	}
	cr_assert_eq(fake_resets, 0);
	cr_assert_eq(find(0, 0x1000, false)->incl.slots, 10 * 2000);
}

Test(region, none_backend_counts_calls_and_call_sites_only)
{
	c.backend.ops = &td_backend_none_ops;
	enter_at(0, 0, 0x1000);
	enter_at(10, 1, 0x2000);
	exit_at(20, 1);
	exit_at(30, 0);
	enter_at(40, 0, 0x1008);
	exit_at(50, 0);
	cr_assert_eq(find(0, 0x1000, false)->calls, 1);
	cr_assert_eq(find(0, 0x1008, false)->calls, 1);
	cr_assert_eq(find(1, 0x2000, false)->calls, 1);
	cr_assert_eq(find(0, 0x1000, false)->incl.deltas, 0);
	cr_assert_eq(td_region_depth(&t), 0);
	cr_assert_eq(fake_snapshots, 0);
}
