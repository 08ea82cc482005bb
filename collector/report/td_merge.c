/* td_merge: rows and totals from loaded reports. Every sum goes through
 * td_rep_metrics_add/finish, so totals are exact sums of the parts. */
#include "td_merge.h"

#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int td_merge_parse_by(const char *s, enum td_merge_by *out)
{
	static const char *const names[] = { "thread", "region", "callsite", "process" };

	for (int i = 0; i < 4; i++) {
		if (strcmp(s, names[i]) == 0) {
			*out = (enum td_merge_by)i;
			return 0;
		}
	}
	return -EINVAL;
}

/* Sort key: what to compare. */
enum td_sort_kind { TD_SORT_CPU, TD_SORT_WALL, TD_SORT_SLOTS, TD_SORT_CALLS, TD_SORT_NAME,
		    TD_SORT_TID, TD_SORT_PID, TD_SORT_NODE };

static int td_merge_sort_key(const char *key, enum td_sort_kind *kind, int *node)
{
	static const struct {
		const char *name;
		enum td_sort_kind kind;
	} keys[] = {
		{ "cpu", TD_SORT_CPU }, { "cpu_ns", TD_SORT_CPU }, { "wall", TD_SORT_WALL },
		{ "wall_ns", TD_SORT_WALL }, { "slots", TD_SORT_SLOTS }, { "calls", TD_SORT_CALLS },
		{ "name", TD_SORT_NAME }, { "tid", TD_SORT_TID }, { "pid", TD_SORT_PID },
	};

	*node = -1;
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		if (strcmp(key, keys[i].name) == 0) {
			*kind = keys[i].kind;
			return 0;
		}
	}
	for (int n = 0; n < TD_NODE_COUNT; n++) {
		if (strcmp(key, td_rep_node_json[n]) == 0 || strcmp(key, td_rep_node_tma[n]) == 0) {
			*kind = TD_SORT_NODE;
			*node = n;
			return 0;
		}
	}
	return -EINVAL;
}

int td_merge_check_sort(const char *key)
{
	enum td_sort_kind k;
	int n;
	return td_merge_sort_key(key, &k, &n);
}

static enum td_sort_kind td_sort_kind_cur;
static int td_sort_node_cur;

/* Numbers sort descending (biggest first, like perf report), names and ids
 * ascending; rows lacking the figure go last. Ties keep a stable order by
 * pid, tid, name. */
static int td_merge_cmp(const void *pa, const void *pb)
{
	const struct td_row *a = pa, *b = pb;
	int r = 0;

	switch (td_sort_kind_cur) {
	case TD_SORT_CPU:
		if (a->m.has_cpu != b->m.has_cpu)
			return a->m.has_cpu ? -1 : 1;
		r = a->m.cpu_ns < b->m.cpu_ns ? 1 : a->m.cpu_ns > b->m.cpu_ns ? -1 : 0;
		break;
	case TD_SORT_WALL:
		if (a->m.has_wall != b->m.has_wall)
			return a->m.has_wall ? -1 : 1;
		r = a->m.wall_ns < b->m.wall_ns ? 1 : a->m.wall_ns > b->m.wall_ns ? -1 : 0;
		break;
	case TD_SORT_SLOTS: {
		uint64_t sa = td_rep_metrics_l1_sum(&a->m), sb = td_rep_metrics_l1_sum(&b->m);
		r = sa < sb ? 1 : sa > sb ? -1 : 0;
		break;
	}
	case TD_SORT_CALLS:
		r = a->calls < b->calls ? 1 : a->calls > b->calls ? -1 : 0;
		break;
	case TD_SORT_NAME:
		r = strcmp(a->name ? a->name : "", b->name ? b->name : "");
		break;
	case TD_SORT_TID:
		r = a->tid < b->tid ? -1 : a->tid > b->tid;
		break;
	case TD_SORT_PID:
		r = a->pid < b->pid ? -1 : a->pid > b->pid;
		break;
	case TD_SORT_NODE: {
		int n = td_sort_node_cur;
		bool ha = (a->m.frac_mask >> n) & 1, hb = (b->m.frac_mask >> n) & 1;
		if (ha != hb)
			return ha ? -1 : 1;
		if (ha)
			r = a->m.frac[n] < b->m.frac[n] ? 1 : a->m.frac[n] > b->m.frac[n] ? -1 : 0;
		break;
	}
	}
	if (r)
		return r;
	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	r = strcmp(a->name ? a->name : "", b->name ? b->name : "");
	return r ? r : strcmp(a->callsite, b->callsite);
}

