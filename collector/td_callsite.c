#include "td_callsite.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdbool.h>
#include <string.h>

/* From the hooks (preload/td_hooks.h), weak so the collector stands alone:
 * a hijacked return slot holds the exit trampoline, where unwinding stops;
 * the shadow stack has the real return address. */
bool td_hooks_is_exit(uintptr_t pc) __attribute__((weak));
uintptr_t td_hooks_shadow_ra(unsigned nth) __attribute__((weak));
void td_hooks_fix_chain(uintptr_t *chain, int n) __attribute__((weak));

/* How far past ra's position we look for it in the unwound stack: our own
 * frames (capture, region enter, hook/marker C code, trampoline) come
 * first, a handful at most. */
#define TD_CALLSITE_OWN_FRAMES 12

int td_callsite_init(struct td_callsite *cs, int depth)
{
	memset(cs, 0, sizeof(*cs));
	if (depth < 0)
		depth = 0;
	if (depth > TD_CALLSITE_MAX_DEPTH)
		depth = TD_CALLSITE_MAX_DEPTH;
	cs->depth = depth < 1 ? depth : 1;
	if (depth <= 1)
		return 0;

	/* RTLD_LOCAL: libunwind's symbols (and liblzma's) stay out of the
	 * global scope; we reach unw_backtrace through dlsym only. */
	void *dl = dlopen(TD_CALLSITE_LIBUNWIND, RTLD_LOCAL | RTLD_LAZY);
	if (!dl)
		return -ENOENT;
	int (*bt)(void **, int);
	*(void **)&bt = dlsym(dl, "unw_backtrace");
	if (!bt) {
		dlclose(dl);
		return -ENOENT;
	}
	/* Warm-up: the first unwind resolves lazy bindings and fills
	 * libunwind's caches; doing it here keeps it out of hooks that may
	 * run in signal handlers. */
	void *warm[4];
	bt(warm, 4);
	cs->dl = dl;
	cs->backtrace = bt;
	cs->depth = depth;
	return 0;
}

void td_callsite_exit(struct td_callsite *cs)
{
	if (cs->dl)
		dlclose(cs->dl);
	int depth = cs->depth < 1 ? cs->depth : 1;
	memset(cs, 0, sizeof(*cs));
	cs->depth = depth;
}

int td_callsite_capture(const struct td_callsite *cs, uintptr_t ra, uintptr_t *out)
{
	if (cs->depth <= 0)
		return 0;
	out[0] = ra;
	if (cs->depth == 1 || !cs->backtrace)
		return 1;

	void *buf[TD_CALLSITE_OWN_FRAMES + TD_CALLSITE_MAX_DEPTH];
	int n = cs->backtrace(buf, TD_CALLSITE_OWN_FRAMES + cs->depth);
	int at = -1;
	uintptr_t adj = 0;
	for (int i = 0; i < n && i < TD_CALLSITE_OWN_FRAMES; i++) {
		/* libunwind on aarch64 reports return addresses minus 1 (inside
		 * the call): accept that form and hand out return addresses. */
		if ((uintptr_t)buf[i] == ra || (uintptr_t)buf[i] + 1 == ra) {
			at = i;
			adj = ra - (uintptr_t)buf[i];
			break;
		}
	}
	if (at < 0)
		return 1;
	int k = 1;
	for (int i = at + 1; i < n && k < cs->depth; i++) {
		uintptr_t pc = (uintptr_t)buf[i] + adj;
		if (td_hooks_is_exit && td_hooks_is_exit(pc)) {
			/* The enclosing hooked call's real return address; the
			 * unwinder cannot go past its trampoline. The region being
			 * entered is not on the shadow stack yet. */
			out[k++] = pc;
			if (td_hooks_fix_chain)
				td_hooks_fix_chain(out, k); /* knows tail-call stacking */
			else if (td_hooks_shadow_ra)
				out[k - 1] = td_hooks_shadow_ra(0);
			if (!out[k - 1] || td_hooks_is_exit(out[k - 1]))
				k--;
			break;
		}
		out[k++] = pc;
	}
	return k;
}

uint64_t td_callsite_hash(const uintptr_t *chain, int n)
{
	/* FNV-style mixing with a final avalanche (splitmix64): cheap, and the
	 * low bits are good enough for a power-of-two table index. */
	uint64_t h = 0x9e3779b97f4a7c15ull ^ (uint64_t)n;
	for (int i = 0; i < n; i++) {
		h ^= (uint64_t)chain[i];
		h *= 0x100000001b3ull;
		h ^= h >> 29;
	}
	h ^= h >> 30;
	h *= 0xbf58476d1ce4e5b9ull;
	h ^= h >> 27;
	h *= 0x94d049bb133111ebull;
	h ^= h >> 31;
	return h ? h : 1;
}
