/* td_backend_rdpmc: what the rdpmc and emulate backends share — the
 * snapshot through td_pmu_read_topdown and the TopDown accumulate — so
 * the emulated PMU exercises exactly the code that runs on hardware. */
#ifndef TD_BACKEND_RDPMC_H
#define TD_BACKEND_RDPMC_H

#include "td_backend.h"
#include "td_pmu_read.h"

/* Fills out from one seqlock read of the TopDown pages: TD_SAMPLE_OK with
 * slots/metrics, or TD_SAMPLE_NOT_RUNNING (index 0, E-core, no rdpmc), or
 * no flag at all when the page kept changing; then the tc->nr_fds - 2
 * extra events of the group from tc->event_pages (offset + sext(raw));
 * one that cannot be read makes the sample TD_SAMPLE_NOT_RUNNING (they
 * share the group's schedule, and read(2) would reset the TopDown
 * counters). wall_ns, epoch and the group's enabled/running times are set
 * in every case; cpu_ns is time_running extrapolated to the SLOTS read when
 * the page has cap_user_time, else TD_SAMPLE_NO_CPU. Calling thread only,
 * hot path: no syscall. */
void td_backend_rdpmc_sample(const struct td_pmu_reader *r, const void *leader,
			     const void *metric, const struct td_thread_counters *tc,
			     struct td_sample *out);

/* Event delta b - a modulo 2^width: after an update that did not re-arm
 * the counter (our reset), the kernel's page offset is off by exactly
 * 2^width until the next sched-in (see td_emu.h), so only the value
 * modulo 2^width is continuous. Valid while a delta stays below
 * 2^(width-1) (hours of cycles at 48 bits). */
uint64_t td_backend_rdpmc_event_delta(uint64_t a, uint64_t b, unsigned width);

/* accumulate op of both backends: td_topdown_accumulate at be's level,
 * plus the extra events of valid deltas (48-bit counters). */
void td_backend_rdpmc_accumulate(const struct td_backend *be, const struct td_sample *a,
				 const struct td_sample *b, struct td_counts *acc);

#endif
