/* td_emu: the emulated perf-metrics PMU (see td_emu.h). */
#include "td_emu.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

/* ---- the emulated PMU -------------------------------------------------- */

static uint64_t td_emu_thread_cpu_ns(void *arg)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static bool td_emu_counting(const struct td_emu *e) { return e->scheduled && !e->ecore; }

/* perf_event_update_userpage: both pages, each bracketed by lock bumps. */
static void td_emu_page_update(struct td_emu *e)
{
	struct perf_event_mmap_page *pg[2] = { &e->leader_pg, &e->metric_pg };
	for (int i = 0; i < 2; i++) {
		pg[i]->lock++;
		__asm__ __volatile__("" ::: "memory");
		pg[i]->index = td_emu_counting(e) ? (i ? TD_PMU_METRICS_INDEX : TD_PMU_SLOTS_INDEX) : 0;
		/* TopDown never sets prev_count, so offset is the whole count. */
		pg[i]->offset = i ? 0 : (int64_t)e->count;
		pg[i]->time_enabled = e->enabled_ns;
		pg[i]->time_running = e->running_ns;
		pg[i]->time_offset = (uint64_t)0 - e->last_ns; /* as of this update */
		__asm__ __volatile__("" ::: "memory");
		pg[i]->lock++;
	}
	for (int i = 0; i < e->nr_events; i++) {
		struct td_emu_event *v = &e->ev[i];
		v->pg.lock++;
		__asm__ __volatile__("" ::: "memory");
		v->pg.index = td_emu_counting(e) ? (uint32_t)i + 1 : 0;
		v->pg.offset = v->count;
		if (v->pg.index)
			v->pg.offset -= (int64_t)v->prev;
		v->pg.time_enabled = e->enabled_ns;
		v->pg.time_running = e->running_ns;
		v->pg.time_offset = (uint64_t)0 - e->last_ns;
		__asm__ __volatile__("" ::: "memory");
		v->pg.lock++;
	}
	e->bumps++;
}

#define TD_EMU_MASK ((UINT64_C(1) << TD_EMU_PMC_WIDTH) - 1)
#define TD_EMU_MAX_PERIOD ((UINT64_C(1) << (TD_EMU_PMC_WIDTH - 1)) - 1)

static int64_t td_emu_sext(uint64_t raw)
{
	return (int64_t)(raw << (64 - TD_EMU_PMC_WIDTH)) >> (64 - TD_EMU_PMC_WIDTH);
}

/* x86_perf_event_update: count += sext(raw) - sext(prev); prev = raw. */
static void td_emu_events_update(struct td_emu *e)
{
	for (int i = 0; i < e->nr_events; i++) {
		struct td_emu_event *v = &e->ev[i];
		v->count += td_emu_sext(v->raw) - td_emu_sext(v->prev);
		v->prev = v->raw;
	}
}

/* x86_perf_event_set_period at sched-in: armed at -left. */
static void td_emu_events_arm(struct td_emu *e)
{
	for (int i = 0; i < e->nr_events; i++) {
		struct td_emu_event *v = &e->ev[i];
		v->prev = (uint64_t)-(int64_t)TD_EMU_MAX_PERIOD;
		v->raw = v->prev & TD_EMU_MASK;
	}
}

/* The kernel folds the raw delta into event->count at every update. */
static void td_emu_update_count(struct td_emu *e)
{
	if (e->hw_slots >= e->seen_slots)
		e->count += e->hw_slots - e->seen_slots;
	e->seen_slots = e->hw_slots;
}

static void td_emu_zero_hw(struct td_emu *e)
{
	e->hw_slots = 0;
	e->hw_metrics = 0;
	memset(e->hw_cat, 0, sizeof(e->hw_cat));
	e->seen_slots = 0;
}

static const double *td_emu_fracs(struct td_emu *e)
{
	if (e->spec->has_thread) {
		char comm[16] = "";
		prctl(PR_GET_NAME, comm, 0, 0, 0);
		if (strcmp(comm, e->comm)) {
			memcpy(e->comm, comm, sizeof(comm));
			e->thread_prof = td_emu_spec_find(e->spec, TD_EMU_THREAD, comm);
		}
	}
	int p = e->region_prof >= 0 ? e->region_prof
		: e->thread_prof >= 0 ? e->thread_prof : e->spec->def;
	return e->spec->prof[p].frac;
}

/* PERF_METRICS from the categories: 8-bit fractions, rounded. */
static void td_emu_quantise(struct td_emu *e)
{
	uint64_t m = 0;
	for (int i = 0; i < TD_EMU_FIELDS; i++) {
		double b = e->hw_slots ? nearbyint(255.0 * e->hw_cat[i] / (double)e->hw_slots) : 0;
		m |= (uint64_t)(b < 0 ? 0 : b > 255 ? 255 : b) << (8 * i);
	}
	e->hw_metrics = m;
}

static void td_emu_settle(struct td_emu *e);

