/* arm64 backend: per-thread groups on the core PMU (armv8_pmuv3*), read from
 * user space through each event's perf_event_mmap_page and the mrs of
 * td_pmu_arm64.c (seqlock in td_pmu_read.c), read(2) when the page says the
 * counter cannot be read here (index 0: perf_user_access=0, multiplexed out,
 * other CPU type).
 *
 * Events, in td_sample.events[] order: cycles, instructions, then the
 * inputs of the CPU's TopDown flavour (td_arm64_events), then the user's
 * [counters] events. The fixed set is one group (leader cycles) when the PMU
 * can hold it, else two (cycles+instructions, and the TopDown inputs); each
 * user event is its own group, so a surplus multiplexes instead of failing.
 * Counts are raw deltas; the TopDown formulas turn them into fractions at
 * report time, and all-zero inputs there mean "no data". */
#include "td_arm64.h"
#include "td_backend.h"
#include "td_pmu_read.h"
#include "../../../config/td_config.h"

#include <ctype.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

struct td_arm64_priv {
	struct td_arm64_pmu pmu;
	int nev;
	uint16_t code[TD_MAX_EVENTS];
	int leader[TD_MAX_EVENTS];  /* index of the event leading this one's group */
	bool user;                  /* ask for user-space reads */
	bool exclude_kernel;
	long page_size;
};

/* The process-wide instance behind be->priv (the backend is chosen once). */
static struct td_arm64_priv td_arm64_state;

static void td_arm64_attr(const struct td_arm64_priv *s, int i, struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = (uint32_t)s->pmu.type;
	a->config = s->code[i];
	a->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	a->disabled = s->leader[i] == i;
	a->exclude_kernel = s->exclude_kernel;
	a->exclude_hv = 1;
}

static void td_arm64_close_fds(const struct td_arm64_priv *s, struct td_thread_counters *tc)
{
	/* Members first, leaders last (a member outliving its leader goes to
	 * ERROR first: harmless, but needless). */
	for (int pass = 0; pass < 2; pass++) {
		for (int i = tc->nr_fds - 1; i >= 0; i--) {
			bool is_leader = s->leader[i] == i;
			if (is_leader != (pass == 1))
				continue;
			if (tc->event_pages[i]) {
				munmap(tc->event_pages[i], (size_t)s->page_size);
				tc->event_pages[i] = NULL;
			}
			if (tc->fds[i] >= 0)
				close(tc->fds[i]);
			tc->fds[i] = -1;
		}
	}
	tc->page = NULL;
	tc->nr_fds = 0;
}

/* Opens events [0, n) on the calling thread as planned in s->leader. On
 * failure closes everything and returns -errno with *bad the event index. */
static int td_arm64_open_all(const struct td_arm64_priv *s, int n, struct td_thread_counters *tc,
			     int *bad)
{
	tc->nr_fds = 0;
	for (int i = 0; i < TD_MAX_FDS; i++)
		tc->fds[i] = -1;
	for (int i = 0; i < TD_MAX_EVENTS; i++)
		tc->event_pages[i] = NULL;
	for (int i = 0; i < n; i++) {
		struct perf_event_attr a;
		td_arm64_attr(s, i, &a);
		int group = s->leader[i] == i ? -1 : tc->fds[s->leader[i]];
		/* 64-bit counters for cycles (PMCCNTR) and wherever the PMU has them. */
		int fd = td_arm64_open(&s->pmu, &a, group, s->user, true, NULL);
		if (fd < 0) {
			*bad = i;
			td_arm64_close_fds(s, tc);
			return fd;
		}
		tc->fds[i] = fd;
		tc->nr_fds = i + 1;
	}
	for (int i = 0; i < n; i++)
		if (s->leader[i] == i && ioctl(tc->fds[i], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP)) {
			int err = -errno;
			*bad = i;
			td_arm64_close_fds(s, tc);
			return err;
		}
	return 0;
}

