/* td_series: per-thread time series ([output] interval_ms). Implemented in
 * td_series.c; weak here so the thread code builds without it. */
#ifndef TD_SERIES_H
#define TD_SERIES_H

#include "td_collector.h"
#include "td_json.h"

void td_series_thread_start(struct td_collector *c, struct td_thread *t) __attribute__((weak));
void td_series_thread_end(struct td_collector *c, struct td_thread *t) __attribute__((weak));
void td_series_sample(struct td_collector *c, struct td_thread *t) __attribute__((weak));
void td_series_json(const struct td_collector *c, const struct td_thread *t, struct td_json *j)
	__attribute__((weak));

#endif