static bool td_merge_thread_shown(const struct td_rep_thread *t, const struct td_merge_opts *o)
{
	char tid[24];

	if (!o->nr_globs)
		return true;
	snprintf(tid, sizeof(tid), "%" PRId64, t->tid);
	for (size_t i = 0; i < o->nr_globs; i++)
		if (fnmatch(o->globs[i], t->name, 0) == 0 || strcmp(o->globs[i], tid) == 0)
			return true;
	return false;
}

void td_merge_callsite_str(const struct td_rep_region *r, char *buf, size_t n)
{
	size_t used = 0;

	buf[0] = 0;
	for (size_t i = 0; i < r->nr_frames && used < n; i++) {
		const struct td_rep_frame *f = &r->callsite[i];
		const char *mod = f->module ? strrchr(f->module, '/') : NULL;
		int w;

		mod = mod ? mod + 1 : f->module;
		if (f->symbol && mod)
			w = snprintf(buf + used, n - used, "%s%s+0x%" PRIx64 " (%s)", i ? " < " : "",
				     f->symbol, f->offset, mod);
		else if (f->symbol)
			w = snprintf(buf + used, n - used, "%s%s+0x%" PRIx64, i ? " < " : "", f->symbol,
				     f->offset);
		else if (mod)
			w = snprintf(buf + used, n - used, "%s%s+0x%" PRIx64, i ? " < " : "", mod,
				     f->offset);
		else
			w = snprintf(buf + used, n - used, "%s0x%" PRIx64, i ? " < " : "", f->address);
		if (w < 0)
			break;
		used += (size_t)w;
	}
}

struct td_rowvec {
	struct td_row *rows;
	size_t nr, cap;
};

static struct td_row *td_rowvec_push(struct td_rowvec *v)
{
	if (v->nr == v->cap) {
		size_t cap = v->cap ? v->cap * 2 : 32;
		struct td_row *nr = realloc(v->rows, cap * sizeof(*nr));
		if (!nr)
			return NULL;
		v->rows = nr;
		v->cap = cap;
	}
	struct td_row *r = &v->rows[v->nr++];
	memset(r, 0, sizeof(*r));
	return r;
}

/* Adds one region entry into the row keyed by function (and call site). */
static int td_merge_add_region(struct td_rowvec *v, const struct td_rep_region *rg, int64_t pid,
			       bool by_callsite)
{
	char cs[256] = "";
	struct td_row *row = NULL;

	if (by_callsite && rg->other)
		snprintf(cs, sizeof(cs), "[other call sites]");
	else if (by_callsite)
		td_merge_callsite_str(rg, cs, sizeof(cs));
	/* Linear search: reports hold at most a few thousand region rows. */
	for (size_t i = 0; i < v->nr; i++) {
		if (strcmp(v->rows[i].name, rg->function) == 0 && strcmp(v->rows[i].callsite, cs) == 0) {
			row = &v->rows[i];
			break;
		}
	}
	if (!row) {
		row = td_rowvec_push(v);
		if (!row)
			return -ENOMEM;
		row->kind = by_callsite ? TD_ROW_CALLSITE : TD_ROW_REGION;
		row->name = rg->function;
		snprintf(row->callsite, sizeof(row->callsite), "%s", cs);
		row->pid = pid;
		row->tid = -1;
		row->has_calls = true;
	}
	if (row->pid != pid)
		row->pid = -1;
	row->has_calls = row->has_calls && rg->has_calls;
	row->calls += rg->calls;
	td_rep_metrics_add(&row->m, &rg->m);
	return 0;
}

