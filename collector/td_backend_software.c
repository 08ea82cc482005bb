/* software backend: thread CPU time and wall time, for machines without a
 * PMU (most VMs and containers). No counters to open: nothing can fail. */
#include "td_backend.h"

#include "../config/td_config.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

static int td_sw_probe(struct td_backend *be)
{
	be->topdown_level = 0;
	be->method = "thread CPU time (CLOCK_THREAD_CPUTIME_ID) and wall time";
	be->emulated = false;
	return 0;
}

static int td_sw_thread_open(struct td_backend *be, struct td_thread_counters *tc)
{
	tc->nr_fds = 0;
	tc->open = true;
	return 0;
}

static void td_sw_snapshot(const struct td_backend *be, struct td_thread_counters *tc,
			   struct td_sample *out)
{
	out->wall_ns = td_clock_wall_ns();
	out->epoch = tc->epoch;
	out->flags = TD_SAMPLE_OK;
	/* [counters] cpu_time = no keeps syscalls off the hot path. */
	if (be->cfg && !be->cfg->cpu_time)
		out->flags |= TD_SAMPLE_NO_CPU;
	else
		out->cpu_ns = td_clock_thread_cpu_ns();
}

static void td_sw_accumulate(const struct td_backend *be, const struct td_sample *a,
			     const struct td_sample *b, struct td_counts *acc)
{
	if ((a->flags | b->flags) & TD_SAMPLE_NO_CPU)
		acc->no_cpu++;
	else if (b->cpu_ns >= a->cpu_ns)
		acc->cpu_ns += b->cpu_ns - a->cpu_ns;
	if (b->wall_ns >= a->wall_ns)
		acc->wall_ns += b->wall_ns - a->wall_ns;
	acc->deltas++;
}

/* Another thread's CPU clock: the kernel's per-thread clock id for a tid
 * (MAKE_THREAD_CPUCLOCK(tid, CPUCLOCK_SCHED)), valid within this process. */
static int td_sw_snapshot_foreign(const struct td_backend *be, struct td_thread_counters *tc,
				  struct td_sample *out)
{
	struct timespec ts;
	clockid_t id = (clockid_t)((~(unsigned)tc->tid << 3) | 6);
	out->wall_ns = td_clock_wall_ns();
	out->epoch = tc->epoch;
	if (clock_gettime(id, &ts) != 0) {
		out->flags = TD_SAMPLE_NO_CPU;
		return -1;
	}
	out->cpu_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	out->flags = TD_SAMPLE_OK;
	return 0;
}

static void td_sw_thread_close(const struct td_backend *be, struct td_thread_counters *tc)
{
	tc->open = false;
}

const struct td_backend_ops td_backend_software_ops = {
	.name = "software",
	.probe = td_sw_probe,
	.thread_open = td_sw_thread_open,
	.snapshot = td_sw_snapshot,
	.accumulate = td_sw_accumulate,
	.snapshot_foreign = td_sw_snapshot_foreign,
	.thread_close = td_sw_thread_close,
};
