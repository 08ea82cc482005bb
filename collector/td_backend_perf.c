/* perf backend: per-thread perf_event_open groups read with read(2).
 *
 * What it counts, in td_sample.events[] order (be->event_names):
 *   1. the events of a TopDown formula set, when the machine has one
 *      (td_formulas.h): Skylake family and Zen 4 generic events, turned
 *      into node slot counts at report time by td_formulas_apply; or, on
 *      perf-metrics CPUs (when rdpmc cannot run), the kernel's topdown-*
 *      slot counts behind a pinned slots leader (SLOTS in td_sample.slots);
 *   2. [counters] software_events (default task-clock), then [counters]
 *      events, parsed by td_events.
 * A hidden task-clock leads the software group (unless the user listed
 * task-clock) and gives cpu_ns.
 *
 * Snapshot cost: one read(2) per group, a syscall, which is this backend's
 * nature (~1-2 us each). Hardware events are mmapped so that, where the
 * kernel gives user access (cap_user_rdpmc, index != 0), td_pmu_read_counter
 * reads them without a syscall; software events never can.
 *
 * Multiplexing: each group's values are scaled value*enabled/running at
 * snapshot (estimates of the running totals; exact when running ==
 * enabled); the sample's time_enabled/time_running are sums over groups, so
 * running < enabled marks "scaled" and running == 0 "never ran"
 * (td_events_scale_note). */
#include "td_backend.h"

#include "../config/td_config.h"
#include "td_events.h"
#include "td_formulas.h"
#include "td_machine.h"
#include "td_pmu_read.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* The instruction lives in collector/arch/<arch>/; weak so an arch without
 * it yet (or a build without it) falls back to read(2). */
#pragma weak td_pmu_reader_hw

#define PERF_MAX_SPECS TD_MAX_FDS

struct perf_state {
	int nr_specs;
	struct td_event_spec specs[PERF_MAX_SPECS]; /* fd order: tc->fds[i] is specs[i] */
	struct td_events_plan plan;
	int cpu_spec;                   /* spec giving cpu_ns (task-clock), -1 none */
	int slots_spec;                 /* perf-metrics slots leader (td_sample.slots), -1 none */
	int visible[TD_MAX_EVENTS];     /* events[i] comes from specs[visible[i]] */
	bool user_read;                 /* mmap hardware events for user-space reads */
	enum td_formula_set formulas;
};

static const struct td_pmu_reader *perf_reader(void)
{
	return &td_pmu_reader_hw ? &td_pmu_reader_hw : NULL;
}

/* Builds the visible list (formula events, then the user's) and the spec
 * list in group order. 0 or -errno with be->reason set. */