static int td_merge_regions(const struct td_rep_set *set, const struct td_merge_opts *o,
			    bool by_callsite, struct td_rowvec *v)
{
	for (size_t p = 0; p < set->nr; p++) {
		const struct td_rep_proc *pr = set->procs[p];

		/* The process-wide list is the writer's own merge over threads;
		 * with a thread filter only the chosen threads' entries count. */
		if (!o->nr_globs && pr->nr_regions) {
			for (size_t i = 0; i < pr->nr_regions; i++)
				if (td_merge_add_region(v, &pr->regions[i], pr->pid, by_callsite) < 0)
					return -ENOMEM;
			continue;
		}
		for (size_t t = 0; t < pr->nr_threads; t++) {
			const struct td_rep_thread *th = &pr->threads[t];
			if (!td_merge_thread_shown(th, o))
				continue;
			for (size_t i = 0; i < th->nr_regions; i++)
				if (td_merge_add_region(v, &th->regions[i], pr->pid, by_callsite) < 0)
					return -ENOMEM;
		}
	}
	return 0;
}

static void td_merge_finish_table(struct td_table *tb, struct td_rowvec *v,
				  const struct td_merge_opts *o, enum td_sort_kind sk, int node,
				  bool total)
{
	for (size_t i = 0; i < v->nr; i++)
		td_rep_metrics_finish(&v->rows[i].m);
	tb->rows = v->rows;
	tb->nr_all = v->nr;
	tb->nr = v->nr;
	if (total) {
		struct td_row *t = &tb->total;
		memset(t, 0, sizeof(*t));
		t->kind = TD_ROW_TOTAL;
		t->name = "total";
		t->pid = t->tid = -1;
		t->has_calls = v->nr > 0;
		for (size_t i = 0; i < v->nr; i++) {
			td_rep_metrics_add(&t->m, &v->rows[i].m);
			t->calls += v->rows[i].calls;
			t->has_calls = t->has_calls && v->rows[i].has_calls;
			t->nr_threads += v->rows[i].nr_threads;
		}
		td_rep_metrics_finish(&t->m);
		tb->has_total = true;
	}
	td_sort_kind_cur = sk;
	td_sort_node_cur = node;
	if (v->nr > 1)
		qsort(tb->rows, v->nr, sizeof(*tb->rows), td_merge_cmp);
	if (o->top && o->top < tb->nr)
		tb->nr = o->top;
}

static void td_merge_why(const struct td_rep_set *set, struct td_view *v)
{
	size_t used = 0;

	v->why_no_topdown[0] = 0;
	for (size_t p = 0; p < set->nr && used < sizeof(v->why_no_topdown); p++) {
		const struct td_rep_backend *b = &set->procs[p]->backend;
		char one[384];

		snprintf(one, sizeof(one), "backend %s: %s", b->name ? b->name : "unknown",
			 b->reason ? b->reason : "no reason recorded");
		if (strstr(v->why_no_topdown, one))
			continue;
		int w = snprintf(v->why_no_topdown + used, sizeof(v->why_no_topdown) - used, "%s%s",
				 used ? "; " : "", one);
		if (w < 0)
			break;
		used += (size_t)w;
	}
}

