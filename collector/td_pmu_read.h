/* td_pmu_read: self-monitoring reads of a perf_event_mmap_page, as the
 * uapi header describes: seqlock on `lock`, `index` and `cap_user_rdpmc`
 * checked, the counter-read instruction executed inside the section.
 *
 * The instruction itself is a function pointer so the same code runs
 * against real hardware (RDPMC on x86_64, mrs on aarch64:
 * collector/arch/<arch>/) and against the emulated PMU (td_emu).
 * Threading: only the thread that owns the event may read it this way. */
#ifndef TD_PMU_READ_H
#define TD_PMU_READ_H

#include <linux/perf_event.h>
#include <stdint.h>

struct td_pmu_reader {
	/* Executes the counter read for page index idx (1-based, as the page
	 * reports it): RDPMC(idx - 1) on x86_64. */
	uint64_t (*read_counter)(void *ctx, uint32_t idx);
	void *ctx;
	/* Optional guarded form, used instead of read_counter when set: 0 and
	 * *val, or -EFAULT when the instruction must not run on this CPU now
	 * (hybrid: TopDown counters on an E-core), or -EAGAIN when the guard
	 * gave up (the read is retried, then reported as -EAGAIN). */
	int (*read_checked)(void *ctx, uint32_t idx, uint64_t *val);
	/* Optional: the page's time base (TSC on x86_64). When set and the
	 * page has cap_user_time, enabled/running are extrapolated to now
	 * with time_offset/time_mult/time_shift, as the uapi header says. */
	uint64_t (*read_time)(void *ctx);
};

/* Seqlock retries before a read gives up with -EBUSY. A retry only
 * happens when the kernel updated the page during the read (context
 * switch), so a handful is plenty; the bound keeps the hot path finite. */
#define TD_PMU_READ_RETRIES 16

/* Page indexes the kernel reports for TopDown events (pmu-facts §0.2). */
#define TD_PMU_SLOTS_INDEX 0x40000004u   /* RDPMC ecx 1<<30 | 3: fixed counter 3 */
#define TD_PMU_METRICS_INDEX 0x20000001u /* RDPMC ecx 1<<29: all of PERF_METRICS */

struct td_pmu_value {
	uint64_t value;     /* counter value (ordinary) or raw SLOTS (TopDown) */
	uint64_t metrics;   /* raw PERF_METRICS word (TopDown reads only) */
	uint64_t enabled;   /* time_enabled/time_running as of the page */
	uint64_t running;
	uint32_t lock;      /* seqlock value the read was taken under */
	uint32_t index;     /* page index seen */
	uint32_t flags;     /* TD_PMU_TIME_NOW: enabled/running extrapolated to the read */
};

#define TD_PMU_TIME_NOW 1u

/* The real instruction for this architecture (collector/arch/<arch>/). */
uint64_t td_arch_read_counter(void *ctx, uint32_t idx);
/* Time base of the page (x86_64: RDTSC). */
uint64_t td_arch_read_time(void *ctx);
extern const struct td_pmu_reader td_pmu_reader_hw;

/* Ordinary counter: value = offset + sign_extend(raw, pmc_width).
 * Returns 0, or -EAGAIN when the page says the counter cannot be read from
 * user space now (index 0 or !cap_user_rdpmc, or the guard refused the
 * CPU): fall back to read(2); -EBUSY when the page kept changing for
 * TD_PMU_READ_RETRIES attempts. out->index/lock/enabled/running are filled
 * in every case. */
int td_pmu_read_counter(const struct td_pmu_reader *r,
			const volatile struct perf_event_mmap_page *pg, struct td_pmu_value *out);

/* Intel TopDown: raw SLOTS from the leader's page (masked to pmc_width,
 * never added to offset) and the full 64-bit PERF_METRICS (RDPMC
 * 1<<29, index 0x20000001 on the metric sibling's page), one seqlock
 * section on the leader's page. Order inside it: SLOTS, time, METRICS, so
 * the extrapolated times belong to the SLOTS value. Same return contract. */
int td_pmu_read_topdown(const struct td_pmu_reader *r,
			const volatile struct perf_event_mmap_page *leader,
			const volatile struct perf_event_mmap_page *metric, struct td_pmu_value *out);

#endif
