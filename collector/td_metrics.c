#include "td_metrics.h"

#include <math.h>
#include <string.h>

/* Generic-event backends turn event counts into node slot counts here
 * (collector/td_formulas.c); weak so this file stands alone. */
void td_formulas_apply(const struct td_backend *be, struct td_counts *c) __attribute__((weak));

/* All slots the categories share: the four level-1 nodes, plus the SMT
 * contention slots of AMD's five-category model. */
static uint64_t td_metrics_l1_sum(const struct td_counts *c)
{
	uint64_t sum = c->smt_slots;
	for (int i = 0; i < TD_L1_NODES; i++)
		sum += c->node[i];
	return sum;
}

double td_metrics_fraction(const struct td_counts *c, int node)
{
	uint64_t sum = td_metrics_l1_sum(c);
	if (sum == 0)
		return NAN;
	return (double)c->node[node] / (double)sum;
}

double td_metrics_error_pp(const struct td_counts *c)
{
	uint64_t sum = td_metrics_l1_sum(c);
	if (sum == 0)
		return NAN;
	return 100.0 * (double)c->err_slots / (double)sum;
}

static int td_metrics_event_index(const struct td_backend *be, const char *name)
{
	for (int i = 0; i < be->nr_events; i++)
		if (strcmp(be->event_names[i], name) == 0)
			return i;
	return -1;
}

void td_metrics_json(const struct td_backend *be, const struct td_counts *in, struct td_json *j)
{
	struct td_counts c = *in;
	if (td_formulas_apply)
		td_formulas_apply(be, &c);

	td_json_object_begin(j);
	if (be->no_time) {
		td_json_key(j, "cpu_ns");
		td_json_null(j);
		td_json_key(j, "wall_ns");
		td_json_null(j);
	} else {
		if (c.no_cpu) { /* some deltas had no CPU time: no made-up figure */
			td_json_key(j, "cpu_ns");
			td_json_null(j);
		} else {
			td_json_kv_uint(j, "cpu_ns", c.cpu_ns);
		}
		td_json_kv_uint(j, "wall_ns", c.wall_ns);
	}
	if (be->topdown_level > 0) {
		int nodes = be->topdown_level >= 2 ? TD_NODE_COUNT : TD_L1_NODES;
		td_json_kv_uint(j, "slots", c.slots);
		/* Fractions of all slots; null (never a made-up 0) without slots. */
		for (int i = 0; i < nodes; i++)
			td_json_kv_double(j, td_node_names[i], td_metrics_fraction(&c, i));
		td_json_key(j, "slot_counts");
		td_json_object_begin(j);
		for (int i = 0; i < nodes; i++)
			td_json_kv_uint(j, td_node_names[i], c.node[i]);
		td_json_object_end(j);
		if (c.smt_slots) {
			td_json_kv_double(j, "smt_contention",
					  (double)c.smt_slots / (double)td_metrics_l1_sum(&c));
			td_json_key(j, "smt_contention_slots");
			td_json_uint(j, c.smt_slots);
		}
		td_json_kv_uint(j, "error_slots", c.err_slots);
		td_json_kv_double(j, "error_pp", td_metrics_error_pp(&c));
	}
	if (be->nr_events > 0) {
		td_json_key(j, "events");
		td_json_object_begin(j);
		for (int i = 0; i < be->nr_events; i++)
			td_json_kv_uint(j, be->event_names[i], c.events[i]);
		td_json_object_end(j);
		int ins = td_metrics_event_index(be, "instructions");
		int cyc = td_metrics_event_index(be, "cycles");
		if (ins >= 0 && cyc >= 0)
			td_json_kv_double(j, "ipc", c.events[cyc] ? (double)c.events[ins] / (double)c.events[cyc] : NAN);
	}
	if (c.time_enabled) {
		td_json_kv_uint(j, "time_enabled_ns", c.time_enabled);
		td_json_kv_uint(j, "time_running_ns", c.time_running);
		/* Multiplexed or never scheduled: the counts are an estimate or absent. */
		if (c.time_running == 0)
			td_json_kv_string(j, "counting", "never ran");
		else if (c.time_running < c.time_enabled)
			td_json_kv_string(j, "counting", "scaled");
	}
	td_json_kv_uint(j, "deltas", c.deltas);
	td_json_kv_uint(j, "invalid_deltas", c.invalid);
	td_json_object_end(j);
}
