/* td_pmu_read: the seqlock reader of perf_event_mmap_page, shared by the
 * rdpmc, emulate and perf backends (see td_pmu_read.h). */
#include "td_pmu_read.h"

#include <errno.h>
#include <stdbool.h>

/* The page is written by the kernel on this CPU (preemption, sched in/out),
 * so a compiler barrier is enough to keep the loads inside the section,
 * as libperf does. */
#define td_pmu_barrier() __asm__ __volatile__("" ::: "memory")

static uint64_t td_pmu_sext(uint64_t raw, unsigned width)
{
	if (width == 0 || width >= 64)
		return raw;
	unsigned shift = 64 - width;
	return (uint64_t)((int64_t)(raw << shift) >> shift);
}

static uint64_t td_pmu_mask(uint64_t raw, unsigned width)
{
	if (width == 0 || width >= 64)
		return raw;
	return raw & ((UINT64_C(1) << width) - 1);
}

/* Page time fields, copied inside the seqlock section. */
struct td_pmu_time {
	bool cap, cap_short;
	uint16_t shift;
	uint32_t mult;
	uint64_t offset, cycles, mask;
};

static void td_pmu_time_load(const volatile struct perf_event_mmap_page *pg, struct td_pmu_time *t)
{
	t->cap = pg->cap_user_time;
	t->cap_short = pg->cap_user_time_short;
	t->shift = pg->time_shift;
	t->mult = pg->time_mult;
	t->offset = pg->time_offset;
	t->cycles = pg->time_cycles;
	t->mask = pg->time_mask;
}

/* ns since the page was last updated, from a time-base reading (the
 * quotient/remainder split keeps cyc * mult from overflowing). */
static uint64_t td_pmu_time_delta(const struct td_pmu_time *t, uint64_t cyc)
{
	if (t->cap_short)
		cyc = t->cycles + ((cyc - t->cycles) & t->mask);
	uint64_t quot = t->shift < 64 ? cyc >> t->shift : 0;
	uint64_t rem = t->shift < 64 ? cyc & ((UINT64_C(1) << t->shift) - 1) : cyc;
	return t->offset + quot * t->mult + ((rem * t->mult) >> t->shift);
}

/* 0, -EFAULT (refused here) or -EAGAIN (guard gave up). */
static int td_pmu_exec(const struct td_pmu_reader *r, uint32_t idx, uint64_t *val)
{
	if (r->read_checked)
		return r->read_checked(r->ctx, idx, val);
	*val = r->read_counter(r->ctx, idx);
	return 0;
}

/* The parts of a result every read shares: the lock and index it was taken
 * under, and enabled/running, extrapolated to now when the page's time base
 * was read (`timed`). */
static void td_pmu_fill_times(struct td_pmu_value *out, uint32_t seq, uint32_t idx,
			      uint64_t enabled, uint64_t running, const struct td_pmu_time *tm,
			      bool timed, uint64_t cyc)
{
	out->lock = seq;
	out->index = idx;
	out->flags = 0;
	if (timed) {
		uint64_t d = td_pmu_time_delta(tm, cyc);
		enabled += d;
		running += idx ? d : 0;
		out->flags = TD_PMU_TIME_NOW;
	}
	out->enabled = enabled;
	out->running = running;
}

int td_pmu_read_counter(const struct td_pmu_reader *r,
			const volatile struct perf_event_mmap_page *pg, struct td_pmu_value *out)
{
	for (int tries = 0; tries < TD_PMU_READ_RETRIES; tries++) {
		uint32_t seq = pg->lock;
		td_pmu_barrier();
		uint64_t enabled = pg->time_enabled;
		uint64_t running = pg->time_running;
		struct td_pmu_time tm;
		td_pmu_time_load(pg, &tm);
		uint32_t idx = pg->index;
		int64_t offset = pg->offset;
		unsigned width = pg->pmc_width;
		bool cap = pg->cap_user_rdpmc;
		uint64_t raw = 0;
		int rc = -EAGAIN;
		if (cap && idx)
			rc = td_pmu_exec(r, idx, &raw);
		uint64_t cyc = tm.cap && r->read_time ? r->read_time(r->ctx) : 0;
		td_pmu_barrier();
		if (pg->lock != seq || (rc == -EAGAIN && cap && idx))
			continue;
		td_pmu_fill_times(out, seq, idx, enabled, running, &tm, tm.cap && r->read_time, cyc);
		out->metrics = 0;
		if (rc) {
			out->value = 0;
			return -EAGAIN;
		}
		out->value = (uint64_t)offset + td_pmu_sext(raw, width);
		return 0;
	}
	return -EBUSY;
}

int td_pmu_read_topdown(const struct td_pmu_reader *r,
			const volatile struct perf_event_mmap_page *leader,
			const volatile struct perf_event_mmap_page *metric, struct td_pmu_value *out)
{
	for (int tries = 0; tries < TD_PMU_READ_RETRIES; tries++) {
		uint32_t seq = leader->lock;
		uint32_t mseq = metric->lock;
		td_pmu_barrier();
		uint64_t enabled = leader->time_enabled;
		uint64_t running = leader->time_running;
		struct td_pmu_time tm;
		td_pmu_time_load(leader, &tm);
		uint32_t idx = leader->index;
		uint32_t midx = metric->index;
		unsigned width = leader->pmc_width;
		bool cap = leader->cap_user_rdpmc && metric->cap_user_rdpmc;
		uint64_t slots = 0, metrics = 0, cyc = 0;
		bool timed = tm.cap && r->read_time;
		int rc = -EAGAIN;
		/* SLOTS first, then PERF_METRICS: the fractions then describe at
		 * least the slots read (the order perf's metrics-clear mode uses).
		 * The time base right after SLOTS dates the SLOTS value. */
		if (cap && idx && midx) {
			rc = td_pmu_exec(r, idx, &slots);
			if (timed)
				cyc = r->read_time(r->ctx);
			if (!rc)
				rc = td_pmu_exec(r, midx, &metrics);
		} else if (timed) {
			cyc = r->read_time(r->ctx);
		}
		td_pmu_barrier();
		if (leader->lock != seq || metric->lock != mseq)
			continue;
		if (rc == -EAGAIN && cap && idx && midx)
			continue;
		td_pmu_fill_times(out, seq, idx, enabled, running, &tm, timed, cyc);
		if (rc) {
			out->value = 0;
			out->metrics = 0;
			return -EAGAIN;
		}
		/* Raw SLOTS only: offset double-counts for TopDown (pmu-facts
		 * §1.5). PERF_METRICS is all 64 bits, never masked. */
		out->value = td_pmu_mask(slots, width);
		out->metrics = metrics;
		return 0;
	}
	return -EBUSY;
}