/* "r<hex>" or one of the PMUv3 names this backend knows. */
static int td_arm64_parse_event(const char *tok, uint16_t *code)
{
	static const struct { const char *name; uint16_t code; } names[] = {
		{"instructions", TD_ARM_INST_RETIRED}, {"inst_retired", TD_ARM_INST_RETIRED},
		{"cycles", TD_ARM_CPU_CYCLES}, {"cpu_cycles", TD_ARM_CPU_CYCLES},
		{"branch-misses", TD_ARM_BR_MIS_PRED}, {"br_mis_pred", TD_ARM_BR_MIS_PRED},
		{"stall_frontend", TD_ARM_STALL_FRONTEND}, {"stall_backend", TD_ARM_STALL_BACKEND},
		{"op_retired", TD_ARM_OP_RETIRED}, {"op_spec", TD_ARM_OP_SPEC},
	};
	if ((tok[0] == 'r' || tok[0] == 'R') && isxdigit((unsigned char)tok[1])) {
		char *end;
		unsigned long v = strtoul(tok + 1, &end, 16);
		if (*end || v > 0xffff)
			return -EINVAL;
		*code = (uint16_t)v;
		return 0;
	}
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcasecmp(tok, names[i].name)) {
			*code = names[i].code;
			return 0;
		}
	return -EINVAL;
}

static int td_arm64_probe_be(struct td_backend *be)
{
	struct td_arm64_priv *s = &td_arm64_state;
	const struct td_machine *m = be->machine;
	be->priv = s;
	cpu_set_t aff;
	memset(s, 0, sizeof(*s));
	s->page_size = sysconf(_SC_PAGESIZE);
	s->exclude_kernel = be->cfg ? be->cfg->exclude_kernel : true;
	if (!m)
		return snprintf(be->reason, sizeof(be->reason), "no machine facts"), -ENODEV;
	int rc = td_arm64_probe(m, sched_getaffinity(0, sizeof(aff), &aff) ? NULL : &aff, "/sys",
				"/proc", &s->pmu, be->reason, sizeof(be->reason));
	if (rc)
		return rc;

	struct td_arm64_event ev[TD_MAX_EVENTS];
	int nfix = td_arm64_events(s->pmu.topdown, ev, TD_MAX_EVENTS);
	s->nev = 0;
	for (int i = 0; i < nfix; i++) {
		s->code[s->nev] = ev[i].code;
		snprintf(be->event_names[s->nev], sizeof(be->event_names[0]), "%s", ev[i].name);
		s->leader[s->nev] = 0;
		s->nev++;
	}
	char bad_tok[48] = "";
	int nuser = 0;
	if (be->cfg && be->cfg->events) {
		const char *pos = be->cfg->events;
		char tok[48];
		while (td_config_list_next(&pos, tok, sizeof(tok))) {
			uint16_t code;
			if (td_arm64_parse_event(tok, &code)) {
				if (!bad_tok[0])
					snprintf(bad_tok, sizeof(bad_tok), "%s", tok);
				continue;
			}
			if (s->nev >= TD_MAX_EVENTS)
				break;
			s->code[s->nev] = code;
			s->leader[s->nev] = s->nev; /* own group: may multiplex */
			snprintf(be->event_names[s->nev], sizeof(be->event_names[0]), "%s", tok);
			s->nev++;
			nuser++;
		}
	}
	s->user = s->pmu.user_access == 1 && s->pmu.rdpmc_bit >= 0;

	/* Trial open on this thread: the group plan and which events exist. */
	struct td_thread_counters tc;
	memset(&tc, 0, sizeof(tc));
	int bad = -1;
	rc = td_arm64_open_all(s, s->nev, &tc, &bad);
	if (rc && nfix > 2 && bad >= 2 && bad < nfix && (rc == -EINVAL || rc == -ENOSPC)) {
		/* The fixed set does not fit one group: TopDown inputs get their own. */
		for (int i = 2; i < nfix; i++)
			s->leader[i] = 2;
		rc = td_arm64_open_all(s, s->nev, &tc, &bad);
	}
	if (rc && bad >= 2) {
		/* An optional event the kernel refuses: keep cycles and instructions. */
		int keep = 2;
		for (int i = nfix; i < s->nev; i++) /* user events move down */
			if (bad != i) {
				s->code[keep] = s->code[i];
				s->leader[keep] = keep;
				memmove(be->event_names[keep], be->event_names[i], sizeof(be->event_names[0]));
				keep++;
			}
		if (bad < nfix)
			s->pmu.topdown = TD_ARM64_TD_NONE;
		nfix = 2;
		s->nev = keep;
		rc = td_arm64_open_all(s, s->nev, &tc, &bad);
	}
	if (rc) {
		snprintf(be->reason, sizeof(be->reason), "%s: cannot open %s (raw 0x%02x): %s%s",
			 m->pmus[s->pmu.pmu].name, bad >= 0 && bad < s->nev ? be->event_names[bad] : "?",
			 bad >= 0 && bad < s->nev ? s->code[bad] : 0, strerror(-rc),
			 rc == -ENOENT ? " (under QEMU: instructions need -icount)" : "");
		return rc;
	}
	td_arm64_close_fds(s, &tc);
	be->nr_events = s->nev;
	/* Slot formulas are applied at report time (td_arm64_formulas_apply). */
	be->topdown_level = s->pmu.topdown == TD_ARM64_TD_SBSA || s->pmu.topdown == TD_ARM64_TD_V1 ||
				    s->pmu.topdown == TD_ARM64_TD_N2 ? 1 : 0;
	be->emulated = false;
	be->method = td_arm64_topdown_name(s->pmu.topdown);

	const char *access;
	if (s->pmu.rdpmc_bit < 0)
		access = "read(2) per snapshot: this kernel has no arm64 user-space counter access (before 5.17)";
	else if (s->pmu.user_access == 0)
		access = "read(2) per snapshot (~10 us): kernel.perf_user_access=0; "
			 "'sysctl -w kernel.perf_user_access=1' allows user-space counter reads";
	else if (s->pmu.user_access < 0)
		access = "read(2) per snapshot: kernel.perf_user_access unreadable";
	else
		access = "user-space counter reads (mrs), read(2) when not scheduled";
	int l = snprintf(be->reason, sizeof(be->reason), "%s (type %d): cycles, instructions%s%s; %s",
			 m->pmus[s->pmu.pmu].name, s->pmu.type,
			 s->pmu.topdown != TD_ARM64_TD_NONE ? ", " : "",
			 s->pmu.topdown != TD_ARM64_TD_NONE ? be->method : "", access);
	if (bad_tok[0] && l > 0 && (size_t)l < sizeof(be->reason))
		snprintf(be->reason + l, sizeof(be->reason) - (size_t)l,
			 "; event '%s' unknown (r<hex> or a PMUv3 name)", bad_tok);
	(void)nuser;
	return 0;
}

