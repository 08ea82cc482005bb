/* td_rep_metrics: exact merging of report metrics through slot counts. */
#include "td_rep.h"

#include <string.h>

const char *const td_rep_node_json[TD_NODE_COUNT] = {
	"retiring", "bad_speculation", "frontend_bound", "backend_bound",
	"heavy_operations", "light_operations", "branch_mispredicts", "machine_clears",
	"fetch_latency", "fetch_bandwidth", "memory_bound", "core_bound",
};

const char *const td_rep_node_tma[TD_NODE_COUNT] = {
	"tma_retiring", "tma_bad_speculation", "tma_frontend_bound", "tma_backend_bound",
	"tma_heavy_operations", "tma_light_operations", "tma_branch_mispredicts",
	"tma_machine_clears", "tma_fetch_latency", "tma_fetch_bandwidth", "tma_memory_bound",
	"tma_core_bound",
};

const int td_rep_node_parent[TD_NODE_COUNT] = {
	TD_RETIRING, TD_BAD_SPECULATION, TD_FRONTEND_BOUND, TD_BACKEND_BOUND,
	TD_RETIRING, TD_RETIRING, TD_BAD_SPECULATION, TD_BAD_SPECULATION,
	TD_FRONTEND_BOUND, TD_FRONTEND_BOUND, TD_BACKEND_BOUND, TD_BACKEND_BOUND,
};

#define TD_L1_MASK 0xfu
#define TD_L2_MASK (((1u << TD_NODE_COUNT) - 1) & ~TD_L1_MASK)

void td_rep_metrics_zero(struct td_rep_metrics *m)
{
	memset(m, 0, sizeof(*m));
}

void td_rep_metrics_add(struct td_rep_metrics *acc, const struct td_rep_metrics *add)
{
	if (acc->parts == 0) {
		unsigned parts = add->parts ? add->parts : 1;
		*acc = *add;
		acc->parts = parts;
		return;
	}
	acc->has_cpu = acc->has_cpu && add->has_cpu;
	acc->cpu_ns += add->cpu_ns;
	acc->has_wall = acc->has_wall && add->has_wall;
	acc->wall_ns += add->wall_ns;
	acc->has_slots = acc->has_slots && add->has_slots;
	acc->slots += add->slots;
	acc->count_mask &= add->count_mask;
	for (int n = 0; n < TD_NODE_COUNT; n++)
		acc->count[n] += add->count[n];
	acc->has_err_slots = acc->has_err_slots && add->has_err_slots;
	acc->err_slots += add->err_slots;
	/* Fractions of a sum come only from summed counts (finish). */
	acc->frac_mask = 0;
	/* Each part's fractions are within error_pp of the truth, and a merged
	 * fraction is a slot-weighted mean of them, so the largest bound holds. */
	if (acc->has_err && add->has_err) {
		if (add->error_pp > acc->error_pp)
			acc->error_pp = add->error_pp;
	} else {
		acc->has_err = false;
	}
	acc->has_ipc = false;
	/* Events: only those every part counted. */
	int kept = 0;
	for (int i = 0; i < acc->nr_events; i++) {
		uint64_t v;
		if (!td_rep_metrics_event(add, acc->event_name[i], &v))
			continue;
		acc->event_name[kept] = acc->event_name[i];
		acc->event[kept] = acc->event[i] + v;
		kept++;
	}
	acc->nr_events = kept;
	acc->parts += add->parts ? add->parts : 1;
}

uint64_t td_rep_metrics_l1_sum(const struct td_rep_metrics *m)
{
	if ((m->count_mask & TD_L1_MASK) != TD_L1_MASK)
		return 0;
	uint64_t s = 0;
	for (int n = 0; n < TD_L1_NODES; n++)
		s += m->count[n];
	return s;
}

void td_rep_metrics_finish(struct td_rep_metrics *m)
{
	uint64_t sum = td_rep_metrics_l1_sum(m);

	if (sum) {
		m->frac_mask = m->count_mask;
		for (int n = 0; n < TD_NODE_COUNT; n++)
			m->frac[n] = (m->count_mask >> n) & 1 ? (double)m->count[n] / (double)sum : 0;
		/* The writer's bound: error slots over the level-1 sum. */
		if (m->has_err_slots) {
			m->has_err = true;
			m->error_pp = 100.0 * (double)m->err_slots / (double)sum;
		}
	} else if (m->parts > 1) {
		m->frac_mask = 0;
	}
	uint64_t ins, cyc;
	if (td_rep_metrics_event(m, "instructions", &ins) &&
	    td_rep_metrics_event(m, "cycles", &cyc) && cyc) {
		m->has_ipc = true;
		m->ipc = (double)ins / (double)cyc;
	}
}

int td_rep_metrics_level(const struct td_rep_metrics *m)
{
	if ((m->frac_mask & TD_L1_MASK) != TD_L1_MASK)
		return 0;
	return (m->frac_mask & TD_L2_MASK) == TD_L2_MASK ? 2 : 1;
}

int td_rep_metrics_dominant(const struct td_rep_metrics *m, int level)
{
	int lo = level == 2 ? TD_L1_NODES : 0, hi = level == 2 ? TD_NODE_COUNT : TD_L1_NODES;
	int best = -1;

	if (td_rep_metrics_level(m) < level)
		return -1;
	for (int n = lo; n < hi; n++)
		if (best < 0 || m->frac[n] > m->frac[best])
			best = n;
	return best;
}

bool td_rep_metrics_event(const struct td_rep_metrics *m, const char *name, uint64_t *out)
{
	for (int i = 0; i < m->nr_events; i++) {
		if (strcmp(m->event_name[i], name) == 0) {
			*out = m->event[i];
			return true;
		}
	}
	return false;
}
