/* td_backend_emulate: the rdpmc backend's snapshot and accumulate, run
 * against td_emu instead of the hardware. Every figure it produces is
 * labelled "emulated PMU" (be->emulated, reason, method). */
#include "td_backend.h"
#include "td_backend_rdpmc.h"
#include "td_config.h"
#include "td_emu.h"
#include "td_events.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

static int td_emulate_probe(struct td_backend *be)
{
	char err[160] = "";
	struct td_emu_spec *spec = malloc(sizeof(*spec));
	be->emulated = true;
	if (!spec) {
		snprintf(be->reason, sizeof(be->reason), "emulated PMU: out of memory");
		return -ENOMEM;
	}
	int rc = td_emu_spec_parse(spec, be->cfg ? be->cfg->emulate_fractions : NULL, err,
				   sizeof(err));
	if (rc) {
		free(spec);
		snprintf(be->reason, sizeof(be->reason), "emulated PMU: [emulate] fractions: %s",
			 err);
		return rc;
	}
	if (be->cfg && be->cfg->events && be->cfg->events[0]) {
		struct td_event_spec ev[TD_MAX_EVENTS];
		int n = 0;
		rc = td_events_parse_list(be->cfg->events, "[counters] events", NULL, ev, &n,
					  TD_MAX_EVENTS, err, sizeof(err));
		if (rc) {
			free(spec);
			snprintf(be->reason, sizeof(be->reason), "emulated PMU: %s", err);
			return rc;
		}
		be->nr_events = n;
		for (int i = 0; i < n; i++)
			snprintf(be->event_names[i], sizeof(be->event_names[i]), "%s", ev[i].name);
	}
	be->priv = spec;
	be->topdown_level = be->cfg && be->cfg->topdown_level < 2 ? 1 : 2;
	be->method = be->topdown_level == 2 ? "perf-metrics L2 via rdpmc (emulated PMU)"
					    : "perf-metrics L1 via rdpmc (emulated PMU)";
	snprintf(be->reason, sizeof(be->reason),
		 "emulated PMU (asked for): TopDown from configured fractions, %lu slots/ns, not "
		 "measured",
		 be->cfg ? be->cfg->emulate_width : 4ul);
	return 0;
}

static int td_emulate_thread_open(struct td_backend *be, struct td_thread_counters *tc)
{
	struct td_emu *e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	td_emu_init(e, be->priv, be->cfg ? be->cfg->emulate_width : 4, NULL, NULL);
	for (int i = 0; i < TD_MAX_FDS; i++)
		tc->fds[i] = -1;
	/* No fds; nr_fds counts the emulated group members (leader, metric,
	 * extra events) as the shared sample code expects. */
	tc->nr_fds = 2;
	for (int i = 0; i < be->nr_events && i < TD_MAX_EVENTS; i++) {
		tc->event_pages[i] = td_emu_add_event(e, td_emu_spec_rate(be->priv, be->event_names[i]));
		tc->nr_fds++;
	}
	tc->priv = e;
	tc->page = &e->leader_pg;
	tc->open = true;
	return 0;
}

static void td_emulate_snapshot(const struct td_backend *be, struct td_thread_counters *tc,
				struct td_sample *out)
{
	struct td_emu *e = tc->priv;
	if (!e) {
		*out = (struct td_sample){ .flags = TD_SAMPLE_NO_CPU, .epoch = tc->epoch };
		return;
	}
	td_emu_tick(e);
	struct td_pmu_reader r = td_emu_reader(e);
	td_backend_rdpmc_sample(&r, &e->leader_pg, &e->metric_pg, tc, out);
}

static int td_emulate_reset(const struct td_backend *be, struct td_thread_counters *tc)
{
	struct td_emu *e = tc->priv;
	if (!e)
		return -EBADF;
	td_emu_reset(e);
	tc->epoch++;
	return 0;
}

/* As on hardware, another thread cannot read this thread's counters with
 * the user-space path; the group read(2) would carry only one metric
 * sibling's count, so a still-running thread's last segment is dropped. */
static int td_emulate_snapshot_foreign(const struct td_backend *be,
				       struct td_thread_counters *tc, struct td_sample *out)
{
	return -EOPNOTSUPP;
}

static void td_emulate_thread_close(const struct td_backend *be, struct td_thread_counters *tc)
{
	free(tc->priv);
	tc->priv = NULL;
	tc->page = NULL;
	for (int i = 0; i < TD_MAX_EVENTS; i++)
		tc->event_pages[i] = NULL;
	tc->nr_fds = 0;
	tc->open = false;
}

static void td_emulate_exit(struct td_backend *be)
{
	free(be->priv);
	be->priv = NULL;
}

void td_emu_set_region(const struct td_backend *be, struct td_thread_counters *tc,
		       const char *region_name)
{
	if (!be || be->ops != &td_backend_emulate_ops || !tc || !tc->priv)
		return;
	td_emu_region(tc->priv, region_name);
}

const struct td_backend_ops td_backend_emulate_ops = {
	.name = "emulate",
	.probe = td_emulate_probe,
	.thread_open = td_emulate_thread_open,
	.snapshot = td_emulate_snapshot,
	.accumulate = td_backend_rdpmc_accumulate,
	.reset = td_emulate_reset,
	.snapshot_foreign = td_emulate_snapshot_foreign,
	.thread_close = td_emulate_thread_close,
	.exit = td_emulate_exit,
};