static int td_arm64_thread_open(struct td_backend *be, struct td_thread_counters *tc)
{
	struct td_arm64_priv *s = be->priv;
	int bad;
	int rc = td_arm64_open_all(s, s->nev, tc, &bad);
	if (rc)
		return rc;
	if (s->user) {
		/* A page that cannot be mapped (mlock budget: EPERM) only costs
		 * that event its user-space read. */
		for (int i = 0; i < s->nev; i++) {
			void *pg = mmap(NULL, (size_t)s->page_size, PROT_READ, MAP_SHARED, tc->fds[i], 0);
			tc->event_pages[i] = pg == MAP_FAILED ? NULL : pg;
		}
	}
	tc->page = tc->event_pages[0];
	tc->open = true;
	return 0;
}

/* read(2) of one event: value, enabled, running. */
static int td_arm64_read_fd(int fd, uint64_t v[3])
{
	return read(fd, v, 3 * sizeof(uint64_t)) == 3 * sizeof(uint64_t) ? 0 : -1;
}

/* Only event 0's page gives the sample's enabled/running: the other reads
 * skip the time extrapolation (about 160 instructions each). */
static const struct td_pmu_reader td_arm64_reader_notime = {
	.read_counter = td_arch_read_counter,
};

static void td_arm64_snapshot(const struct td_backend *be, struct td_thread_counters *tc,
			      struct td_sample *out)
{
	const struct td_arm64_priv *s = be->priv;
	uint32_t flags = TD_SAMPLE_OK;
	out->wall_ns = td_clock_wall_ns();
	out->cpu_ns = td_clock_thread_cpu_ns();
	for (int i = 0; i < s->nev; i++) {
		struct td_pmu_value v;
		const volatile struct perf_event_mmap_page *pg = tc->event_pages[i];
		if (pg && td_pmu_read_counter(i ? &td_arm64_reader_notime : &td_pmu_reader_hw, pg,
					      &v) == 0) {
			out->events[i] = v.value;
			if (i == 0) {
				out->time_enabled = v.enabled;
				out->time_running = v.running;
			}
			continue;
		}
		uint64_t r[3];
		if (td_arm64_read_fd(tc->fds[i], r)) {
			flags = 0;
			continue;
		}
		out->events[i] = r[0];
		if (i == 0) {
			out->time_enabled = r[1];
			out->time_running = r[2];
		}
	}
	out->epoch = tc->epoch;
	out->flags = flags;
}

