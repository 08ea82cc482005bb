/* td_metrics: turns accumulated td_counts into the report's "metrics"
 * object: times, slots, TopDown fractions (normalised by the sum of the
 * four level-1 slot counts, as perf does), the slot counts themselves (so
 * reports merge exactly), the error bound and extra events. */
#ifndef TD_METRICS_H
#define TD_METRICS_H

#include "td_backend.h"
#include "td_counts.h"
#include "td_json.h"

/* Fraction of node n over the level-1 sum; NAN when there are no slots. */
double td_metrics_fraction(const struct td_counts *c, int node);
/* Error bound of the fractions in percentage points; NAN without slots. */
double td_metrics_error_pp(const struct td_counts *c);
/* Writes a "metrics" object body (caller wrote the key) for be's capabilities. */
void td_metrics_json(const struct td_backend *be, const struct td_counts *c, struct td_json *j);

#endif
