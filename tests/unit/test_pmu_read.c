/* td_pmu_read: the seqlock reader against a scripted page and instruction,
 * and the x86_64 rseq guard. */
#include "td_pmu_read.h"
#include "td_rdpmc_guard.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <string.h>

struct fake {
	struct perf_event_mmap_page leader, metric;
	uint64_t slots, metrics, other;
	uint32_t calls;
	uint32_t idx_seen[64];
	int bump_on_call;      /* bump leader lock on this call (1-based), 0 never */
	bool bump_always;
	bool refuse;           /* read_checked says -EFAULT */
};

static uint64_t fake_read(void *ctx, uint32_t idx)
{
	struct fake *f = ctx;
	f->idx_seen[f->calls % 64] = idx;
	f->calls++;
	if (f->bump_always || (f->bump_on_call && f->calls == (uint32_t)f->bump_on_call))
		f->leader.lock += 2;
	if (idx == TD_PMU_SLOTS_INDEX)
		return f->slots;
	if (idx == TD_PMU_METRICS_INDEX)
		return f->metrics;
	return f->other;
}

static int fake_checked(void *ctx, uint32_t idx, uint64_t *val)
{
	struct fake *f = ctx;
	if (f->refuse) {
		f->calls++;
		return -EFAULT;
	}
	*val = fake_read(ctx, idx);
	return 0;
}

static void fake_init(struct fake *f)
{
	memset(f, 0, sizeof(*f));
	f->leader.cap_user_rdpmc = 1;
	f->leader.pmc_width = 48;
	f->leader.index = TD_PMU_SLOTS_INDEX;
	f->leader.lock = 10;
	f->metric.cap_user_rdpmc = 1;
	f->metric.pmc_width = 48;
	f->metric.index = TD_PMU_METRICS_INDEX;
	f->metric.lock = 20;
}

Test(pmu_read, ordinary_counter_is_offset_plus_sign_extended_raw)
{
	struct fake f;
	fake_init(&f);
	struct td_pmu_reader r = { .read_counter = fake_read, .ctx = &f };
	f.leader.index = 3;
	f.leader.offset = 1000;
	f.other = UINT64_C(0xffffffffff00); /* -256 in 48 bits */
	f.leader.time_enabled = 77;
	f.leader.time_running = 55;
	struct td_pmu_value v;
	cr_assert_eq(td_pmu_read_counter(&r, &f.leader, &v), 0);
	cr_expect_eq(v.value, 744, "value %lu", v.value);
	cr_expect_eq(v.index, 3);
	cr_expect_eq(v.enabled, 77);
	cr_expect_eq(v.running, 55);
	cr_expect_eq(f.idx_seen[0], 3, "the instruction gets the page index");
	f.other = 500;
	cr_assert_eq(td_pmu_read_counter(&r, &f.leader, &v), 0);
	cr_expect_eq(v.value, 1500);
}

Test(pmu_read, index_zero_means_not_readable_and_no_instruction)
{
	struct fake f;
	fake_init(&f);
	struct td_pmu_reader r = { .read_counter = fake_read, .ctx = &f };
	f.leader.index = 0;
	struct td_pmu_value v;
	cr_expect_eq(td_pmu_read_counter(&r, &f.leader, &v), -EAGAIN);
	cr_expect_eq(td_pmu_read_topdown(&r, &f.leader, &f.metric, &v), -EAGAIN);
	cr_expect_eq(f.calls, 0, "RDPMC must not run when index is 0");
	cr_expect_eq(v.index, 0);
}

Test(pmu_read, no_cap_user_rdpmc_means_not_readable)
{
	struct fake f;
	fake_init(&f);
	struct td_pmu_reader r = { .read_counter = fake_read, .ctx = &f };
	f.metric.cap_user_rdpmc = 0;
	struct td_pmu_value v;
	cr_expect_eq(td_pmu_read_topdown(&r, &f.leader, &f.metric, &v), -EAGAIN);
	f.metric.cap_user_rdpmc = 1;
	f.leader.cap_user_rdpmc = 0;
	cr_expect_eq(td_pmu_read_counter(&r, &f.leader, &v), -EAGAIN);
	cr_expect_eq(f.calls, 0);
}

Test(pmu_read, topdown_uses_raw_slots_and_full_metrics)
{
	struct fake f;
	fake_init(&f);
	struct td_pmu_reader r = { .read_counter = fake_read, .ctx = &f };
	f.leader.offset = 123456; /* the count: adding it would double-count */
	f.metric.offset = 999;
	f.slots = UINT64_C(0xabcd000012345678); /* bits above pmc_width are not SLOTS */
	f.metrics = UINT64_C(0xfedcba9876543210);
	struct td_pmu_value v;
	cr_assert_eq(td_pmu_read_topdown(&r, &f.leader, &f.metric, &v), 0);
	cr_expect_eq(v.value, UINT64_C(0x000000012345678), "slots %#lx", v.value);
	cr_expect_eq(v.metrics, UINT64_C(0xfedcba9876543210), "metrics %#lx", v.metrics);
	cr_expect_eq(f.calls, 2);
	cr_expect_eq(f.idx_seen[0], TD_PMU_SLOTS_INDEX);
	cr_expect_eq(f.idx_seen[1], TD_PMU_METRICS_INDEX);
	cr_expect_eq(v.lock, 10);
}