void td_emu_advance(struct td_emu *e)
{
	uint64_t now = e->clock(e->clock_arg);
	uint64_t dns = now > e->last_ns ? now - e->last_ns : 0;
	const double *f = td_emu_fracs(e);
	e->last_ns = now;
	e->enabled_ns += dns;
	if (!td_emu_counting(e) || !dns)
		return;
	e->running_ns += dns;
	for (int i = 0; i < e->nr_events; i++) {
		struct td_emu_event *v = &e->ev[i];
		v->carry += v->rate * (double)dns;
		uint64_t n = (uint64_t)v->carry;
		v->carry -= (double)n;
		v->raw = (v->raw + n) & TD_EMU_MASK;
		v->truth += n;
	}
	uint64_t ds = dns * e->width;
	e->hw_slots += ds;
	e->truth_slots += ds;
	for (int i = 0; i < TD_EMU_FIELDS; i++) {
		e->hw_cat[i] += (double)ds * f[i];
		e->truth[i] += (double)ds * f[i];
	}
	td_emu_quantise(e);
}

void td_emu_init(struct td_emu *e, const struct td_emu_spec *spec, uint64_t width,
		 uint64_t (*clock)(void *arg), void *clock_arg)
{
	memset(e, 0, sizeof(*e));
	e->spec = spec;
	e->width = width ? width : 1;
	e->clock = clock ? clock : td_emu_thread_cpu_ns;
	e->clock_arg = clock_arg;
	e->thread_prof = e->region_prof = -1;
	e->comm[0] = '\x01'; /* forces the first name lookup */
	for (int i = 0; i < 2; i++) {
		struct perf_event_mmap_page *pg = i ? &e->metric_pg : &e->leader_pg;
		pg->version = 0;
		pg->compat_version = 0;
		pg->cap_user_rdpmc = 1;
		pg->cap_user_time = 1;
		pg->time_mult = UINT32_C(1) << 31; /* TSC at 2 GHz: ns = tsc * 2^31 >> 32 */
		pg->time_shift = 32;
		pg->pmc_width = TD_EMU_PMC_WIDTH;
	}
	e->last_ns = e->clock(e->clock_arg);
	/* IOC_ENABLE: first start zeroes the TopDown MSRs (pmu-facts §1.4). */
	e->scheduled = true;
	td_emu_zero_hw(e);
	td_emu_page_update(e);
}

void td_emu_reset(struct td_emu *e)
{
	td_emu_advance(e);
	td_emu_zero_hw(e);
	e->count = 0;
	td_emu_events_update(e); /* _perf_event_reset: a read, then count = 0 */
	for (int i = 0; i < e->nr_events; i++)
		e->ev[i].count = 0;
	e->resets++;
	td_emu_page_update(e);
}

void td_emu_sched_out(struct td_emu *e)
{
	td_emu_advance(e);
	if (!e->scheduled)
		return;
	td_emu_update_count(e);
	td_emu_events_update(e);
	e->scheduled = false; /* raw values stay saved in hw_* */
	td_emu_page_update(e);
}

void td_emu_sched_in(struct td_emu *e)
{
	td_emu_advance(e);
	if (e->scheduled)
		return;
	e->scheduled = true; /* restore: the saved raw values, not zero */
	td_emu_events_arm(e);
	td_emu_page_update(e);
}

void td_emu_context_switch(struct td_emu *e)
{
	td_emu_sched_out(e);
	td_emu_sched_in(e);
	e->switches++;
}

void td_emu_pmi(struct td_emu *e)
{
	td_emu_advance(e);
	td_emu_update_count(e);
	td_emu_zero_hw(e); /* no page update: lock does not move */
	e->pmis++;
}

void td_emu_migrate(struct td_emu *e, bool to_ecore)
{
	td_emu_advance(e);
	if (e->ecore == to_ecore)
		return;
	/* The cpu_core group is filtered out on an E-core: scheduled out,
	 * index 0, saved values restored when it comes back. */
	if (to_ecore) {
		td_emu_update_count(e);
		td_emu_events_update(e);
	} else {
		td_emu_events_arm(e);
	}
	e->ecore = to_ecore;
	e->migrations++;
	td_emu_page_update(e);
}

/* Moves ds slots of truth (and of the hardware's categories, when no reset
 * intervened) from fractions `from` to fractions `to`. */
static void td_emu_reattribute(struct td_emu *e, uint64_t ds, const double *from, const double *to,
			       bool hw)
{
	for (int i = 0; i < TD_EMU_FIELDS; i++) {
		double d = (double)ds * (to[i] - from[i]);
		e->truth[i] += d;
		if (hw)
			e->hw_cat[i] += d;
	}
	td_emu_quantise(e);
}

void td_emu_region(struct td_emu *e, const char *region_name)
{
	td_emu_advance(e); /* slots so far: the previous profile, for now */
	td_emu_settle(e);  /* an unsettled earlier switch is decided first */
	const double *from = td_emu_fracs(e);
	e->region_prof = td_emu_spec_find(e->spec, TD_EMU_REGION, region_name);
	const double *to = td_emu_fracs(e);
	if (from == to)
		return;
	e->pend.active = true;
	e->pend.from = from;
	e->pend.to = to;
	e->pend.call_ns = e->last_ns;
	e->pend.call_slots = e->truth_slots;
	e->pend.call_resets = e->resets;
}

