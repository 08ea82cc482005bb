#include "td_topdown.h"

#include <math.h>

/* Hardware byte i -> report node. */
static const int td_topdown_hw_node[TD_TOPDOWN_FIELDS] = {
	TD_RETIRING,	     TD_BAD_SPECULATION,    TD_FRONTEND_BOUND, TD_BACKEND_BOUND,
	TD_HEAVY_OPERATIONS, TD_BRANCH_MISPREDICTS, TD_FETCH_LATENCY,  TD_MEMORY_BOUND,
};

static uint64_t sub0(uint64_t a, uint64_t b) { return a > b ? a - b : 0; }

void td_topdown_slot_counts(uint64_t slots, uint64_t metrics, int nfields, uint64_t *s)
{
	for (int i = 0; i < nfields; i++)
		s[i] = (uint64_t)((unsigned __int128)slots * td_topdown_byte(metrics, i) / 255u);
}

uint64_t td_topdown_err_slots(uint64_t slots_a, uint64_t slots_b)
{
	/* One LSB of each snapshot's byte, rounded up, plus one slot per
	 * snapshot lost by the integer division in s_i. */
	unsigned __int128 sum = (unsigned __int128)slots_a + slots_b;
	return (uint64_t)((sum + 254u) / 255u) + 2u;
}

static bool td_topdown_readable(const struct td_sample *s)
{
	return (s->flags & TD_SAMPLE_OK) && !(s->flags & TD_SAMPLE_NOT_RUNNING);
}

enum td_topdown_invalid td_topdown_check(const struct td_sample *a, const struct td_sample *b)
{
	if (!td_topdown_readable(a) || !td_topdown_readable(b))
		return TD_TOPDOWN_UNREADABLE;
	if (a->epoch != b->epoch)
		return TD_TOPDOWN_EPOCH;
	if (b->slots < a->slots)
		return TD_TOPDOWN_BACKWARDS;
	return TD_TOPDOWN_VALID;
}

static void td_topdown_times(const struct td_sample *a, const struct td_sample *b,
			     struct td_counts *d)
{
	d->wall_ns = sub0(b->wall_ns, a->wall_ns);
	if (!((a->flags | b->flags) & TD_SAMPLE_NO_CPU))
		d->cpu_ns = sub0(b->cpu_ns, a->cpu_ns);
	d->time_enabled = sub0(b->time_enabled, a->time_enabled);
	d->time_running = sub0(b->time_running, a->time_running);
}

enum td_topdown_invalid td_topdown_delta(const struct td_sample *a, const struct td_sample *b,
					 int level, struct td_counts *d)
{
	*d = (struct td_counts){ 0 };
	td_topdown_times(a, b, d);
	enum td_topdown_invalid why = td_topdown_check(a, b);
	if (why != TD_TOPDOWN_VALID) {
		d->invalid = 1;
		return why;
	}
	int nf = level >= 2 ? TD_TOPDOWN_FIELDS : TD_L1_NODES;
	uint64_t sa[TD_TOPDOWN_FIELDS], sb[TD_TOPDOWN_FIELDS];
	td_topdown_slot_counts(a->slots, a->metrics, nf, sa);
	td_topdown_slot_counts(b->slots, b->metrics, nf, sb);
	for (int i = 0; i < nf; i++)
		d->node[td_topdown_hw_node[i]] = sub0(sb[i], sa[i]);
	if (level >= 2) {
		uint64_t *n = d->node;
		n[TD_LIGHT_OPERATIONS] = sub0(n[TD_RETIRING], n[TD_HEAVY_OPERATIONS]);
		n[TD_MACHINE_CLEARS] = sub0(n[TD_BAD_SPECULATION], n[TD_BRANCH_MISPREDICTS]);
		n[TD_FETCH_BANDWIDTH] = sub0(n[TD_FRONTEND_BOUND], n[TD_FETCH_LATENCY]);
		n[TD_CORE_BOUND] = sub0(n[TD_BACKEND_BOUND], n[TD_MEMORY_BOUND]);
	}
	d->slots = b->slots - a->slots;
	d->err_slots = td_topdown_err_slots(a->slots, b->slots);
	d->deltas = 1;
	return TD_TOPDOWN_VALID;
}

void td_topdown_accumulate(const struct td_sample *a, const struct td_sample *b, int level,
			   struct td_counts *acc)
{
	struct td_counts d;
	td_topdown_delta(a, b, level, &d);
	td_counts_add(acc, &d);
}

static uint64_t td_topdown_l1_sum(const struct td_counts *c)
{
	uint64_t sum = 0;
	for (int i = 0; i < TD_L1_NODES; i++)
		sum += c->node[i];
	return sum;
}

double td_topdown_fraction(const struct td_counts *c, int node)
{
	uint64_t sum = td_topdown_l1_sum(c);
	if (!sum || node < 0 || node >= TD_NODE_COUNT)
		return NAN;
	return (double)c->node[node] / (double)sum;
}

double td_topdown_error_pp(const struct td_counts *c)
{
	uint64_t sum = td_topdown_l1_sum(c);
	if (!sum)
		return NAN;
	return 100.0 * (double)c->err_slots / (double)sum;
}

void td_topdown_policy_init(struct td_topdown_policy *p, const struct td_config *cfg)
{
	p->policy = cfg->reset_policy;
	p->threshold_slots = cfg->reset_threshold;
	p->interval_ns = (uint64_t)cfg->reset_interval_ms * 1000000u;
}

bool td_topdown_should_reset(const struct td_topdown_policy *p, uint64_t slots_since_reset,
			     uint64_t ns_since_reset, bool at_outermost_boundary)
{
	if (!at_outermost_boundary)
		return false;
	switch (p->policy) {
	case TD_RESET_OUTERMOST:
		return slots_since_reset >= p->threshold_slots;
	case TD_RESET_INTERVAL:
		return ns_since_reset >= p->interval_ns;
	case TD_RESET_NEVER:
	default:
		return false;
	}
}