static int perf_build(struct td_backend *be, struct perf_state *st, enum td_formula_set set)
{
	const struct td_config *cfg = be->cfg;
	const char *sysfs = "/sys";
	struct td_event_spec vis[TD_MAX_EVENTS + 8];
	int nvis = 0, rc;
	char err[200];

	const struct td_formula_desc *d = td_formulas_desc(set);
	uint32_t pmu_type = PERF_TYPE_RAW;
	if (d && d->core_pmu_type) {
		const struct td_machine *m = be->machine;
		if (!m || m->core_pmu < 0 || m->pmus[m->core_pmu].type < 0) {
			snprintf(be->reason, sizeof(be->reason), "no core PMU type in sysfs");
			return -ENOENT;
		}
		pmu_type = (uint32_t)m->pmus[m->core_pmu].type; /* never hard-coded */
	}
	if (d) {
		for (int i = 0; i < d->nr_events; i++) {
			memset(&vis[nvis], 0, sizeof(vis[nvis]));
			snprintf(vis[nvis].name, sizeof(vis[nvis].name), "%s", d->events[i].name);
			vis[nvis].type = pmu_type;
			vis[nvis].config = d->events[i].config;
			vis[nvis].pin = d->core_pmu_type;
			nvis++;
		}
	}
	const char *sw = cfg && cfg->software_events && cfg->software_events[0] ? cfg->software_events
										 : NULL;
	const char *ev = cfg && cfg->events && cfg->events[0] ? cfg->events : NULL;
	/* task-clock is counted anyway (hidden, for cpu_ns); shown by default
	 * only when no formula set fills the events. */
	if (!sw && !ev && !d)
		sw = "task-clock";
	rc = td_events_parse_list(sw, "[counters] software_events", sysfs, vis, &nvis,
				  TD_MAX_EVENTS, err, sizeof(err));
	if (!rc)
		rc = td_events_parse_list(ev, "[counters] events", sysfs, vis, &nvis, TD_MAX_EVENTS,
					  err, sizeof(err));
	if (rc == -E2BIG && d)
		snprintf(err + strlen(err), sizeof(err) - strlen(err),
			 "; the %s formulas use %d of them", d->method, d->nr_events);
	if (rc) {
		snprintf(be->reason, sizeof(be->reason), "%s", err);
		return rc;
	}

	/* Spec order: task-clock, other software events, the perf-metrics
	 * group (slots leader first, pinned together), other hardware events,
	 * so runs of one kind become one group each. */
	int n = 0, tc_vis = -1;
	for (int i = 0; i < nvis; i++)
		if (vis[i].type == PERF_TYPE_SOFTWARE && vis[i].config == PERF_COUNT_SW_TASK_CLOCK) {
			tc_vis = i;
			break;
		}
	if (tc_vis >= 0) {
		st->specs[n] = vis[tc_vis];
		st->specs[n++].tag = tc_vis;
	} else {
		td_events_parse("task-clock", NULL, &st->specs[n]);
		st->specs[n++].tag = -1;
	}
	for (int pass = 0; pass < 3; pass++) {
		if (pass == 1 && d && d->core_pmu_type) {
			struct td_event_spec *sl = &st->specs[n++];
			memset(sl, 0, sizeof(*sl));
			snprintf(sl->name, sizeof(sl->name), "slots");
			sl->type = pmu_type;
			sl->config = 0x0400; /* event 0x00 umask 0x04: fixed counter 3 */
			sl->pin = 1;
			sl->tag = -2;
		}
		for (int i = 0; i < nvis; i++) {
			bool sw = td_events_is_software(&vis[i]);
			int want = sw ? 0 : vis[i].pin ? 1 : 2;
			if (i == tc_vis || want != pass)
				continue;
			st->specs[n] = vis[i];
			st->specs[n++].tag = i;
		}
	}
	st->nr_specs = n;
	be->nr_events = nvis;
	for (int i = 0; i < nvis; i++)
		snprintf(be->event_names[i], sizeof(be->event_names[i]), "%s", vis[i].name);
	return 0;
}

/* After planning: map visible events to surviving specs, dropping the
 * visible events whose spec was dropped. */
static void perf_map(struct td_backend *be, struct perf_state *st)
{
	int spec_of[TD_MAX_EVENTS];
	for (int i = 0; i < TD_MAX_EVENTS; i++)
		spec_of[i] = -1;
	st->cpu_spec = -1;
	st->slots_spec = -1;
	for (int k = 0; k < st->nr_specs; k++) {
		if (st->specs[k].tag == -2)
			st->slots_spec = k;
		if (st->specs[k].tag >= 0)
			spec_of[st->specs[k].tag] = k;
		if (st->specs[k].type == PERF_TYPE_SOFTWARE &&
		    st->specs[k].config == PERF_COUNT_SW_TASK_CLOCK && st->cpu_spec < 0)
			st->cpu_spec = k;
	}
	int out = 0;
	for (int i = 0; i < be->nr_events; i++) {
		if (spec_of[i] < 0)
			continue;
		if (out != i)
			memcpy(be->event_names[out], be->event_names[i], sizeof(be->event_names[0]));
		st->visible[out++] = spec_of[i];
	}
	be->nr_events = out;
}

