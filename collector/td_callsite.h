/* td_callsite: the call-site chain of a region entry, as raw return
 * addresses (symbolization happens at report time, td_symbolize.h).
 *
 * Depth 1 (the default) is the return address the hook already has: no
 * unwinding at all. Depth > 1 walks the stack with libunwind's
 * unw_backtrace, loaded privately with dlopen(RTLD_LOCAL) and never linked:
 * Debian's libunwind.so.8 exports _Unwind_* and a weak `backtrace` that must
 * not enter the host's global scope, or the host's C++ exceptions could end
 * up in libunwind's unwinder instead of libgcc_s's.
 *
 * Threading: a td_callsite is set up once (td_callsite_init, not hot) and
 * then only read; td_callsite_capture is safe on any thread. */
#ifndef TD_CALLSITE_H
#define TD_CALLSITE_H

#include <stdint.h>

#define TD_CALLSITE_MAX_DEPTH 16 /* [regions] callsite_depth upper bound */
#define TD_CALLSITE_LIBUNWIND "libunwind.so.8"

struct td_callsite {
	int depth;                          /* frames kept, 0..TD_CALLSITE_MAX_DEPTH */
	void *dl;                           /* dlopen handle of libunwind, or NULL */
	int (*backtrace)(void **buf, int n); /* unw_backtrace, or NULL */
};

/* Sets cs up for depth frames (clamped to 0..TD_CALLSITE_MAX_DEPTH; 0 keeps
 * no call site, so a region has one entry per thread). For depth > 1 loads
 * libunwind privately; if that fails cs keeps depth 1 and -ENOENT is
 * returned (the caller may log it once). 0 on success. */
int td_callsite_init(struct td_callsite *cs, int depth);
/* Drops the libunwind reference. cs may be zeroed. */
void td_callsite_exit(struct td_callsite *cs);

/* Fills out[0..depth) with the chain that starts at ra (frame 0 = ra, then
 * the callers of ra's function). Our own frames, up to ra, are skipped. If
 * ra is not found on the unwound stack (no unwind info), the chain is
 * just ra. Returns the number of frames written (>= 1 unless depth is 0). Hot path: no
 * allocation or lock of ours; libunwind's local unwinder is
 * async-signal-safe once warmed up (td_callsite_init warms it). */
int td_callsite_capture(const struct td_callsite *cs, uintptr_t ra, uintptr_t *out);

/* Hash of a chain of n frames (never 0, so 0 can mean "empty slot"). */
uint64_t td_callsite_hash(const uintptr_t *chain, int n);

#endif