Test(pmu_read, seqlock_change_mid_read_retries)
{
	struct fake f;
	fake_init(&f);
	struct td_pmu_reader r = { .read_counter = fake_read, .ctx = &f };
	f.slots = 4000;
	f.metrics = 0x4c331a66;
	f.bump_on_call = 2; /* the page changes while PERF_METRICS is read */
	struct td_pmu_value v;
	cr_assert_eq(td_pmu_read_topdown(&r, &f.leader, &f.metric, &v), 0);
	cr_expect_eq(f.calls, 4, "one retry: %u instructions", f.calls);
	cr_expect_eq(v.lock, 12, "value taken under the new lock");
	cr_expect_eq(v.value, 4000);

	fake_init(&f);
	f.leader.index = 1;
	f.bump_on_call = 1;
	cr_assert_eq(td_pmu_read_counter(&r, &f.leader, &v), 0);
	cr_expect_eq(f.calls, 2);
}

Test(pmu_read, metric_page_change_also_retries)
{
	struct fake f;
	fake_init(&f);
	struct td_pmu_reader r = { .read_counter = fake_read, .ctx = &f };
	struct td_pmu_value v;
	/* A reader thread cannot change the page mid-read by itself, so use
	 * bump_always on the leader for a bounded loop instead. */
	f.bump_always = true;
	cr_expect_eq(td_pmu_read_topdown(&r, &f.leader, &f.metric, &v), -EBUSY);
	cr_expect_eq(f.calls, 2 * TD_PMU_READ_RETRIES, "bounded: %u", f.calls);
	f.calls = 0;
	f.leader.index = 2;
	cr_expect_eq(td_pmu_read_counter(&r, &f.leader, &v), -EBUSY);
	cr_expect_eq(f.calls, TD_PMU_READ_RETRIES);
}

Test(pmu_read, guard_refusal_is_not_running_not_a_fault)
{
	struct fake f;
	fake_init(&f);
	struct td_pmu_reader r = { .read_counter = fake_read, .ctx = &f, .read_checked = fake_checked };
	f.refuse = true;
	struct td_pmu_value v;
	cr_expect_eq(td_pmu_read_topdown(&r, &f.leader, &f.metric, &v), -EAGAIN);
	cr_expect_eq(f.calls, 1, "SLOTS refused: PERF_METRICS not attempted");
	cr_expect_eq(v.value, 0);
	cr_expect_eq(v.metrics, 0);
	f.refuse = false;
	f.slots = 7;
	cr_expect_eq(td_pmu_read_topdown(&r, &f.leader, &f.metric, &v), 0);
	cr_expect_eq(v.value, 7);
}

Test(pmu_read, pmc_width_zero_or_64_does_not_shift)
{
	struct fake f;
	fake_init(&f);
	struct td_pmu_reader r = { .read_counter = fake_read, .ctx = &f };
	f.leader.index = 5;
	f.other = UINT64_C(0xffff000000000001);
	f.leader.pmc_width = 64;
	struct td_pmu_value v;
	td_pmu_read_counter(&r, &f.leader, &v);
	cr_expect_eq(v.value, UINT64_C(0xffff000000000001));
	f.leader.pmc_width = 32;
	f.other = UINT64_C(0x80000000);
	td_pmu_read_counter(&r, &f.leader, &v);
	cr_expect_eq(v.value, UINT64_C(0xffffffff80000000));
}

static uint64_t fake_time(void *ctx) { return ((struct fake *)ctx)->other; }

Test(pmu_read, times_extrapolated_with_time_mult_shift_offset)
{
	struct fake f;
	fake_init(&f);
	struct td_pmu_reader r = { .read_counter = fake_read, .ctx = &f, .read_time = fake_time };
	f.leader.cap_user_time = 1;
	f.leader.time_offset = (uint64_t)0 - 1000;
	f.leader.time_mult = 1536; /* 1.5 ns per tick */
	f.leader.time_shift = 10;
	f.leader.time_enabled = 100;
	f.leader.time_running = 50;
	f.leader.index = 2;
	f.other = 4096 + 7; /* also the time base here: quot 4, rem 7 */
	struct td_pmu_value v;
	cr_assert_eq(td_pmu_read_counter(&r, &f.leader, &v), 0);
	/* 4 * 1536 + (7 * 1536 >> 10) - 1000 = 6144 + 10 - 1000 = 5154 */
	cr_expect_eq(v.enabled, 100 + 5154, "%lu", v.enabled);
	cr_expect_eq(v.running, 50 + 5154, "%lu", v.running);
	cr_expect_eq(v.flags, TD_PMU_TIME_NOW);
	f.leader.index = 0; /* not running: running does not advance */
	cr_expect_eq(td_pmu_read_counter(&r, &f.leader, &v), -EAGAIN);
	cr_expect_eq(v.enabled, 100 + 5154);
	cr_expect_eq(v.running, 50);
	f.leader.cap_user_time = 0;
	f.leader.index = 2;
	td_pmu_read_counter(&r, &f.leader, &v);
	cr_expect_eq(v.enabled, 100, "no cap_user_time: page values as they are");
	cr_expect_eq(v.flags, 0);
}

