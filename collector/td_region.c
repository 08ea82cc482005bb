/* td_region: the per-thread region stack and (region, call site) table.
 * Layout and publication rules: td_region_table.h. */
#include "td_region.h"
#include "td_region_table.h"
#include "td_emu.h"
#include "td_series.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#ifndef td_likely
#define td_likely(x) __builtin_expect(!!(x), 1)
#define td_unlikely(x) __builtin_expect(!!(x), 0)
#endif
#define TD_ALIGN(x) (((x) + 63) & ~(size_t)63)

/* Owner-only counters that other threads read: a plain load+store keeps
 * the hot path free of locked instructions. */
static inline void td_bump(_Atomic uint64_t *p)
{
	atomic_store_explicit(p, atomic_load_explicit(p, memory_order_relaxed) + 1,
			      memory_order_relaxed);
}

static inline void td_seq_begin(struct td_region_entry *e)
{
	uint32_t s = atomic_load_explicit(&e->seq, memory_order_relaxed);
	atomic_store_explicit(&e->seq, s + 1, memory_order_relaxed);
	atomic_thread_fence(memory_order_release);
}

static inline void td_seq_end(struct td_region_entry *e)
{
	uint32_t s = atomic_load_explicit(&e->seq, memory_order_relaxed);
	atomic_store_explicit(&e->seq, s + 1, memory_order_release);
}

static uint32_t td_pow2_at_least(uint64_t n)
{
	uint32_t p = 1;
	while (p < n)
		p <<= 1;
	return p;
}

struct td_regions *td_regions_new(const struct td_config *cfg)
{
	uint32_t max_depth = cfg->max_depth ? (uint32_t)cfg->max_depth : 256;
	uint32_t max_cs = cfg->max_callsites ? (uint32_t)cfg->max_callsites : 4096;
	/* Room for per-region [other] entries: an eighth of the table, at
	 * least 16, at most one per possible region id. */
	uint32_t reserve = max_cs / 8;
	if (reserve < 16)
		reserve = 16;
	if (reserve > TD_MAX_REGIONS)
		reserve = TD_MAX_REGIONS;
	uint32_t nr_entries = max_cs + reserve;
	uint32_t cap = td_pow2_at_least(2ull * nr_entries); /* load <= 1/2 */
	int depth = (int)cfg->callsite_depth;
	if (depth > TD_CALLSITE_MAX_DEPTH)
		depth = TD_CALLSITE_MAX_DEPTH;
	size_t stride = depth > 0 ? (size_t)depth : 1;

	size_t off_stack = TD_ALIGN(sizeof(struct td_regions));
	size_t off_index = off_stack + TD_ALIGN((size_t)max_depth * sizeof(struct td_region_frame));
	size_t off_entries = off_index + TD_ALIGN((size_t)cap * sizeof(uint32_t));
	size_t off_chains =
		off_entries + TD_ALIGN((size_t)nr_entries * sizeof(struct td_region_entry));
	size_t size = off_chains + (size_t)nr_entries * stride * sizeof(uintptr_t);

