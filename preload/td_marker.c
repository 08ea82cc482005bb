/* td_marker: the exported tdprobe_region_begin/end of preload/include/tdprobe.h.
 * They feed the same per-thread tables as hooked functions; the call site
 * is the begin call's return address. Threads that had no region state
 * (no [regions] functions configured) get it on their first marker. */
#include "td_preload.h"
#include "td_region.h"
#define TDPROBE_DEFINE_API
#include "tdprobe.h"

#include <errno.h>

/* Not a signal-handler path on first use: allocates the thread's table. */
static struct td_regions *td_marker_regions(struct td_collector *c, struct td_thread *t)
{
	struct td_regions *r = __atomic_load_n(&t->regions, __ATOMIC_ACQUIRE);
	if (td_likely(r != NULL))
		return r;
	r = td_regions_new(&c->cfg);
	if (r)
		__atomic_store_n(&t->regions, r, __ATOMIC_RELEASE);
	return r;
}

TD_EXPORT void tdprobe_region_begin(const char *name)
{
	uintptr_t ra = (uintptr_t)__builtin_return_address(0);
	if (td_unlikely(atomic_load_explicit(&td_state, memory_order_relaxed) != TD_STATE_RUNNING) ||
	    !name)
		return;
	struct td_thread *t = td_preload_thread();
	if (!t || !td_guard_take(t))
		return;
	int saved = errno;
	struct td_collector *c = td_preload_collector();
	if (c && td_marker_regions(c, t)) {
		int id = td_region_marker_id(c, t, name, true);
		if (id >= 0)
			td_region_marker_enter(c, t, id, ra);
	}
	errno = saved;
	td_guard_drop(t);
}

TD_EXPORT void tdprobe_region_end(const char *name)
{
	if (td_unlikely(atomic_load_explicit(&td_state, memory_order_relaxed) != TD_STATE_RUNNING) ||
	    !name)
		return;
	struct td_thread *t = td_preload_thread();
	if (!t || !td_guard_take(t))
		return;
	int saved = errno;
	struct td_collector *c = td_preload_collector();
	if (c && t->regions) {
		/* An unknown name cannot be open: -1 is counted as unmatched. */
		td_region_marker_exit(c, t, td_region_marker_id(c, t, name, false));
	}
	errno = saved;
	td_guard_drop(t);
}
