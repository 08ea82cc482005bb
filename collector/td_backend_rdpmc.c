/* td_backend_rdpmc: Intel perf-metrics TopDown read from user space.
 *
 * Per thread: a disabled `slots` leader plus one metric sibling (RDPMC of
 * PERF_METRICS returns all eight fields whatever sibling asked for it),
 * both mmapped, enabled as a group; snapshots through td_pmu_read_topdown
 * (seqlock, index and cap_user_rdpmc checked, raw SLOTS, full PERF_METRICS)
 * and accumulated by td_topdown. pmu-facts §1.6 is the recipe. */
#include "td_backend_rdpmc.h"
#include "td_config.h"
#include "td_events.h"
#include "td_machine.h"
#include "td_rdpmc_guard.h"
#include "td_topdown.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define TD_RDPMC_SLOTS_CONFIG 0x0400u     /* event 0x00 umask 0x04: fixed counter 3 */
#define TD_RDPMC_RETIRING_CONFIG 0x8000u  /* topdown-retiring, one sibling is enough */
/* Width of general-purpose and fixed counters on every Intel core with
 * perf-metrics (CPUID.0AH), and of the emulated PMU. */
#define TD_RDPMC_EVENT_WIDTH 48

static uint64_t td_rdpmc_wall_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts); /* vDSO: no syscall */
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void td_backend_rdpmc_sample(const struct td_pmu_reader *r, const void *leader,
			     const void *metric, const struct td_thread_counters *tc,
			     struct td_sample *out)
{
	struct td_pmu_value v = { 0 };
	int rc = td_pmu_read_topdown(r, leader, metric, &v);
	*out = (struct td_sample){
		.wall_ns = td_rdpmc_wall_ns(),
		.epoch = tc->epoch,
		.time_enabled = v.enabled,
		.time_running = v.running,
		.flags = TD_SAMPLE_NO_CPU,
	};
	/* time_running of a per-thread group extrapolated to the SLOTS read is
	 * the thread's CPU time while counted: no syscall needed. */
	if (v.flags & TD_PMU_TIME_NOW) {
		out->cpu_ns = v.running;
		out->flags &= ~TD_SAMPLE_NO_CPU;
	}
	if (rc == 0) {
		out->slots = v.value;
		out->metrics = v.metrics;
		out->flags |= TD_SAMPLE_OK;
	} else if (rc == -EAGAIN) {
		out->flags |= TD_SAMPLE_NOT_RUNNING;
	}
	int nev = tc->nr_fds > 2 ? tc->nr_fds - 2 : 0;
	for (int i = 0; i < nev && i < TD_MAX_EVENTS && (out->flags & TD_SAMPLE_OK); i++) {
		struct td_pmu_value ev;
		if (!tc->event_pages[i] || td_pmu_read_counter(r, tc->event_pages[i], &ev) != 0) {
			out->flags |= TD_SAMPLE_NOT_RUNNING;
			break;
		}
		out->events[i] = ev.value;
	}
}

uint64_t td_backend_rdpmc_event_delta(uint64_t a, uint64_t b, unsigned width)
{
	uint64_t d = b - a;
	return width && width < 64 ? d & ((UINT64_C(1) << width) - 1) : d;
}

void td_backend_rdpmc_accumulate(const struct td_backend *be, const struct td_sample *a,
				 const struct td_sample *b, struct td_counts *acc)
{
	td_topdown_accumulate(a, b, be->topdown_level, acc);
	if (be->nr_events && td_topdown_check(a, b) == TD_TOPDOWN_VALID)
		for (int i = 0; i < be->nr_events && i < TD_MAX_EVENTS; i++)
			acc->events[i] += td_backend_rdpmc_event_delta(a->events[i], b->events[i],
								       TD_RDPMC_EVENT_WIDTH);
}

/* Process-wide state: the reader (guarded on hybrid parts) and its guard. */
struct td_rdpmc_priv {
	struct td_pmu_reader reader;
	struct td_rdpmc_guard guard;
	const struct td_pmu_info *pmu;
	bool exclude_kernel;
	long page_size;
	int nr_events;                      /* [counters] events, group members 2.. */
	struct td_event_spec events[TD_MAX_EVENTS];
};