static bool perf_formula_events_kept(const struct perf_state *st, enum td_formula_set set)
{
	const struct td_formula_desc *d = td_formulas_desc(set);
	int kept = 0;
	for (int k = 0; k < st->nr_specs; k++)
		if (st->specs[k].tag >= 0 && st->specs[k].tag < d->nr_events)
			kept++;
	return kept == d->nr_events;
}

static int perf_probe(struct td_backend *be)
{
	const struct td_config *cfg = be->cfg;
	const struct td_machine *m = be->machine;
	bool excl = cfg ? cfg->exclude_kernel : true;
	const char *why = "no machine facts";
	int wanted = cfg ? (int)cfg->topdown_level : 2;
	enum td_formula_set set = m ? td_formulas_choose_level(m, wanted, &why) : TD_FORMULAS_NONE;
	char dropped[256], td_lost[160] = "";
	int rc;

	/* auto wants TopDown from this backend; plain events are for users who
	 * ask for perf by name. */
	if (cfg && cfg->backend == TD_BACKEND_AUTO && set == TD_FORMULAS_NONE) {
		snprintf(be->reason, sizeof(be->reason), "no TopDown from generic events: %s", why);
		return -ENOENT;
	}
	struct perf_state *st = calloc(1, sizeof(*st));
	if (!st)
		return -ENOMEM;
	for (;;) {
		memset(st, 0, sizeof(*st));
		rc = perf_build(be, st, set);
		if (rc == -E2BIG && set == TD_FORMULAS_PERF_METRICS_L2) {
			/* Level 2 takes all 8 event slots: make room for the user's. */
			set = TD_FORMULAS_PERF_METRICS_L1;
			continue;
		}
		if (rc)
			goto fail;
		rc = td_events_plan(st->specs, &st->nr_specs, excl, &st->plan, dropped,
				    sizeof(dropped));
		if (rc) {
			snprintf(be->reason, sizeof(be->reason), "no event could be opened: %.200s",
				 dropped);
			goto fail;
		}
		if (set == TD_FORMULAS_NONE || perf_formula_events_kept(st, set))
			break;
		/* A formula event cannot be counted: no TopDown, keep the rest. */
		snprintf(td_lost, sizeof(td_lost), "; no TopDown (%s formula events: %.80s)",
			 td_formulas_desc(set)->method, dropped);
		set = TD_FORMULAS_NONE;
		if (cfg && cfg->backend == TD_BACKEND_AUTO) {
			snprintf(be->reason, sizeof(be->reason), "%s", td_lost + 2);
			rc = -ENOENT;
			goto fail;
		}
	}
	perf_map(be, st);
	st->formulas = set;
	st->user_read = perf_reader() != NULL;
	be->priv = st;
	be->topdown_level = set == TD_FORMULAS_NONE ? 0 : set == TD_FORMULAS_PERF_METRICS_L2 ? 2 : 1;
	be->method = set != TD_FORMULAS_NONE ? td_formulas_desc(set)->method
					     : "perf_event_open group read()";

	size_t len = (size_t)snprintf(be->reason, sizeof(be->reason), "%s; %d group%s, events:",
				      set != TD_FORMULAS_NONE ? why : "counting events with perf_event_open",
				      st->plan.nr_groups, st->plan.nr_groups == 1 ? "" : "s");
	for (int i = 0; i < be->nr_events && len < sizeof(be->reason); i++)
		len += (size_t)snprintf(be->reason + len, sizeof(be->reason) - len, "%s%s",
					i ? "," : " ", be->event_names[i]);
	if (be->nr_events == 0 && len < sizeof(be->reason))
		len += (size_t)snprintf(be->reason + len, sizeof(be->reason) - len, " (none)");
	if (dropped[0] && len < sizeof(be->reason))
		len += (size_t)snprintf(be->reason + len, sizeof(be->reason) - len,
					"; could not schedule: %s", dropped);
	if (td_lost[0] && len < sizeof(be->reason))
		snprintf(be->reason + len, sizeof(be->reason) - len, "%s", td_lost);
	return 0;
fail:
	free(st);
	be->nr_events = 0;
	return rc;
}

