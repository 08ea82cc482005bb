/* td_region_report: the regions part of the report — per-thread entries,
 * the process-wide merge (by function and call site) and the summary
 * lines. Runs at report time on any thread; reads the owners' tables
 * through the seq protocol of td_region_table.h. */
#include "td_metrics.h"
#include "td_region.h"
#include "td_region_table.h"
#include "td_symbolize.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One (region, call site) figure set, copied out of a thread's table. */
struct td_region_rec {
	int region;      /* -1: the thread-wide catch-all */
	bool other;      /* folded call sites */
	int nframes;
	uintptr_t chain[TD_CALLSITE_MAX_DEPTH];
	uint64_t calls;
	struct td_counts incl;
	struct td_counts child;
};

struct td_region_recs {
	struct td_region_rec *v;
	size_t n, cap;
};

static struct td_region_rec *td_recs_push(struct td_region_recs *rs)
{
	if (rs->n == rs->cap) {
		size_t cap = rs->cap ? 2 * rs->cap : 64;
		struct td_region_rec *v = realloc(rs->v, cap * sizeof(*v));
		if (!v)
			return NULL;
		rs->v = v;
		rs->cap = cap;
	}
	return &rs->v[rs->n++];
}

static void td_recs_add_entry(struct td_region_recs *rs, const struct td_regions *r,
			      const struct td_region_entry *src)
{
	struct td_region_entry e;
	td_region_entry_read(src, &e);
	if (!e.calls)
		return;
	struct td_region_rec *rec = td_recs_push(rs);
	if (!rec)
		return;
	rec->region = e.region;
	rec->other = e.other;
	rec->nframes = e.nframes > TD_CALLSITE_MAX_DEPTH ? TD_CALLSITE_MAX_DEPTH : e.nframes;
	const uintptr_t *chain = td_region_entry_chain(r, src);
	for (int i = 0; i < rec->nframes; i++)
		rec->chain[i] = chain ? chain[i] : 0;
	rec->calls = e.calls;
	rec->incl = e.incl;
	rec->child = e.child;
}

/* Copies the published entries of r (entries and chains are immutable once
 * `used` covers them; figures are read under their seq). */
static void td_recs_add_thread(struct td_region_recs *rs, const struct td_regions *r)
{
	uint32_t used = atomic_load_explicit(&r->used, memory_order_acquire);
	for (uint32_t i = 0; i < used && i < r->nr_entries; i++)
		td_recs_add_entry(rs, r, &r->entries[i]);
	td_recs_add_entry(rs, r, &r->other_all);
}

static uint64_t td_rec_weight(const struct td_counts *c)
{
	if (c->slots)
		return c->slots;
	return c->cpu_ns ? c->cpu_ns : c->wall_ns;
}

static int td_rec_cmp_weight(const void *a, const void *b)
{
	const struct td_region_rec *x = a, *y = b;
	uint64_t wx = td_rec_weight(&x->incl), wy = td_rec_weight(&y->incl);
	if (wx != wy)
		return wx > wy ? -1 : 1;
	if (x->calls != y->calls)
		return x->calls > y->calls ? -1 : 1;
	return x->region - y->region;
}

static int td_rec_cmp_key(const void *a, const void *b)
{
	const struct td_region_rec *x = a, *y = b;
	if (x->region != y->region)
		return x->region < y->region ? -1 : 1;
	if (x->other != y->other)
		return x->other ? 1 : -1;
	if (x->nframes != y->nframes)
		return x->nframes < y->nframes ? -1 : 1;
	for (int i = 0; i < x->nframes; i++)
		if (x->chain[i] != y->chain[i])
			return x->chain[i] < y->chain[i] ? -1 : 1;
	return 0;
}

static const char *td_region_name(const struct td_collector *c, int region)
{
	int nr = atomic_load_explicit(&((struct td_collector *)c)->nr_regions,
				      memory_order_acquire);
	if (region >= 0 && region < nr && region < TD_MAX_REGIONS && c->region_names[region])
		return c->region_names[region];
	return "[other]";
}

static void td_write_frame(struct td_symbolize *sym, uintptr_t addr, struct td_json *j)
{
	struct td_frame_info fi;
	if (sym)
		td_symbolize_addr(sym, addr, 1, &fi);
	else
		fi = (struct td_frame_info){ .address = addr };
	char hex[24];
	snprintf(hex, sizeof(hex), "0x%" PRIxPTR, addr);
	td_json_object_begin(j);
	td_json_kv_string(j, "module", fi.module);
	td_json_kv_string(j, "symbol", fi.symbol);
	td_json_kv_uint(j, "offset", fi.offset);
	td_json_kv_string(j, "address", hex);
	td_json_object_end(j);
}

static void td_write_recs(const struct td_collector *c, struct td_region_rec *v, size_t n,
			  struct td_json *j)
{
	struct td_symbolize *sym = td_symbolize_new();
	qsort(v, n, sizeof(*v), td_rec_cmp_weight);
	td_json_array_begin(j);
	for (size_t i = 0; i < n; i++) {
		struct td_region_rec *rec = &v[i];
		td_json_object_begin(j);
		td_json_kv_string(j, "function", td_region_name(c, rec->region));
		td_json_key(j, "callsite");
		td_json_array_begin(j);
		for (int k = 0; k < rec->nframes; k++)
			td_write_frame(sym, rec->chain[k], j);
		td_json_array_end(j);
		if (rec->other)
			td_json_kv_bool(j, "other", true);
		td_json_kv_uint(j, "calls", rec->calls);
		td_json_key(j, "metrics");
		td_metrics_json(&c->backend, &rec->incl, j);
		struct td_counts excl;
		td_counts_sub_clamped(&excl, &rec->incl, &rec->child);
		td_json_key(j, "exclusive");
		td_metrics_json(&c->backend, &excl, j);
		td_json_object_end(j);
	}
	td_json_array_end(j);
	td_symbolize_delete(sym);
}

