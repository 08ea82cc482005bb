/* td_rdpmc_guard: the hybrid guard around RDPMC (x86_64).
 *
 * On a hybrid Intel part a thread whose cpu_core TopDown group is open
 * may migrate to an E-core at any instruction; RDPMC of fixed counter 3
 * or PERF_METRICS there raises #GP (SIGSEGV). Checking the page's index
 * is not enough: the migration can land between the index load and the
 * RDPMC (pmu-facts §5).
 *
 * Choice: an rseq critical section. The CPU number is read from the
 * thread's rseq area (registered by glibc >= 2.35), tested against the
 * cpu_core CPU mask from sysfs, and RDPMC executed, all inside one rseq
 * section: if the thread is preempted, migrated or signalled anywhere in
 * it, the kernel restarts it at the abort handler, so RDPMC only ever
 * runs on a CPU that was checked. Why not the alternatives: a CPU-mask
 * check alone has exactly the race above; a SIGSEGV handler would have to
 * be installed in (and kept installed against) the host program, which
 * may have its own handler, sanitizer or runtime; pinning changes the
 * program's behaviour. Cost: a few instructions, no syscall, and only on
 * hybrid machines (elsewhere RDPMC runs unguarded). Without a registered
 * rseq area the rdpmc backend refuses hybrid machines. */
#ifndef TD_RDPMC_GUARD_H
#define TD_RDPMC_GUARD_H

#include <stdbool.h>
#include <stdint.h>

#define TD_GUARD_MAX_CPUS 1024

struct td_rdpmc_guard {
	uint32_t nbits;                           /* CPUs covered by mask */
	uint64_t mask[TD_GUARD_MAX_CPUS / 64];    /* CPUs where RDPMC is allowed */
};

/* Parses a sysfs CPU list ("0-7,16-23") into g. 0 or -EINVAL. */
int td_rdpmc_guard_init(struct td_rdpmc_guard *g, const char *cpulist);
/* Whether the calling thread has a registered rseq area. */
bool td_rdpmc_guard_available(void);
/* CPU number as the rseq area says, -1 when not registered. */
int td_rdpmc_guard_cpu(void);
/* td_pmu_reader.read_checked with ctx = struct td_rdpmc_guard *:
 * 0 and *val, -EFAULT (this CPU is not in the mask), -EAGAIN (the
 * section kept being aborted). */
int td_rdpmc_read_guarded(void *ctx, uint32_t idx, uint64_t *val);

#endif
