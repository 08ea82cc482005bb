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

#include <stdint.h>

/* Allocates a thread's region state sized from cfg (not hot). NULL on ENOMEM. */
struct td_regions *td_regions_new(const struct td_config *cfg);
void td_regions_delete(struct td_regions *r);

/* ra: return address into the caller of the region's function (frame 0 of
 * the call site). Returns 0, or -1 when the region was not entered (depth
 * limit) — then the caller must not call td_region_exit for it. */
int td_region_enter(struct td_collector *c, struct td_thread *t, int region_id, uintptr_t ra);
void td_region_exit(struct td_collector *c, struct td_thread *t, int region_id);

/* Open regions of t (depth of the region stack). */
int td_region_depth(const struct td_thread *t);

/* Closes every open region of t at this point (thread end). */
void td_regions_close_all(struct td_collector *c, struct td_thread *t);

/* Report: writes the "regions" array member of a thread object, and the
 * process-wide "regions" array merged over all threads. */
void td_regions_json_thread(const struct td_collector *c, const struct td_thread *t,
			    struct td_json *j);
void td_regions_json_process(const struct td_collector *c, struct td_json *j);

/* Summary: the top n regions of t, as text lines through line(). */
void td_regions_summary(const struct td_collector *c, const struct td_thread *t, int n,
			void (*line)(void *arg, const char *s), void *arg);

#endif