static void td_arm64_accumulate(const struct td_backend *be, const struct td_sample *a,
				const struct td_sample *b, struct td_counts *acc)
{
	const struct td_arm64_priv *s = be->priv;
	if (b->cpu_ns >= a->cpu_ns)
		acc->cpu_ns += b->cpu_ns - a->cpu_ns;
	if (b->wall_ns >= a->wall_ns)
		acc->wall_ns += b->wall_ns - a->wall_ns;
	if (!(a->flags & TD_SAMPLE_OK) || !(b->flags & TD_SAMPLE_OK)) {
		acc->invalid++;
		return;
	}
	for (int i = 0; i < s->nev; i++)
		if (b->events[i] >= a->events[i])
			acc->events[i] += b->events[i] - a->events[i];
	if (b->time_enabled >= a->time_enabled && b->time_running >= a->time_running) {
		acc->time_enabled += b->time_enabled - a->time_enabled;
		acc->time_running += b->time_running - a->time_running;
	}
	acc->deltas++;
}

static int td_arm64_snapshot_foreign(const struct td_backend *be, struct td_thread_counters *tc,
				     struct td_sample *out)
{
	const struct td_arm64_priv *s = be->priv;
	out->wall_ns = td_clock_wall_ns();
	out->epoch = tc->epoch;
	out->flags = TD_SAMPLE_OK;
	/* Another thread's page is meaningless here (self-monitoring only):
	 * read(2) every event. CPU time comes from the software backend. */
	struct td_sample sw;
	memset(&sw, 0, sizeof(sw));
	if (td_backend_software_ops.snapshot_foreign(be, tc, &sw) == 0)
		out->cpu_ns = sw.cpu_ns;
	for (int i = 0; i < s->nev; i++) {
		uint64_t r[3];
		if (td_arm64_read_fd(tc->fds[i], r)) {
			out->flags = 0;
			return -EIO;
		}
		out->events[i] = r[0];
		if (i == 0) {
			out->time_enabled = r[1];
			out->time_running = r[2];
		}
	}
	return 0;
}

static void td_arm64_thread_close(const struct td_backend *be, struct td_thread_counters *tc)
{
	td_arm64_close_fds(be->priv, tc);
	tc->open = false;
}

/* Called by td_formulas_apply for every counts object the report writes. */
int td_arm64_formulas_apply(const struct td_backend *be, struct td_counts *c);
int td_arm64_formulas_apply(const struct td_backend *be, struct td_counts *c)
{
	if (!be || be->ops != &td_backend_arm64_ops || !be->priv)
		return -ENOENT;
	const struct td_arm64_priv *s = be->priv;
	return td_arm64_topdown_apply(s->pmu.topdown, s->pmu.slots, be->machine ? be->machine->midr : 0,
				      c);
}

const struct td_backend_ops td_backend_arm64_ops = {
	.name = "arm64",
	.probe = td_arm64_probe_be,
	.thread_open = td_arm64_thread_open,
	.snapshot = td_arm64_snapshot,
	.accumulate = td_arm64_accumulate,
	.snapshot_foreign = td_arm64_snapshot_foreign,
	.thread_close = td_arm64_thread_close,
};