static const struct td_regions *td_thread_regions(const struct td_thread *t)
{
	return __atomic_load_n(&t->regions, __ATOMIC_ACQUIRE);
}

void td_regions_json_thread(const struct td_collector *c, const struct td_thread *t,
			    struct td_json *j)
{
	const struct td_regions *r = td_thread_regions(t);
	struct td_region_recs rs = { 0 };
	if (r)
		td_recs_add_thread(&rs, r);
	td_json_key(j, "regions");
	td_write_recs(c, rs.v, rs.n, j);
	free(rs.v);
	td_json_kv_uint(j, "other_callsites_folded",
			r ? atomic_load_explicit(&((struct td_regions *)r)->folded,
						 memory_order_relaxed)
			  : 0);
	td_json_kv_uint(j, "regions_depth_refused",
			r ? atomic_load_explicit(&((struct td_regions *)r)->depth_refused,
						 memory_order_relaxed)
			  : 0);
	td_json_kv_uint(j, "regions_unmatched_exits",
			r ? atomic_load_explicit(&((struct td_regions *)r)->unmatched_exits,
						 memory_order_relaxed)
			  : 0);
}

void td_regions_json_process(const struct td_collector *c, struct td_json *j)
{
	struct td_region_recs rs = { 0 };
	uint64_t folded = 0;
	for (const struct td_thread *t = atomic_load_explicit(
		     &((struct td_collector *)c)->threads, memory_order_acquire);
	     t; t = t->next) {
		const struct td_regions *r = td_thread_regions(t);
		if (!r)
			continue;
		td_recs_add_thread(&rs, r);
		folded += atomic_load_explicit(&((struct td_regions *)r)->folded,
					       memory_order_relaxed);
	}
	/* Merge equal (function, call site) keys; region ids are per process,
	 * so equal ids mean equal functions. */
	size_t m = 0;
	if (rs.n) {
		qsort(rs.v, rs.n, sizeof(*rs.v), td_rec_cmp_key);
		for (size_t i = 1; i < rs.n; i++) {
			struct td_region_rec *a = &rs.v[m], *b = &rs.v[i];
			if (!td_rec_cmp_key(a, b)) {
				a->calls += b->calls;
				td_counts_add(&a->incl, &b->incl);
				td_counts_add(&a->child, &b->child);
			} else {
				rs.v[++m] = *b;
			}
		}
		m++;
	}
	td_json_key(j, "regions");
	td_write_recs(c, rs.v, m, j);
	free(rs.v);
	td_json_kv_uint(j, "other_callsites_folded", folded);
}

/* "main+0x1f" or "libfoo.so+0x1234" for the summary. */
static void td_short_site(struct td_symbolize *sym, const struct td_region_rec *rec, char *buf,
			  size_t len)
{
	if (rec->other || rec->region < 0) {
		snprintf(buf, len, "[other]");
		return;
	}
	if (!rec->nframes) {
		snprintf(buf, len, "-");
		return;
	}
	struct td_frame_info fi;
	if (!sym || td_symbolize_addr(sym, rec->chain[0], 1, &fi)) {
		snprintf(buf, len, "0x%" PRIxPTR, rec->chain[0]);
		return;
	}
	const char *name = fi.symbol;
	if (!name) {
		const char *slash = fi.module ? strrchr(fi.module, '/') : NULL;
		name = slash ? slash + 1 : (fi.module ? fi.module : "?");
	}
	snprintf(buf, len, "%s+0x%" PRIxPTR, name, fi.offset);
}

void td_regions_summary(const struct td_collector *c, const struct td_thread *t, int n,
			void (*line)(void *arg, const char *s), void *arg)
{
	const struct td_regions *r = td_thread_regions(t);
	if (!r || n <= 0)
		return;
	struct td_region_recs rs = { 0 };
	td_recs_add_thread(&rs, r);
	qsort(rs.v, rs.n, sizeof(*rs.v), td_rec_cmp_weight);
	struct td_symbolize *sym = td_symbolize_new();
	char buf[512], site[256], td[160];
	for (size_t i = 0; i < rs.n && i < (size_t)n; i++) {
		const struct td_region_rec *rec = &rs.v[i];
		td_short_site(sym, rec, site, sizeof(site));
		td[0] = 0;
		if (rec->incl.slots)
			snprintf(td, sizeof(td), "  ret %.1f%% bad %.1f%% fe %.1f%% be %.1f%%",
				 100 * td_metrics_fraction(&rec->incl, TD_RETIRING),
				 100 * td_metrics_fraction(&rec->incl, TD_BAD_SPECULATION),
				 100 * td_metrics_fraction(&rec->incl, TD_FRONTEND_BOUND),
				 100 * td_metrics_fraction(&rec->incl, TD_BACKEND_BOUND));
		snprintf(buf, sizeof(buf), "  %-24s from %-28s calls %-9" PRIu64
			 " cpu %.3f ms wall %.3f ms%s",
			 td_region_name(c, rec->region), site, rec->calls, rec->incl.cpu_ns / 1e6,
			 rec->incl.wall_ns / 1e6, td);
		line(arg, buf);
	}
	uint64_t folded = atomic_load_explicit(&((struct td_regions *)r)->folded,
					       memory_order_relaxed);
	if (folded) {
		snprintf(buf, sizeof(buf),
			 "  (%" PRIu64 " calls from call sites past [regions] max_callsites"
			 " folded into [other])",
			 folded);
		line(arg, buf);
	}
	td_symbolize_delete(sym);
	free(rs.v);
}
