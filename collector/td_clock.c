#include "td_backend.h"

#include <time.h>

/* CLOCK_MONOTONIC is served by the vDSO: no syscall. */
uint64_t td_clock_wall_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Thread CPU clocks are not in the vDSO: this is a real syscall (~170-420 ns
 * on our KVM guests). The perf task-clock user page would avoid it only where
 * cap_user_time is set, which it is not under kvm-clock. */
uint64_t td_clock_thread_cpu_ns(void)
{
	struct timespec ts;
	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
