#include "td_counts.h"

const char *const td_node_names[TD_NODE_COUNT] = {
	"retiring",	     "bad_speculation",	 "frontend_bound", "backend_bound",
	"heavy_operations",  "light_operations", "branch_mispredicts",
	"machine_clears",    "fetch_latency",	 "fetch_bandwidth", "memory_bound",
	"core_bound",
};

static uint64_t sub0(uint64_t a, uint64_t b) { return a > b ? a - b : 0; }

void td_counts_add(struct td_counts *acc, const struct td_counts *add)
{
	acc->cpu_ns += add->cpu_ns;
	acc->wall_ns += add->wall_ns;
	acc->slots += add->slots;
	for (int i = 0; i < TD_NODE_COUNT; i++)
		acc->node[i] += add->node[i];
	for (int i = 0; i < TD_MAX_EVENTS; i++)
		acc->events[i] += add->events[i];
	acc->smt_slots += add->smt_slots;
	acc->err_slots += add->err_slots;
	acc->time_enabled += add->time_enabled;
	acc->time_running += add->time_running;
	acc->deltas += add->deltas;
	acc->invalid += add->invalid;
	acc->no_cpu += add->no_cpu;
}

void td_counts_sub_clamped(struct td_counts *out, const struct td_counts *a,
			   const struct td_counts *b)
{
	out->cpu_ns = sub0(a->cpu_ns, b->cpu_ns);
	out->wall_ns = sub0(a->wall_ns, b->wall_ns);
	out->slots = sub0(a->slots, b->slots);
	for (int i = 0; i < TD_NODE_COUNT; i++)
		out->node[i] = sub0(a->node[i], b->node[i]);
	for (int i = 0; i < TD_MAX_EVENTS; i++)
		out->events[i] = sub0(a->events[i], b->events[i]);
	out->smt_slots = sub0(a->smt_slots, b->smt_slots);
	/* Errors do not cancel: the exclusive figure carries both bounds. */
	out->err_slots = a->err_slots + b->err_slots;
	out->time_enabled = sub0(a->time_enabled, b->time_enabled);
	out->time_running = sub0(a->time_running, b->time_running);
	out->deltas = a->deltas;
	out->invalid = a->invalid;
	out->no_cpu = a->no_cpu;
}