Test(pmu_read, short_time_base_is_widened)
{
	struct fake f;
	fake_init(&f);
	struct td_pmu_reader r = { .read_counter = fake_read, .ctx = &f, .read_time = fake_time };
	f.leader.cap_user_time = 1;
	f.leader.cap_user_time_short = 1;
	f.leader.time_cycles = 0x1000;
	f.leader.time_mask = 0xffff;
	f.leader.time_mult = 1;
	f.leader.time_shift = 0;
	f.leader.time_offset = 0;
	f.slots = 0x12345; /* SLOTS read, then the time base: fake_time returns other */
	f.other = 0x12345;
	struct td_pmu_value v;
	cr_assert_eq(td_pmu_read_topdown(&r, &f.leader, &f.metric, &v), 0);
	cr_expect_eq(v.enabled, 0x2345, "%#lx", v.enabled); /* 0x1000 + (0x11345 & 0xffff) */
	cr_expect_eq(v.running, 0x2345);
}

#if defined(__x86_64__)
Test(rdpmc_guard, cpu_list_parsing)
{
	struct td_rdpmc_guard g;
	cr_assert_eq(td_rdpmc_guard_init(&g, "0-3,8,62-65\n"), 0);
	cr_expect_eq(g.mask[0], UINT64_C(0xc00000000000010f), "%#lx", g.mask[0]);
	cr_expect_eq(g.mask[1], 3);
	cr_expect_eq(td_rdpmc_guard_init(&g, ""), 0);
	cr_expect_eq(g.mask[0], 0);
	cr_expect_eq(td_rdpmc_guard_init(&g, "3-1"), -EINVAL);
	cr_expect_eq(td_rdpmc_guard_init(&g, "a"), -EINVAL);
	cr_expect_eq(td_rdpmc_guard_init(&g, "1,,"), -EINVAL);
	cr_expect_eq(td_rdpmc_guard_init(&g, "5000"), -EINVAL);
}

Test(rdpmc_guard, rseq_cpu_matches_the_kernel)
{
	if (!td_rdpmc_guard_available())
		cr_skip_test("glibc did not register rseq here");
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	cr_assert_eq(sched_setaffinity(0, sizeof(set), &set), 0);
	cr_expect_eq(td_rdpmc_guard_cpu(), 0);
	cr_expect_eq(sched_getcpu(), 0);
}

/* The E-core case: the thread's CPU is not in the P-core mask, so the
 * guard must refuse without executing RDPMC (which would SIGSEGV here:
 * this machine has no PMU). */
Test(rdpmc_guard, refuses_on_a_cpu_outside_the_mask)
{
	if (!td_rdpmc_guard_available())
		cr_skip_test("glibc did not register rseq here");
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	cr_assert_eq(sched_setaffinity(0, sizeof(set), &set), 0);
	struct td_rdpmc_guard g;
	cr_assert_eq(td_rdpmc_guard_init(&g, "1-1023"), 0); /* CPU 0 is an "E-core" */
	uint64_t val = 42;
	for (int i = 0; i < 1000; i++)
		cr_assert_eq(td_rdpmc_read_guarded(&g, TD_PMU_SLOTS_INDEX, &val), -EFAULT);
	cr_expect_eq(val, 42);
	struct td_rdpmc_guard none;
	td_rdpmc_guard_init(&none, "");
	cr_expect_eq(td_rdpmc_read_guarded(&none, TD_PMU_METRICS_INDEX, &val), -EFAULT);
}

/* Inside the mask the guard does execute RDPMC: on this PMU-less VM that
 * is the #GP the guard exists to avoid on E-cores, proving the CPU check is
 * what stands between the thread and the fault. Runs in a child. */
Test(rdpmc_guard, executes_rdpmc_on_a_cpu_inside_the_mask)
{
	if (!td_rdpmc_guard_available())
		cr_skip_test("glibc did not register rseq here");
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		signal(SIGSEGV, SIG_DFL); /* not a sanitizer's report: the plain fault */
		struct td_rdpmc_guard g;
		td_rdpmc_guard_init(&g, "0-1023");
		uint64_t val;
		_exit(td_rdpmc_read_guarded(&g, TD_PMU_SLOTS_INDEX, &val) == 0 ? 0 : 3);
	}
	int st;
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		cr_skip_test("RDPMC is allowed for this process here (CR4.PCE set)");
	cr_expect(WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV, "status %#x", st);
}
#endif
