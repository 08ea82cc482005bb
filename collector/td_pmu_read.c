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

/* 0, -EFAULT (refused here) or -EAGAIN (guard gave up). */
static int td_pmu_exec(const struct td_pmu_reader *r, uint32_t idx, uint64_t *val)
{
	if (r->read_checked)
		return r->read_checked(r->ctx, idx, val);
	*val = r->read_counter(r->ctx, idx);
	return 0;
}

int td_pmu_read_counter(const struct td_pmu_reader *r,
			const volatile struct perf_event_mmap_page *pg, struct td_pmu_value *out)
{
	for (int tries = 0; tries < TD_PMU_READ_RETRIES; tries++) {
		uint32_t seq = pg->lock;
		td_pmu_barrier();
		uint64_t enabled = pg->time_enabled;
		uint64_t running = pg->time_running;
		uint32_t idx = pg->index;
		int64_t offset = pg->offset;
		unsigned width = pg->pmc_width;
		bool cap = pg->cap_user_rdpmc;
		uint64_t raw = 0;
		int rc = -EAGAIN;
		if (cap && idx)
			rc = td_pmu_exec(r, idx, &raw);
		td_pmu_barrier();
		if (pg->lock != seq || (rc == -EAGAIN && cap && idx))
			continue;
		out->lock = seq;
		out->index = idx;
		out->enabled = enabled;
		out->running = running;
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
		uint32_t idx = leader->index;
		uint32_t midx = metric->index;
		unsigned width = leader->pmc_width;
		bool cap = leader->cap_user_rdpmc && metric->cap_user_rdpmc;
		uint64_t slots = 0, metrics = 0;
		int rc = -EAGAIN;
		/* SLOTS first, then PERF_METRICS: the fractions then describe at
		 * least the slots read (the order perf's metrics-clear mode uses). */
		if (cap && idx && midx) {
			rc = td_pmu_exec(r, idx, &slots);
			if (!rc)
				rc = td_pmu_exec(r, midx, &metrics);
		}
		td_pmu_barrier();
		if (leader->lock != seq || metric->lock != mseq)
			continue;
		if (rc == -EAGAIN && cap && idx && midx)
			continue;
		out->lock = seq;
		out->index = idx;
		out->enabled = enabled;
		out->running = running;
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
