/* td_hook_rt: what runs on every hooked call — the C halves of the entry
 * and exit trampolines — and the shadow-stack fix-ups for non-local exits.
 * Hot path: no allocation, no lock, no syscall; errno kept. */
#include "td_hooks.h"
#include "td_region.h"
#include "td_log.h"

#include <errno.h>
#include <stddef.h>

/* Initial-exec TLS: no allocation or lock on first touch, usable from
 * signal handlers. */
static __thread struct td_hook_tls td_hook_tls_now;

struct td_hook_tls *td_hooks_tls(void)
{
	return &td_hook_tls_now;
}

static inline void td_hook_busy(struct td_hook_tls *tl, int v)
{
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	tl->busy = v;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
}

void *td_hook_enter(unsigned id, uintptr_t *ra_slot)
{
	struct td_hook *h = &td_hooks.tab[id];
	void *real = h->real;
	struct td_hook_tls *tl = &td_hook_tls_now;

	/* Our own code on this thread (or a handler that interrupted it): run
	 * the real function uncounted. */
	if (td_unlikely(atomic_load_explicit(&td_state, memory_order_relaxed) != TD_STATE_RUNNING) ||
	    tl->busy)
		return real;
	if (td_unlikely(tl->top >= TD_SHADOW_MAX || h->region < 0)) {
		tl->dropped++;
		return real;
	}
	td_hook_busy(tl, 1);
	int saved_errno = errno;
	struct td_thread *t = td_preload_thread();
	if (td_likely(t != NULL) && td_guard_take(t)) {
		uintptr_t ra = *ra_slot;
		/* A hooked function tail-calling another: the slot already holds
		 * the exit trampoline; the call site is the original caller. */
		for (int k = tl->top - 1; td_unlikely(ra == (uintptr_t)td_hooks.tramp.exit) && k >= 0; k--)
			if (tl->e[k].slot == ra_slot)
				ra = tl->e[k].ra;
		if (td_region_enter(td_hooks.c, t, h->region, ra) == 0) {
			struct td_shadow *e = &tl->e[tl->top];
			e->slot = ra_slot;
			e->ra = *ra_slot;
			e->region = h->region;
			e->hook = id;
			tl->top++;
			*ra_slot = (uintptr_t)td_hooks.tramp.exit;
		}
		td_guard_drop(t);
	}
	errno = saved_errno;
	td_hook_busy(tl, 0);
	return real;
}

/* Closes the region of one popped entry (guard permitting). */
static void td_hook_close(struct td_thread *t, const struct td_shadow *e)
{
	if (e->region < 0 || !t || !td_guard_take(t))
		return;
	td_region_exit(td_hooks.c, t, e->region);
	td_guard_drop(t);
}

uintptr_t td_hook_exit(uintptr_t sp)
{
	struct td_hook_tls *tl = &td_hook_tls_now;
	uintptr_t *slot = (uintptr_t *)(sp - sizeof(uintptr_t));
	int saved_errno = errno;
	int busy = tl->busy;

	td_hook_busy(tl, 1);
	/* Normally the top entry. Entries above the matching one belong to
	 * frames discarded by a non-local exit we did not see (an unwinder or
	 * longjmp implementation we do not interpose): close them first. */
	int k = tl->top - 1;
	while (k >= 0 && tl->e[k].slot != slot)
		k--;
	if (td_unlikely(k < 0)) {
		/* Cannot happen unless the shadow stack was corrupted; there is
		 * no address to return to. */
		td_err("hooks: return through a slot (%p) not in the shadow stack", (void *)slot);
		__builtin_trap();
	}
	struct td_thread *t = td_preload_thread();
	while (tl->top - 1 > k) {
		tl->top--;
		td_hook_close(t, &tl->e[tl->top]);
	}
	tl->top--;
	struct td_shadow *e = &tl->e[tl->top];
	uintptr_t ra = e->ra;
	td_hook_close(t, e);
	errno = saved_errno;
	td_hook_busy(tl, busy);
	return ra;
}

void td_hooks_shadow_restore(void)
{
	struct td_hook_tls *tl = &td_hook_tls_now;
	uintptr_t exit = (uintptr_t)td_hooks.tramp.exit;
	for (int i = tl->top - 1; i >= 0; i--)
		if (*tl->e[i].slot == exit)
			*tl->e[i].slot = tl->e[i].ra;
}

void td_hooks_shadow_rehijack(void)
{
	struct td_hook_tls *tl = &td_hook_tls_now;
	uintptr_t exit = (uintptr_t)td_hooks.tramp.exit;
	for (int i = tl->top - 1; i >= 0; i--)
		if (*tl->e[i].slot == tl->e[i].ra)
			*tl->e[i].slot = exit;
}

void td_hooks_shadow_discard(uintptr_t sp)
{
	struct td_hook_tls *tl = &td_hook_tls_now;
	if (tl->top == 0)
		return;
	int busy = tl->busy;
	int saved_errno = errno;
	td_hook_busy(tl, 1);
	struct td_thread *t = td_preload_thread();
	while (tl->top > 0 && (uintptr_t)tl->e[tl->top - 1].slot < sp) {
		tl->top--;
		td_hook_close(t, &tl->e[tl->top]);
	}
	errno = saved_errno;
	td_hook_busy(tl, busy);
}

bool td_hooks_is_exit(uintptr_t pc)
{
	return td_hooks.tramp.exit && pc == (uintptr_t)td_hooks.tramp.exit;
}

uintptr_t td_hooks_shadow_ra(unsigned nth)
{
	struct td_hook_tls *tl = &td_hook_tls_now;
	if (nth >= (unsigned)tl->top)
		return 0;
	return tl->e[tl->top - 1 - (int)nth].ra;
}

void td_hooks_fix_chain(uintptr_t *chain, int n)
{
	struct td_hook_tls *tl = &td_hook_tls_now;
	uintptr_t exit = (uintptr_t)td_hooks.tramp.exit;
	int k = tl->top - 1;
	for (int i = 0; i < n; i++) {
		if (chain[i] != exit)
			continue;
		/* Tail calls stack several entries on one slot; the bottom one
		 * holds the real address. */
		while (k >= 0 && tl->e[k].ra == exit)
			k--;
		if (k < 0)
			return;
		chain[i] = tl->e[k--].ra;
	}
}

/* Thread end or pthread_exit inside hooked functions: the forced unwind
 * that follows must see the real return addresses, and every region the
 * thread still has open through a hook is closed here, innermost first. */
void td_hooks_thread_exit(struct td_collector *c, struct td_thread *t)
{
	struct td_hook_tls *tl = &td_hook_tls_now;
	if (tl->top == 0)
		return;
	int busy = tl->busy;
	int saved_errno = errno;
	td_hooks_shadow_restore();
	td_hook_busy(tl, 1);
	/* The thread-end paths may already hold the guard for us. */
	bool took = t && td_guard_take(t);
	while (tl->top > 0) {
		tl->top--;
		struct td_shadow *e = &tl->e[tl->top];
		if (e->region >= 0 && t)
			td_region_exit(c, t, e->region);
	}
	if (took)
		td_guard_drop(t);
	errno = saved_errno;
	td_hook_busy(tl, busy);
}

/* The child's thread record is new: regions the parent opened are not open
 * there, so outstanding frames only get their return address back. */
void td_hooks_after_fork_child(void)
{
	struct td_hook_tls *tl = &td_hook_tls_now;
	for (int i = 0; i < tl->top; i++)
		tl->e[i].region = -1;
	pthread_mutex_init(&td_hooks.lock, NULL);
}