int td_merge_view(const struct td_rep_set *set, const struct td_merge_opts *o, struct td_view *v,
		  char *err, size_t errlen)
{
	enum td_sort_kind sk = TD_SORT_CPU;
	int node = -1;
	struct td_rowvec threads = { 0 }, procs = { 0 }, regions = { 0 };

	memset(v, 0, sizeof(*v));
	v->set = set;
	if (o->sort && td_merge_sort_key(o->sort, &sk, &node) < 0) {
		snprintf(err, errlen, "--sort: unknown key '%s'", o->sort);
		return -1;
	}
	/* Threads and processes are always computed: the total comes from them. */
	for (size_t p = 0; p < set->nr; p++) {
		const struct td_rep_proc *pr = set->procs[p];
		struct td_row *prow = td_rowvec_push(&procs);

		if (!prow)
			goto oom;
		prow->kind = TD_ROW_PROCESS;
		prow->pid = pr->pid;
		prow->tid = -1;
		prow->name = pr->argc ? pr->argv[0] : pr->file;
		prow->nr_procs = 1;
		for (size_t t = 0; t < pr->nr_threads; t++) {
			const struct td_rep_thread *th = &pr->threads[t];
			if (!td_merge_thread_shown(th, o))
				continue;
			struct td_row *r = td_rowvec_push(&threads);
			if (!r)
				goto oom;
			r->kind = TD_ROW_THREAD;
			r->pid = pr->pid;
			r->tid = th->tid;
			r->name = th->name;
			r->nr_threads = 1;
			r->nr_procs = 1;
			r->thread = th;
			r->m = th->m;
			prow = &procs.rows[p]; /* push may have moved nothing, but be safe */
			td_rep_metrics_add(&prow->m, &th->m);
			prow->nr_threads++;
		}
	}
	memset(&v->total, 0, sizeof(v->total));
	v->total.kind = TD_ROW_TOTAL;
	v->total.name = "total";
	v->total.pid = v->total.tid = -1;
	for (size_t i = 0; i < threads.nr; i++) {
		td_rep_metrics_add(&v->total.m, &threads.rows[i].m);
		v->total.nr_threads++;
	}
	v->total.nr_procs = (unsigned)set->nr;
	td_rep_metrics_finish(&v->total.m);

	switch (o->by) {
	case TD_BY_THREAD:
		td_merge_finish_table(&v->tables[0], &threads, o, sk, node, true);
		v->tables[0].title = "threads";
		v->tables[0].kind = TD_ROW_THREAD;
		v->nr_tables = 1;
		threads.rows = NULL;
		if (td_merge_regions(set, o, false, &regions) < 0)
			goto oom;
		if (regions.nr) {
			td_merge_finish_table(&v->tables[1], &regions, o, sk, node, false);
			v->tables[1].title = "regions";
			v->tables[1].kind = TD_ROW_REGION;
			v->nr_tables = 2;
			regions.rows = NULL;
		}
		break;
	case TD_BY_REGION:
	case TD_BY_CALLSITE:
		if (td_merge_regions(set, o, o->by == TD_BY_CALLSITE, &regions) < 0)
			goto oom;
		td_merge_finish_table(&v->tables[0], &regions, o, sk, node, false);
		v->tables[0].title = o->by == TD_BY_CALLSITE ? "call sites" : "regions";
		v->tables[0].kind = o->by == TD_BY_CALLSITE ? TD_ROW_CALLSITE : TD_ROW_REGION;
		v->nr_tables = 1;
		regions.rows = NULL;
		break;
	case TD_BY_PROCESS:
		td_merge_finish_table(&v->tables[0], &procs, o, sk, node, true);
		v->tables[0].title = "processes";
		v->tables[0].kind = TD_ROW_PROCESS;
		v->nr_tables = 1;
		procs.rows = NULL;
		break;
	}
	free(threads.rows);
	free(procs.rows);
	free(regions.rows);
	v->level = td_rep_metrics_level(&v->total.m);
	for (int k = 0; k < v->nr_tables; k++)
		for (size_t i = 0; i < v->tables[k].nr_all; i++) {
			int l = td_rep_metrics_level(&v->tables[k].rows[i].m);
			if (l > v->level)
				v->level = l;
		}
	td_merge_why(set, v);
	return 0;
oom:
	free(threads.rows);
	free(procs.rows);
	free(regions.rows);
	snprintf(err, errlen, "out of memory");
	return -1;
}

void td_merge_view_exit(struct td_view *v)
{
	for (int k = 0; k < v->nr_tables; k++)
		free(v->tables[k].rows);
	v->nr_tables = 0;
}
