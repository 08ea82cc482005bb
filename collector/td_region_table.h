/* td_region_table: the layout of a thread's region state, shared by
 * td_region.c (the hot path, owner thread only) and td_region_report.c (the
 * report, any thread). Not a public header.
 *
 * Memory layout, one allocation per thread made by td_regions_new:
 *
 *   struct td_regions | stack[max_depth] | index[cap] | entries[nr_entries]
 *                     | chains[nr_entries * depth]
 *
 * index[] is an open-addressing hash table (linear probing, cap a power of
 * two >= 2 * max_callsites) of 1-based entry numbers; entries are handed
 * out densely, so a reader walks entries[0..used). Keys are (region id,
 * call-site chain). Ordinary call sites may take max_callsites entries;
 * the rest (nr_entries - max_callsites) is kept for the per-region [other]
 * entries that later call sites fold into. If even those run out, the call
 * lands in the thread-wide catch-all entry `other_all`.
 *
 * Publication: the owner fills a new entry's key and chain, then
 * store-releases `used` (and the index slot). Counter updates are bracketed
 * by the entry's seq (odd while writing) so a reader on another thread, or
 * in a signal handler on this one, copies a consistent entry or knows it
 * could not. */
#ifndef TD_REGION_TABLE_H
#define TD_REGION_TABLE_H

#include "td_callsite.h"
#include "td_collector.h"
#include "td_counts.h"
#include "td_topdown.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#define TD_REGION_OTHER_HASH 1u /* chain hash of a region's [other] entry */
#define TD_REGION_MRU 64        /* last entry used, per region id modulo this */

struct td_region_entry {
	_Atomic uint32_t seq;   /* odd while the owner updates the figures */
	int32_t region;         /* region id; -1 in the catch-all entry */
	uint8_t nframes;        /* frames in the chain; 0 for [other] */
	bool other;             /* folded call sites of this region */
	uint64_t hash;          /* td_callsite_hash of the chain, or OTHER */
	uint64_t calls;         /* every entry, recursive ones included */
	struct td_counts incl;  /* outermost entry to exit, per call */
	struct td_counts child; /* inclusive figures of nested regions */
};

/* One open region on the thread's stack. */
struct td_region_frame {
	int32_t region;
	int32_t parent;          /* stack index of the nearest counting frame, -1 none */
	struct td_region_entry *entry;
	bool counting;           /* outermost activation of its region */
	bool has_child;          /* child holds something (else it is stale) */
	struct td_sample start;  /* snapshot at entry (counting frames) */
	struct td_counts child;  /* inclusive figures of nested counting frames */
};

struct td_regions {
	/* sizes, fixed at td_regions_new */
	size_t map_len;          /* the whole allocation */
	uint32_t max_depth;
	uint32_t max_callsites;  /* ordinary entries */
	uint32_t nr_entries;     /* max_callsites + room for [other] entries */
	uint32_t cap;            /* index slots, power of two */
	struct td_callsite cs;
	struct td_topdown_policy reset; /* [topdown] reset, checked at outermost entries */

	/* owner-thread state */
	int depth;                   /* open frames */
	int dropped_levels;          /* marker begins refused by the depth limit, still unmatched */
	uint32_t open[TD_MAX_REGIONS]; /* open activations per region id */
	struct td_region_frame *stack;
	_Atomic uint32_t *index;
	struct td_region_entry *entries;
	uintptr_t *chains;           /* nr_entries * cs.depth frames */
	struct td_region_entry other_all;
	struct td_region_entry *mru[TD_REGION_MRU]; /* owner only */
	/* Marker names seen by this thread: name pointer -> region id, checked
	 * by content on every hit (a caller may reuse a buffer). */
	struct {
		const char *name;
		int id;
	} marker_cache[32];

	/* published figures (read by the report) */
	_Atomic uint32_t used;       /* entries handed out */
	_Atomic uint32_t used_plain; /* of which ordinary call sites */
	_Atomic uint64_t folded;     /* calls that did not get their own call-site entry */
	_Atomic uint64_t depth_refused;  /* enters refused by max_depth */
	_Atomic uint64_t unmatched_exits; /* exits of regions not open */
	_Atomic uint64_t resets;         /* counter epochs started at outermost entries */
};

/* Copies entry e into out if it is stable (seq even and unchanged), retrying
 * a few times; false if the owner was writing it every time. */
bool td_region_entry_read(const struct td_region_entry *e, struct td_region_entry *out);

/* Frames of entry e (nframes of them). */
const uintptr_t *td_region_entry_chain(const struct td_regions *r, const struct td_region_entry *e);

#endif
