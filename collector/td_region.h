/* td_region: per-thread function-region accounting.
 *
 * The preload's hooks (and the marker API) call td_region_enter/exit in
 * strict LIFO order on the owning thread, with t->guard already held. A
 * non-local exit (longjmp, exception, pthread_exit) is turned into exits of
 * the discarded regions, innermost first, by the preload before control
 * leaves. Enter snapshots the counters and records the call site (raw
 * return addresses only); exit snapshots again and accumulates into the
 * (region, call-site chain) entry of a fixed-size per-thread table.
 * Symbolization happens at report time. Hot path: no allocation, no lock,
 * no syscall beyond what the backend's snapshot does. */
#ifndef TD_REGION_H
#define TD_REGION_H

#include "td_collector.h"
#include "td_json.h"

#include <stdbool.h>
#include <stdint.h>

/* Allocates a thread's region state sized from cfg (not hot). NULL on ENOMEM. */
struct td_regions *td_regions_new(const struct td_config *cfg);
void td_regions_delete(struct td_regions *r);

/* ra: return address into the caller of the region's function (frame 0 of
 * the call site). Returns 0, or -1 when the region was not entered (depth
 * limit) — then the caller must not call td_region_exit for it. */
int td_region_enter(struct td_collector *c, struct td_thread *t, int region_id, uintptr_t ra);
void td_region_exit(struct td_collector *c, struct td_thread *t, int region_id);

/* Exit policy when region_id is not the innermost open region: the regions
 * left open above its innermost activation are closed first (innermost
 * first); an exit of a region that is not open is ignored and counted. */

/* Marker API flavour (tdprobe_region_begin/end): like enter/exit, but a
 * begin refused by the depth limit is remembered, so that its end is
 * consumed instead of closing an outer activation of the same name. Enter
 * returns 0, -E2BIG at the depth limit, -ENOENT without region state. */
int td_region_marker_enter(struct td_collector *c, struct td_thread *t, int region_id,
			   uintptr_t ra);
void td_region_marker_exit(struct td_collector *c, struct td_thread *t, int region_id);
/* Region id of a marker name, through a small per-thread cache; adds the
 * name when add is true and it is new (td_collector_region_id: may lock,
 * so only from a begin). -1 when unknown (add false), full, or t has no
 * region state. */
int td_region_marker_id(struct td_collector *c, struct td_thread *t, const char *name, bool add);

/* Open regions of t (depth of the region stack). */
int td_region_depth(const struct td_thread *t);

/* Closes every open region of t at this point (thread end). */
void td_regions_close_all(struct td_collector *c, struct td_thread *t);

/* Report: writes the "regions" array member of a thread object (plus its
 * "other_callsites_folded", "regions_depth_refused" and
 * "regions_unmatched_exits" members), and the process-wide "regions" array
 * merged over all threads by function and call site (plus the process
 * "other_callsites_folded"). Not async-signal-safe (allocates, reads ELF
 * files); reads other threads' tables consistently while they run. */
void td_regions_json_thread(const struct td_collector *c, const struct td_thread *t,
			    struct td_json *j);
void td_regions_json_process(const struct td_collector *c, struct td_json *j);

/* Summary: the top n regions of t, as text lines through line(). */
void td_regions_summary(const struct td_collector *c, const struct td_thread *t, int n,
			void (*line)(void *arg, const char *s), void *arg);

#endif