static int td_rdpmc_open_event(const struct td_rdpmc_priv *p, uint64_t config, int group_fd)
{
	struct perf_event_attr attr;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = (uint32_t)p->pmu->type;
	attr.config = config;
	attr.disabled = group_fd < 0; /* leader disabled, enabled as a group */
	attr.exclude_kernel = p->exclude_kernel;
	attr.exclude_hv = 1;
	attr.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
			   PERF_FORMAT_TOTAL_TIME_RUNNING;
	long fd = syscall(SYS_perf_event_open, &attr, 0, -1, group_fd, PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : (int)fd;
}

static void td_rdpmc_close_all(const struct td_rdpmc_priv *p, struct td_thread_counters *tc)
{
	for (int i = 0; i < TD_MAX_EVENTS; i++) {
		if (tc->event_pages[i] && tc->event_pages[i] != MAP_FAILED)
			munmap(tc->event_pages[i], (size_t)p->page_size);
		tc->event_pages[i] = NULL;
	}
	if (tc->priv && tc->priv != MAP_FAILED)
		munmap(tc->priv, (size_t)p->page_size);
	if (tc->page && tc->page != MAP_FAILED)
		munmap(tc->page, (size_t)p->page_size);
	tc->priv = tc->page = NULL;
	/* Siblings first: closing the leader first puts them in ERROR. */
	for (int i = tc->nr_fds - 1; i >= 0; i--) {
		if (tc->fds[i] >= 0)
			close(tc->fds[i]);
		tc->fds[i] = -1;
	}
	tc->nr_fds = 0;
	tc->open = false;
}

/* failed_event: set to the index of the extra event that could not be
 * opened (the kernel rejects a group that cannot be scheduled), else -1. */
static int td_rdpmc_thread_open_priv(const struct td_rdpmc_priv *p, struct td_thread_counters *tc,
				     int *failed_event)
{
	*failed_event = -1;
	for (int i = 0; i < TD_MAX_FDS; i++)
		tc->fds[i] = -1;
	tc->nr_fds = 0;
	tc->page = tc->priv = NULL;
	for (int i = 0; i < TD_MAX_EVENTS; i++)
		tc->event_pages[i] = NULL;
	int rc = td_rdpmc_open_event(p, TD_RDPMC_SLOTS_CONFIG, -1);
	if (rc < 0)
		return rc;
	tc->fds[tc->nr_fds++] = rc;
	rc = td_rdpmc_open_event(p, TD_RDPMC_RETIRING_CONFIG, tc->fds[0]);
	if (rc < 0)
		goto fail;
	tc->fds[tc->nr_fds++] = rc;
	void *lp = mmap(NULL, (size_t)p->page_size, PROT_READ, MAP_SHARED, tc->fds[0], 0);
	if (lp == MAP_FAILED) {
		rc = -errno;
		goto fail;
	}
	tc->page = lp;
	void *mp = mmap(NULL, (size_t)p->page_size, PROT_READ, MAP_SHARED, tc->fds[1], 0);
	if (mp == MAP_FAILED) {
		rc = -errno;
		goto fail;
	}
	tc->priv = mp;
	/* Extra events join the TopDown group, so they are scheduled with it
	 * and read from user space under the same conditions. */
	for (int i = 0; i < p->nr_events; i++) {
		struct perf_event_attr attr;
		td_events_attr(&p->events[i], false, p->exclude_kernel, &attr);
		long fd = syscall(SYS_perf_event_open, &attr, 0, -1, tc->fds[0], PERF_FLAG_FD_CLOEXEC);
		if (fd < 0) {
			rc = -errno;
			*failed_event = i;
			goto fail;
		}
		tc->fds[tc->nr_fds++] = (int)fd;
		void *ep = mmap(NULL, (size_t)p->page_size, PROT_READ, MAP_SHARED, (int)fd, 0);
		if (ep == MAP_FAILED) {
			rc = -errno;
			*failed_event = i;
			goto fail;
		}
		tc->event_pages[i] = ep;
	}
	if (ioctl(tc->fds[0], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP) < 0) {
		rc = -errno;
		goto fail;
	}
	const volatile struct perf_event_mmap_page *lpg = lp, *mpg = mp;
	/* index may be 0 right now on a hybrid part (thread on an E-core);
	 * anything else than the TopDown indexes means this kernel does not
	 * give us perf-metrics through RDPMC. */
	bool idx_ok = (lpg->index == TD_PMU_SLOTS_INDEX || lpg->index == 0) &&
		      (mpg->index == TD_PMU_METRICS_INDEX || mpg->index == 0);
	if (!lpg->cap_user_rdpmc || !mpg->cap_user_rdpmc || !idx_ok) {
		rc = -EOPNOTSUPP;
		goto fail;
	}
	tc->open = true;
	return 0;
fail:
	td_rdpmc_close_all(p, tc);
	return rc;
}

static int td_rdpmc_probe(struct td_backend *be)
{
	const struct td_machine *m = be->machine;
#define NO(err, ...)                                                      \
	do {                                                              \
		snprintf(be->reason, sizeof(be->reason), __VA_ARGS__); \
		return err;                                               \
	} while (0)
	if (!m)
		NO(-ENODEV, "rdpmc: no machine facts");
#if !defined(__x86_64__)
	NO(-ENODEV, "rdpmc: Intel perf-metrics exist on x86_64 only");
#endif
	if (m->core_pmu < 0 || m->core_pmu >= m->nr_pmus)
		NO(-ENOENT, "rdpmc: no TopDown-capable core PMU (%s)",
		   m->no_pmu_reason[0] ? m->no_pmu_reason : "none in sysfs");
	const struct td_pmu_info *pmu = &m->pmus[m->core_pmu];
	if (!pmu->has_slots || pmu->nr_topdown < 4)
		NO(-ENOENT,
		   "rdpmc: PMU %s has no slots/topdown-* events (pre-Ice Lake, AMD or a VM): no "
		   "perf-metrics",
		   pmu->name);
	/* The type comes from sysfs: cpu_core is PERF_TYPE_RAW on recent
	 * kernels but had a dynamic type on older ones (pmu-facts §5). */
	if (pmu->type <= 0)
		NO(-ENOENT, "rdpmc: sysfs gives no type for PMU %s; not guessing one", pmu->name);
	struct td_rdpmc_priv *p = calloc(1, sizeof(*p));
	if (!p)
		NO(-ENOMEM, "rdpmc: out of memory");
	p->pmu = pmu;
	p->exclude_kernel = be->cfg ? be->cfg->exclude_kernel : true;
	p->page_size = sysconf(_SC_PAGESIZE);
	p->reader = td_pmu_reader_hw;
#if defined(__x86_64__)
	if (m->hybrid) {
		if (!td_rdpmc_guard_available()) {
			free(p);
			NO(-ENOTSUP,
			   "rdpmc: hybrid CPU and no rseq area (glibc < 2.35 or rseq tunable off): an "
			   "RDPMC on an E-core would crash the program");
		}
		if (td_rdpmc_guard_init(&p->guard, pmu->cpus) || !pmu->cpus[0]) {
			free(p);
			NO(-EINVAL, "rdpmc: hybrid CPU but %s/cpus is unreadable ('%s')",
			   pmu->name, pmu->cpus);
		}
		p->reader.read_checked = td_rdpmc_read_guarded;
		p->reader.ctx = &p->guard;
	}
#endif
	if (be->cfg && be->cfg->events && be->cfg->events[0]) {
		char err[200];
		int rc = td_events_parse_list(be->cfg->events, "[counters] events", NULL, p->events,
					      &p->nr_events, TD_MAX_EVENTS, err, sizeof(err));
		for (int i = 0; rc == 0 && i < p->nr_events; i++)
			if (td_events_is_software(&p->events[i])) {
				snprintf(err, sizeof(err),
					 "[counters] events: %s is a software event: no user-space "
					 "read (use software_events with the perf backend)",
					 p->events[i].name);
				rc = -EINVAL;
			}
		if (rc) {
			free(p);
			NO(rc, "rdpmc: %s", err);
		}
	}
	/* Try it on this thread: open, map, enable, check the user page. */
	struct td_thread_counters tc = { 0 };
	int failed = -1;
	int rc = td_rdpmc_thread_open_priv(p, &tc, &failed);
	if (rc < 0 && failed >= 0) {
		char name[48];
		snprintf(name, sizeof(name), "%s", p->events[failed].name);
		free(p);
		NO(rc, "rdpmc: [counters] events: %s could not join the TopDown group (%s)%s", name,
		   strerror(-rc),
		   rc == -EINVAL ? ": more events than counters; drop it or use the perf backend"
				 : "");
	}
	if (rc < 0) {
		free(p);
		NO(rc, "rdpmc: %s group on PMU %s: %s%s", rc == -EOPNOTSUPP ? "user-space read of the"
				: "cannot open the TopDown", pmu->name,
		   rc == -EOPNOTSUPP ? "not allowed (cap_user_rdpmc 0 or wrong index; "
				       "/sys/bus/event_source/devices/cpu*/rdpmc = 0?)"
				     : strerror(-rc),
		   rc == -EACCES ? " (perf_event_paranoid; try exclude_kernel = yes)" : "");
	}
	td_rdpmc_close_all(p, &tc);
	be->priv = p;
	be->nr_events = p->nr_events;
	for (int i = 0; i < p->nr_events; i++)
		snprintf(be->event_names[i], sizeof(be->event_names[i]), "%s", p->events[i].name);
	be->topdown_level =
		pmu->nr_topdown >= 8 && (!be->cfg || be->cfg->topdown_level >= 2) ? 2 : 1;
	be->method = be->topdown_level == 2 ? "perf-metrics L2 via rdpmc"
					    : "perf-metrics L1 via rdpmc";
	be->emulated = false;
	snprintf(be->reason, sizeof(be->reason),
		 "rdpmc: %s PMU (type %d from sysfs) has perf-metrics, level %d; user-space read "
		 "verified%s",
		 pmu->name, pmu->type, be->topdown_level,
		 m->hybrid ? "; hybrid: reads guarded by rseq, E-core time reported as not running"
			   : "");
	return 0;
#undef NO
}

static int td_rdpmc_thread_open(struct td_backend *be, struct td_thread_counters *tc)
{
	int failed;
	return td_rdpmc_thread_open_priv(be->priv, tc, &failed);
}

static void td_rdpmc_snapshot(const struct td_backend *be, struct td_thread_counters *tc,
			      struct td_sample *out)
{
	const struct td_rdpmc_priv *p = be->priv;
	if (!tc->open) {
		*out = (struct td_sample){ .wall_ns = td_rdpmc_wall_ns(), .epoch = tc->epoch,
					   .flags = TD_SAMPLE_NO_CPU };
		return;
	}
	td_backend_rdpmc_sample(&p->reader, tc->page, tc->priv, tc, out);
}

static int td_rdpmc_reset(const struct td_backend *be, struct td_thread_counters *tc)
{
	if (!tc->open)
		return -EBADF;
	if (ioctl(tc->fds[0], PERF_EVENT_IOC_RESET, PERF_IOC_FLAG_GROUP) < 0)
		return -errno;
	tc->epoch++;
	return 0;
}

/* Another thread cannot use the user-space path (the page index is only
 * valid on the owner's CPU), and a group read(2) carries only the one
 * metric sibling's count, not all categories: a still-running thread's
 * last segment is not attributable. */
static int td_rdpmc_snapshot_foreign(const struct td_backend *be, struct td_thread_counters *tc,
				     struct td_sample *out)
{
	return -EOPNOTSUPP;
}

static void td_rdpmc_thread_close(const struct td_backend *be, struct td_thread_counters *tc)
{
	if (be->priv)
		td_rdpmc_close_all(be->priv, tc);
}

static void td_rdpmc_exit(struct td_backend *be)
{
	free(be->priv);
	be->priv = NULL;
}

const struct td_backend_ops td_backend_rdpmc_ops = {
	.name = "rdpmc",
	.probe = td_rdpmc_probe,
	.thread_open = td_rdpmc_thread_open,
	.snapshot = td_rdpmc_snapshot,
	.accumulate = td_backend_rdpmc_accumulate,
	.reset = td_rdpmc_reset,
	.snapshot_foreign = td_rdpmc_snapshot_foreign,
	.thread_close = td_rdpmc_thread_close,
	.exit = td_rdpmc_exit,
};
