/* td_series: per-thread time series ([output] interval_ms). Implemented in
 * td_series.c; weak here so the thread code builds without it. */
#ifndef TD_SERIES_H
#define TD_SERIES_H

#include "td_collector.h"
#include "td_json.h"

void td_series_thread_start(struct td_collector *c, struct td_thread *t) __attribute__((weak));
void td_series_thread_end(struct td_collector *c, struct td_thread *t) __attribute__((weak));
void td_series_sample(struct td_collector *c, struct td_thread *t) __attribute__((weak));
/* td_series_sample with a snapshot the caller already took on this thread
 * (region enter/exit), so a boundary point costs no second counter read.
 * Both: owning thread, t->guard held; at most one point per 1/8 interval. */
void td_series_sample_at(struct td_collector *c, struct td_thread *t, const struct td_sample *now)
	__attribute__((weak));
void td_series_json(const struct td_collector *c, const struct td_thread *t, struct td_json *j)
	__attribute__((weak));

#endif