	/* An anonymous mapping, not calloc: its pages are zero and cost nothing
	 * until the thread touches them (most of the table never is), whatever
	 * malloc's mmap threshold has become. */
	char *mem = mmap(NULL, size, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (mem == MAP_FAILED)
		return NULL;
	struct td_regions *r = (struct td_regions *)mem;
	r->map_len = size;
	r->max_depth = max_depth;
	r->max_callsites = max_cs;
	r->nr_entries = nr_entries;
	r->cap = cap;
	r->stack = (struct td_region_frame *)(mem + off_stack);
	r->index = (_Atomic uint32_t *)(mem + off_index);
	r->entries = (struct td_region_entry *)(mem + off_entries);
	r->chains = (uintptr_t *)(mem + off_chains);
	r->other_all.region = -1;
	r->other_all.other = true;
	r->other_all.hash = TD_REGION_OTHER_HASH;
	td_topdown_policy_init(&r->reset, cfg);
	/* A libunwind that cannot be loaded leaves depth 1: still useful. */
	td_callsite_init(&r->cs, depth);
	return r;
}

void td_regions_delete(struct td_regions *r)
{
	if (!r)
		return;
	td_callsite_exit(&r->cs);
	munmap(r, r->map_len);
}

const uintptr_t *td_region_entry_chain(const struct td_regions *r, const struct td_region_entry *e)
{
	if (e < r->entries || e >= r->entries + r->nr_entries)
		return NULL;
	size_t stride = r->cs.depth > 0 ? (size_t)r->cs.depth : 1;
	return r->chains + (size_t)(e - r->entries) * stride;
}

bool td_region_entry_read(const struct td_region_entry *e, struct td_region_entry *out)
{
	/* Bounded: the reader may be a signal handler that interrupted the
	 * owner mid-update, in which case the entry will not settle. */
	for (int tries = 0; tries < 64; tries++) {
		uint32_t s1 = atomic_load_explicit(&e->seq, memory_order_acquire);
		if (s1 & 1)
			continue;
		memcpy(out, e, sizeof(*out));
		atomic_thread_fence(memory_order_acquire);
		uint32_t s2 = atomic_load_explicit(&e->seq, memory_order_relaxed);
		if (s1 == s2)
			return true;
	}
	memcpy(out, e, sizeof(*out));
	return false;
}

/* Chain of an entry of the table (not the catch-all). */
static inline const uintptr_t *td_chain_of(const struct td_regions *r,
					   const struct td_region_entry *e)
{
	size_t stride = r->cs.depth > 0 ? (size_t)r->cs.depth : 1;
	return r->chains + (size_t)(e - r->entries) * stride;
}

static inline bool td_chain_equal(const uintptr_t *a, const uintptr_t *b, int n)
{
	for (int i = 0; i < n; i++)
		if (a[i] != b[i])
			return false;
	return true;
}

static inline uint32_t td_slot_of(uint64_t hash, int region, uint32_t cap)
{
	uint64_t h = hash ^ ((uint64_t)(uint32_t)region * 0x9e3779b97f4a7c15ull);
	h ^= h >> 32;
	return (uint32_t)h & (cap - 1);
}

/* Hands out entry number `used` for a key whose free index slot is `slot`,
 * and publishes it. Owner thread only. */
static struct td_region_entry *td_table_add(struct td_regions *r, uint32_t slot, int region,
					    uint64_t hash, const uintptr_t *chain, int n,
					    bool other)
{
	uint32_t used = atomic_load_explicit(&r->used, memory_order_relaxed);
	struct td_region_entry *e = &r->entries[used];
	e->region = region;
	e->hash = hash;
	e->nframes = (uint8_t)n;
	e->other = other;
	if (n > 0) {
		uintptr_t *dst = (uintptr_t *)td_region_entry_chain(r, e);
		for (int i = 0; i < n; i++)
			dst[i] = chain[i];
	}
	/* Key and chain are visible before the entry is. */
	atomic_store_explicit(&r->index[slot], used + 1, memory_order_release);
	atomic_store_explicit(&r->used, used + 1, memory_order_release);
	if (!other)
		atomic_store_explicit(&r->used_plain,
				      atomic_load_explicit(&r->used_plain, memory_order_relaxed) + 1,
				      memory_order_relaxed);
	return e;
}

static struct td_region_entry *td_table_find(struct td_regions *r, int region,
					     const uintptr_t *chain, int n)
{
	uint64_t hash = td_callsite_hash(chain, n);
	uint32_t mask = r->cap - 1;
	uint32_t slot = td_slot_of(hash, region, r->cap);
	for (;;) {
		uint32_t v = atomic_load_explicit(&r->index[slot], memory_order_relaxed);
		if (!v)
			break;
		struct td_region_entry *e = &r->entries[v - 1];
		if (e->region == region && e->hash == hash && !e->other && e->nframes == n) {
			const uintptr_t *c = td_region_entry_chain(r, e);
			int i = 0;
			while (i < n && c[i] == chain[i])
				i++;
			if (i == n)
				return e;
		}
		slot = (slot + 1) & mask;
	}
	uint32_t used = atomic_load_explicit(&r->used, memory_order_relaxed);
	uint32_t plain = atomic_load_explicit(&r->used_plain, memory_order_relaxed);
	if (plain < r->max_callsites && used < r->nr_entries)
		return td_table_add(r, slot, region, hash, chain, n, false);

	/* Full: this call site folds into its region's [other] entry. */
	td_bump(&r->folded);
	slot = td_slot_of(TD_REGION_OTHER_HASH, region, r->cap);
	for (;;) {
		uint32_t v = atomic_load_explicit(&r->index[slot], memory_order_relaxed);
		if (!v)
			break;
		struct td_region_entry *e = &r->entries[v - 1];
		if (e->region == region && e->other)
			return e;
		slot = (slot + 1) & mask;
	}
	if (used < r->nr_entries)
		return td_table_add(r, slot, region, TD_REGION_OTHER_HASH, NULL, 0, true);
	return &r->other_all;
}

/* Emulated PMU only: the innermost open region picks the true fractions. */
static inline void td_region_emu_innermost(struct td_collector *c, struct td_thread *t,
					   const struct td_regions *r)
{
	if (td_likely(!c->backend.emulated))
		return;
	td_emu_set_region(&c->backend, &t->ctr,
			  r->depth ? c->region_names[r->stack[r->depth - 1].region] : NULL);
}

/* Closes the innermost frame with `now` as the exit snapshot. */
static void td_frame_pop(struct td_collector *c, struct td_thread *t, struct td_regions *r,
			 const struct td_sample *now)
{
	struct td_region_frame *f = &r->stack[--r->depth];
	r->open[f->region]--;
	if (!f->counting)
		return; /* recursive activation: its call was counted at entry */
	struct td_counts d;
	memset(&d, 0, sizeof(d));
	td_thread_accumulate(c, t, &f->start, now, &d);
	struct td_region_entry *e = f->entry;
	td_seq_begin(e);
	td_counts_add(&e->incl, &d);
	if (f->has_child)
		td_counts_add(&e->child, &f->child);
	td_seq_end(e);
	if (f->parent >= 0) {
		/* Leaves are the common case: the child sum starts as a copy. */
		struct td_region_frame *p = &r->stack[f->parent];
		if (p->has_child)
			td_counts_add(&p->child, &d);
		else
			p->child = d;
		p->has_child = true;
	}
}

/* [topdown] reset policy at an outermost entry, decided on the entry
 * snapshot itself so the common case costs no extra read. A reset starts a
 * new epoch (folding the thread's figures first); the region then starts
 * from a fresh snapshot. Backends without reset (software, perf) skip it. */
static void td_region_maybe_reset(struct td_collector *c, struct td_thread *t,
				  struct td_regions *r, struct td_sample *start)
{
	if (!c->backend.ops->reset || t->ctr.fallback || r->reset.policy == TD_RESET_NEVER)
		return;
	uint64_t ns = start->wall_ns - t->seg_start.wall_ns;
	if (!td_topdown_should_reset(&r->reset, start->slots, ns, true))
		return;
	if (td_thread_new_epoch(c, t) == 0)
		td_bump(&r->resets);
	td_thread_snapshot(c, t, start);
}

int td_region_enter(struct td_collector *c, struct td_thread *t, int region_id, uintptr_t ra)
{
	struct td_regions *r = t->regions;
	if (!r || region_id < 0 || region_id >= TD_MAX_REGIONS)
		return -1;
	if ((uint32_t)r->depth >= r->max_depth) {
		td_bump(&r->depth_refused);
		return -1;
	}
	uintptr_t chain[TD_CALLSITE_MAX_DEPTH];
	int n;
	if (td_likely(r->cs.depth == 1)) { /* the default: no unwinding */
		chain[0] = ra;
		n = 1;
	} else {
		n = td_callsite_capture(&r->cs, ra, chain);
	}
	/* Most calls repeat the previous call site of their region: check
	 * that entry before hashing. */
	struct td_region_entry *e = r->mru[region_id & (TD_REGION_MRU - 1)];
	if (!e || e->region != region_id || e->other || e->nframes != n ||
	    (n > 0 && !td_chain_equal(td_chain_of(r, e), chain, n))) {
		e = td_table_find(r, region_id, chain, n);
		r->mru[region_id & (TD_REGION_MRU - 1)] = e;
	}
	td_seq_begin(e);
	e->calls++;
	td_seq_end(e);

	int d = r->depth;
	struct td_region_frame *f = &r->stack[d];
	f->region = region_id;
	f->entry = e;
	/* Recursive activations count their call only; so does every frame
	 * with the none backend (counting off: no snapshot at all). */
	f->counting = r->open[region_id] == 0 && c->backend.ops != &td_backend_none_ops;
	if (d == 0)
		f->parent = -1;
	else
		f->parent = r->stack[d - 1].counting ? d - 1 : r->stack[d - 1].parent;
	r->open[region_id]++;
	r->depth = d + 1;
	f->has_child = false;
	if (f->counting) {
		/* Last, so our own bookkeeping stays outside the region. */
		td_thread_snapshot(c, t, &f->start);
		if (d == 0)
			td_region_maybe_reset(c, t, r, &f->start);
		if (td_unlikely(t->series != NULL) && td_series_sample_at)
			td_series_sample_at(c, t, &f->start); /* boundary point, same snapshot */
	}
	/* Emulated PMU: the region's true fractions start here, after our own
	 * snapshot and reset work, which belongs to the enclosing remainder. */
	if (td_unlikely(c->backend.emulated))
		td_emu_set_region(&c->backend, &t->ctr, c->region_names[region_id]);
	return 0;
}

void td_region_exit(struct td_collector *c, struct td_thread *t, int region_id)
{
	struct td_regions *r = t->regions;
	if (!r)
		return;
	/* Snapshot first: what follows is ours, not the region's. */
	struct td_sample now;
	bool have_now = false;
	int k = r->depth - 1;
	if (k >= 0 && r->stack[k].region == region_id && r->stack[k].counting) {
		td_thread_snapshot(c, t, &now);
		have_now = true;
	}
	/* Strict LIFO is the normal case; otherwise close the regions left
	 * open above the innermost activation of region_id (e.g. a marker
	 * never ended inside a hooked function). */
	while (k >= 0 && r->stack[k].region != region_id)
		k--;
	if (k < 0) {
		td_bump(&r->unmatched_exits);
		return;
	}
	for (int i = k; !have_now && i < r->depth; i++) {
		if (r->stack[i].counting) {
			td_thread_snapshot(c, t, &now);
			have_now = true;
		}
	}
	while (r->depth > k)
		td_frame_pop(c, t, r, &now);
	td_region_emu_innermost(c, t, r);
	if (have_now && td_unlikely(t->series != NULL) && td_series_sample_at)
		td_series_sample_at(c, t, &now);
}

int td_region_depth(const struct td_thread *t)
{
	return t->regions ? t->regions->depth : 0;
}

void td_regions_close_all(struct td_collector *c, struct td_thread *t)
{
	struct td_regions *r = t->regions;
	if (!r || r->depth == 0)
		return;
	struct td_sample now;
	td_thread_snapshot(c, t, &now);
	while (r->depth > 0)
		td_frame_pop(c, t, r, &now);
	r->dropped_levels = 0;
	td_region_emu_innermost(c, t, r);
}

int td_region_marker_enter(struct td_collector *c, struct td_thread *t, int region_id,
			   uintptr_t ra)
{
	struct td_regions *r = t->regions;
	if (!r)
		return -ENOENT;
	if ((uint32_t)r->depth >= r->max_depth) {
		/* Remember the refused level so its end does not close an
		 * outer activation of the same name. */
		r->dropped_levels++;
		td_bump(&r->depth_refused);
		return -E2BIG;
	}
	return td_region_enter(c, t, region_id, ra) ? -EINVAL : 0;
}

void td_region_marker_exit(struct td_collector *c, struct td_thread *t, int region_id)
{
	struct td_regions *r = t->regions;
	if (!r)
		return;
	if (r->dropped_levels > 0) {
		r->dropped_levels--;
		return;
	}
	td_region_exit(c, t, region_id);
}

int td_region_marker_id(struct td_collector *c, struct td_thread *t, const char *name, bool add)
{
	struct td_regions *r = t->regions;
	if (!r || !name)
		return -1;
	unsigned slot = (unsigned)(((uintptr_t)name >> 3) ^ ((uintptr_t)name >> 9)) & 31u;
	int id = r->marker_cache[slot].id;
	int nr = atomic_load_explicit(&c->nr_regions, memory_order_acquire);
	if (r->marker_cache[slot].name == name && id >= 0 && id < nr &&
	    strcmp(c->region_names[id], name) == 0)
		return id;
	id = -1;
	for (int i = 0; i < nr; i++) {
		if (strcmp(c->region_names[i], name) == 0) {
			id = i;
			break;
		}
	}
	if (id < 0 && add)
		id = td_collector_region_id(c, name);
	if (id >= 0) {
		r->marker_cache[slot].name = name;
		r->marker_cache[slot].id = id;
	}
	return id;
}