static void perf_close_fds(struct td_thread_counters *tc, int n)
{
	for (int i = 0; i < TD_MAX_EVENTS; i++) {
		if (tc->event_pages[i]) {
			munmap(tc->event_pages[i], (size_t)sysconf(_SC_PAGESIZE));
			tc->event_pages[i] = NULL;
		}
	}
	/* Members before their leader. */
	for (int i = n - 1; i >= 0; i--) {
		if (tc->fds[i] >= 0)
			close(tc->fds[i]);
		tc->fds[i] = -1;
	}
}

static int perf_thread_open(struct td_backend *be, struct td_thread_counters *tc)
{
	const struct perf_state *st = be->priv;
	bool excl = be->cfg ? be->cfg->exclude_kernel : true;
	int rc = 0;
	if (!st)
		return -EINVAL;
	for (int i = 0; i < TD_MAX_FDS; i++)
		tc->fds[i] = -1;
	for (int i = 0; i < TD_MAX_EVENTS; i++)
		tc->event_pages[i] = NULL;
	tc->nr_fds = 0;
	for (int g = 0; g < st->plan.nr_groups; g++) {
		int lo = st->plan.group_start[g], hi = st->plan.group_start[g + 1];
		rc = td_events_open_group(st->specs + lo, hi - lo, excl, tc->fds + lo, NULL);
		if (rc)
			goto fail;
		tc->nr_fds = hi;
	}
	for (int g = 0; g < st->plan.nr_groups; g++) {
		rc = td_events_enable_group(tc->fds[st->plan.group_start[g]]);
		if (rc)
			goto fail;
	}
	/* User pages for hardware events only: software events never have a
	 * user-readable counter, and each page costs locked memory. A failed
	 * mmap just means read(2) for that event. */
	if (st->user_read) {
		size_t pg = (size_t)sysconf(_SC_PAGESIZE);
		for (int i = 0; i < be->nr_events; i++) {
			int k = st->visible[i];
			/* Metric events' pages give the raw PERF_METRICS word, not
			 * a count: those are read with read() only. */
			if (td_events_is_software(&st->specs[k]) || st->specs[k].pin)
				continue;
			void *p = mmap(NULL, pg, PROT_READ, MAP_SHARED, tc->fds[k], 0);
			tc->event_pages[i] = p == MAP_FAILED ? NULL : p;
		}
	}
	tc->open = true;
	return 0;
fail:
	perf_close_fds(tc, TD_MAX_FDS);
	tc->nr_fds = 0;
	return rc;
}

/* Reads group g through the user pages when every member has one and the
 * kernel allows it now. false: use read(2). */
static bool perf_read_user(const struct perf_state *st, const struct td_thread_counters *tc,
			   int g, const int *vis_of_spec, uint64_t *vals, uint64_t *en, uint64_t *run)
{
	const struct td_pmu_reader *r = perf_reader();
	int lo = st->plan.group_start[g], hi = st->plan.group_start[g + 1];
	if (!r)
		return false;
	for (int k = lo; k < hi; k++) {
		int v = vis_of_spec[k];
		struct td_pmu_value pv;
		if (v < 0 || !tc->event_pages[v])
			return false;
		if (td_pmu_read_counter(r, tc->event_pages[v], &pv))
			return false;
		vals[k] = td_events_scale(pv.value, pv.enabled, pv.running);
		if (k == lo) {
			*en = pv.enabled;
			*run = pv.running;
		}
	}
	return true;
}

