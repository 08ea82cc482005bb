/* td_backend_rdpmc: what the rdpmc and emulate backends share — the
 * snapshot through td_pmu_read_topdown and the TopDown accumulate — so
 * the emulated PMU exercises exactly the code that runs on hardware. */
#ifndef TD_BACKEND_RDPMC_H
#define TD_BACKEND_RDPMC_H

#include "td_backend.h"
#include "td_pmu_read.h"

/* Fills out from one seqlock read of the TopDown pages: TD_SAMPLE_OK with
 * slots/metrics, or TD_SAMPLE_NOT_RUNNING (index 0, E-core, no rdpmc), or
 * no flag at all when the page kept changing. wall_ns, epoch and the
 * group's enabled/running times are set in every case; cpu_ns is not
 * known here (TD_SAMPLE_NO_CPU). Calling thread only, hot path. */
void td_backend_rdpmc_sample(const struct td_pmu_reader *r, const void *leader,
			     const void *metric, const struct td_thread_counters *tc,
			     struct td_sample *out);

/* accumulate op of both backends (td_topdown_accumulate at be's level). */
void td_backend_rdpmc_accumulate(const struct td_backend *be, const struct td_sample *a,
				 const struct td_sample *b, struct td_counts *acc);

#endif
