/* none backend: counts nothing. Regions still get their calls and call
 * sites; this is the framework's own cost, with counting off. */
#include "td_backend.h"

static int td_none_probe(struct td_backend *be)
{
	be->topdown_level = 0;
	be->no_time = true;
	be->method = "no counters: region calls and call sites only";
	return 0;
}

static int td_none_thread_open(struct td_backend *be, struct td_thread_counters *tc)
{
	tc->open = true;
	return 0;
}

static void td_none_snapshot(const struct td_backend *be, struct td_thread_counters *tc,
			     struct td_sample *out)
{
	out->epoch = tc->epoch;
}

static void td_none_accumulate(const struct td_backend *be, const struct td_sample *a,
			       const struct td_sample *b, struct td_counts *acc)
{
	acc->deltas++;
}

static void td_none_thread_close(const struct td_backend *be, struct td_thread_counters *tc)
{
	tc->open = false;
}

const struct td_backend_ops td_backend_none_ops = {
	.name = "none",
	.probe = td_none_probe,
	.thread_open = td_none_thread_open,
	.snapshot = td_none_snapshot,
	.accumulate = td_none_accumulate,
	.thread_close = td_none_thread_close,
};