static void perf_read(const struct td_backend *be, struct td_thread_counters *tc,
		      struct td_sample *out, bool self)
{
	const struct perf_state *st = be->priv;
	uint64_t vals[PERF_MAX_SPECS] = { 0 }, raw[PERF_MAX_SPECS];
	int vis_of_spec[PERF_MAX_SPECS];
	out->wall_ns = td_clock_wall_ns();
	out->epoch = tc->epoch;
	out->flags = 0;
	out->time_enabled = out->time_running = 0;
	for (int k = 0; k < PERF_MAX_SPECS; k++)
		vis_of_spec[k] = -1;
	for (int i = 0; i < be->nr_events; i++)
		vis_of_spec[st->visible[i]] = i;
	for (int g = 0; g < st->plan.nr_groups; g++) {
		int lo = st->plan.group_start[g], hi = st->plan.group_start[g + 1];
		uint64_t en = 0, run = 0;
		if (!self || !perf_read_user(st, tc, g, vis_of_spec, vals, &en, &run)) {
			if (td_events_read_group(tc->fds[lo], hi - lo, raw + lo, &en, &run))
				return; /* flags 0: the sample is invalid */
			for (int k = lo; k < hi; k++)
				vals[k] = td_events_scale(raw[k], en, run);
		}
		out->time_enabled += en;
		out->time_running += run;
		if (run == 0 && en > 0)
			out->flags |= TD_SAMPLE_NOT_RUNNING;
	}
	for (int i = 0; i < be->nr_events; i++)
		out->events[i] = vals[st->visible[i]];
	out->slots = st->slots_spec >= 0 ? vals[st->slots_spec] : 0;
	if (st->cpu_spec >= 0) {
		out->cpu_ns = vals[st->cpu_spec];
	} else if (self) {
		out->cpu_ns = td_clock_thread_cpu_ns();
	} else {
		out->cpu_ns = 0;
		out->flags |= TD_SAMPLE_NO_CPU;
	}
	out->flags |= TD_SAMPLE_OK;
}

static void perf_snapshot(const struct td_backend *be, struct td_thread_counters *tc,
			  struct td_sample *out)
{
	perf_read(be, tc, out, true);
}

static int perf_snapshot_foreign(const struct td_backend *be, struct td_thread_counters *tc,
				 struct td_sample *out)
{
	perf_read(be, tc, out, false);
	return out->flags & TD_SAMPLE_OK ? 0 : -EIO;
}

static uint64_t sub0(uint64_t b, uint64_t a) { return b > a ? b - a : 0; }

static void perf_accumulate(const struct td_backend *be, const struct td_sample *a,
			    const struct td_sample *b, struct td_counts *acc)
{
	if (!(a->flags & TD_SAMPLE_OK) || !(b->flags & TD_SAMPLE_OK) || a->epoch != b->epoch) {
		acc->invalid++;
		return;
	}
	if (!(a->flags & TD_SAMPLE_NO_CPU) && !(b->flags & TD_SAMPLE_NO_CPU))
		acc->cpu_ns += sub0(b->cpu_ns, a->cpu_ns);
	acc->wall_ns += sub0(b->wall_ns, a->wall_ns);
	for (int i = 0; i < be->nr_events; i++)
		acc->events[i] += sub0(b->events[i], a->events[i]);
	acc->slots += sub0(b->slots, a->slots);
	acc->time_enabled += sub0(b->time_enabled, a->time_enabled);
	acc->time_running += sub0(b->time_running, a->time_running);
	acc->deltas++;
}

static void perf_thread_close(const struct td_backend *be, struct td_thread_counters *tc)
{
	perf_close_fds(tc, TD_MAX_FDS);
	tc->nr_fds = 0;
	tc->open = false;
}

static void perf_exit(struct td_backend *be)
{
	free(be->priv);
	be->priv = NULL;
}

const struct td_backend_ops td_backend_perf_ops = {
	.name = "perf",
	.probe = perf_probe,
	.thread_open = perf_thread_open,
	.snapshot = perf_snapshot,
	.accumulate = perf_accumulate,
	.reset = NULL,
	.snapshot_foreign = perf_snapshot_foreign,
	.thread_close = perf_thread_close,
	.exit = perf_exit,
};