/* A profile switch takes effect at the emulated read nearest to the call:
 * the caller announces a region right before its entry snapshot and right
 * after its exit snapshot, so the nearest read is the region's boundary and
 * tdprobe's own bookkeeping around it is not billed to the wrong side. */
static void td_emu_settle(struct td_emu *e)
{
	if (!e->pend.active)
		return;
	e->pend.active = false;
	uint64_t gap_before = e->pend.call_ns - e->read_ns;
	uint64_t gap_after = e->last_ns - e->pend.call_ns;
	if (gap_before <= gap_after) {
		/* Effective at the previous read: [read, call] becomes `to`. */
		bool hw = e->resets == e->read_resets;
		td_emu_reattribute(e, e->pend.call_slots - e->read_slots, e->pend.from, e->pend.to,
				   hw);
	} else {
		/* Effective at this read: [call, now] stays `from`. */
		bool hw = e->resets == e->pend.call_resets;
		td_emu_reattribute(e, e->truth_slots - e->pend.call_slots, e->pend.to, e->pend.from,
				   hw);
	}
}

/* Injected events that land on this read (sim counters). */
static void td_emu_inject(struct td_emu *e)
{
	const struct td_emu_sim *s = &e->spec->sim;
	e->reads++;
	if (s->pmi && e->reads % s->pmi == 0)
		td_emu_pmi(e);
	if (s->bump && e->reads % s->bump == 0) {
		td_emu_advance(e);
		td_emu_page_update(e);
	}
	if (s->sw && e->reads % s->sw == 0)
		td_emu_context_switch(e);
	if (s->ecore && e->reads % s->ecore == 0)
		td_emu_migrate(e, true);
}

struct perf_event_mmap_page *td_emu_add_event(struct td_emu *e, double rate)
{
	if (e->nr_events >= TD_EMU_MAX_EVENTS)
		return NULL;
	td_emu_advance(e);
	struct td_emu_event *v = &e->ev[e->nr_events++];
	memset(v, 0, sizeof(*v));
	v->rate = rate;
	v->pg.cap_user_rdpmc = 1;
	v->pg.pmc_width = TD_EMU_PMC_WIDTH;
	v->pg.cap_user_time = 1;
	v->pg.time_mult = UINT32_C(1) << 31;
	v->pg.time_shift = 32;
	v->prev = (uint64_t)-(int64_t)TD_EMU_MAX_PERIOD;
	v->raw = v->prev & TD_EMU_MASK;
	td_emu_page_update(e);
	return &v->pg;
}

void td_emu_tick(struct td_emu *e)
{
	if (e->ecore && e->spec->sim.ecore)
		td_emu_migrate(e, false); /* an injected E-core stay lasts one snapshot */
	td_emu_advance(e);
}

static uint64_t td_emu_exec(struct td_emu *e, uint32_t idx)
{
	td_emu_advance(e);
	td_emu_settle(e);
	e->read_ns = e->last_ns;
	e->read_slots = e->truth_slots;
	e->read_resets = e->resets;
	if (idx == TD_PMU_SLOTS_INDEX)
		return e->hw_slots & ((UINT64_C(1) << TD_EMU_PMC_WIDTH) - 1);
	if (idx == TD_PMU_METRICS_INDEX)
		return e->hw_metrics;
	if (idx >= 1 && idx <= (uint32_t)e->nr_events)
		return e->ev[idx - 1].raw;
	return 0; /* no other counter exists here */
}

uint64_t td_emu_read_counter(void *ctx, uint32_t idx)
{
	struct td_emu *e = ctx;
	td_emu_inject(e);
	if (e->ecore && (idx == TD_PMU_SLOTS_INDEX || idx == TD_PMU_METRICS_INDEX)) {
		e->faults++; /* #GP -> SIGSEGV on real hardware */
		return UINT64_C(0xdeadbeefdeadbeef);
	}
	return td_emu_exec(e, idx);
}

int td_emu_read_checked(void *ctx, uint32_t idx, uint64_t *val)
{
	struct td_emu *e = ctx;
	td_emu_inject(e);
	if (e->ecore) {
		e->refusals++;
		return -EFAULT;
	}
	*val = td_emu_exec(e, idx);
	return 0;
}

uint64_t td_emu_read_time(void *ctx)
{
	const struct td_emu *e = ctx;
	return 2 * e->last_ns; /* emulated time moves at emulated instructions */
}

struct td_pmu_reader td_emu_reader(struct td_emu *e)
{
	return (struct td_pmu_reader){
		.read_counter = td_emu_read_counter,
		.read_checked = td_emu_read_checked,
		.ctx = e,
		.read_time = td_emu_read_time,
	};
}
