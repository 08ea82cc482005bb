/* td_hooks: function regions in unmodified binaries.
 *
 * At install, every GOT slot (JUMP_SLOT, GLOB_DAT) of every loaded object
 * whose symbol matches [regions] functions is pointed at a per-symbol stub
 * (td_tramp.h); objects loaded later are patched by the dlopen/dlmopen
 * interposers, and dlsym of a hooked name returns the stub. The stub enters
 * td_hook_enter, which opens the region and swaps the caller's return
 * address for the exit trampoline, keeping the original in a per-thread
 * shadow stack; td_hook_exit closes the region and returns there.
 * Non-local exits (td_nonlocal.c) fix the shadow stack up.
 *
 * Threading: install and the dl* interposers serialise on the hooks lock;
 * the hook table is append-only and read lock-free; the shadow stack is
 * thread-local and only touched by its own thread (signal handlers
 * included, kept out by the busy flag while it is being changed). */
#ifndef TD_HOOKS_H
#define TD_HOOKS_H

#include "td_preload.h"
#include "td_tramp.h"
#include "../collector/td_json.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#define TD_HOOKS_MAX 4096      /* distinct (name, target) pairs */
#define TD_HOOKS_MAX_PATTERNS 64
#define TD_SHADOW_MAX 512      /* hijacked frames outstanding per thread */

struct td_hook {
	void *real;        /* the function the stub runs */
	void *stub;        /* what GOT slots and dlsym hand out instead */
	int region;        /* region id, -1 when the name table was full */
	const char *name;  /* symbol name (owned) */
};

struct td_hook_pattern {
	char *text;        /* name or fnmatch glob (owned) */
	bool glob;
	unsigned slots;    /* GOT slots patched for it */
	unsigned hooks;    /* distinct functions hooked for it */
	unsigned pointers; /* GLOB_DAT slots left alone: the code reads the pointer */
	unsigned refused;  /* slots left alone (td_hooks_refused, our own interposers) */
	bool defined;      /* some loaded object defines a match */
};

struct td_hooks_stats {
	unsigned patterns;
	unsigned missing;       /* patterns with no symbol in any loaded object */
	unsigned unreachable;   /* defined, but no GOT slot refers to them */
	unsigned hooks;         /* distinct hooked functions */
	unsigned slots;         /* GOT slots patched, over all objects */
	unsigned objects;       /* objects walked at the last scan */
	unsigned dropped_depth; /* entries not counted: shadow stack full (this thread) */
};

/* The hooks' one per-image state: the stubs carry only an id, so the
 * table they index has to be reachable without a context argument. */
struct td_hooks {
	struct td_collector *c;
	bool installed;
	pthread_mutex_t lock;
	struct td_tramp tramp;
	struct td_hook tab[TD_HOOKS_MAX];
	_Atomic unsigned nr;
	unsigned nr_stubbed;   /* hooks [0, nr_stubbed) have their stub */
	struct td_hook_pattern pat[TD_HOOKS_MAX_PATTERNS];
	unsigned npat;
	unsigned slots;
	unsigned objects;
	uintptr_t self_base, ldso_base, vdso_base;
	_Atomic int rescan;     /* an object was loaded behind our back */
	/* libc's dl functions, found through its symbol table so that our
	 * own dlsym interposer is never needed to find them. */
	void *(*real_dlopen)(const char *, int);
	void *(*real_dlmopen)(long, const char *, int);
	void *(*real_dlsym)(void *, const char *);
	void *(*real_dlvsym)(void *, const char *, const char *);
};

extern struct td_hooks td_hooks;

/* One outstanding hijacked frame. */
struct td_shadow {
	uintptr_t *slot;   /* the return-address slot on the stack */
	uintptr_t ra;      /* the original return address */
	int region;        /* region to close, -1: none (after fork) */
	unsigned hook;
};

struct td_hook_tls {
	int busy;          /* tdprobe hook code runs on this thread */
	int top;
	unsigned dropped;  /* entries skipped because the stack was full */
	struct td_shadow e[TD_SHADOW_MAX];
};

struct td_hook_tls *td_hooks_tls(void);

/* Called by the assembly trampolines. */
void *td_hook_enter(unsigned id, uintptr_t *ra_slot);
uintptr_t td_hook_exit(uintptr_t sp);

/* Shadow stack operations for non-local exits, on the calling thread.
 * restore: put every original return address back (before an unwinder or
 * pthread_exit walks the stack). rehijack: swap the exit trampoline back
 * into every slot that is still live. discard: close and pop the frames
 * whose RA slot lies below sp (longjmp target, catching frame), innermost
 * first. All async-signal-safe. */
void td_hooks_shadow_restore(void);
void td_hooks_shadow_rehijack(void);
void td_hooks_shadow_discard(uintptr_t sp);

/* For call-site capture: true when pc is the exit trampoline (an unwinder
 * stops there), and the original return address of the nth outstanding
 * hijacked frame counted from the innermost (0), or 0. */
bool td_hooks_is_exit(uintptr_t pc);
uintptr_t td_hooks_shadow_ra(unsigned nth);
/* Replaces exit-trampoline addresses in a captured chain (innermost frame
 * first, taken on this thread) with the original return addresses. An
 * unwinder stops at the first one, so this restores that one frame. */
void td_hooks_fix_chain(uintptr_t *chain, int n);

/* Scans all loaded objects and patches what matches (install path: takes
 * the lock). Returns the number of slots newly patched or -errno. */
int td_hooks_scan(void);

/* The stub for a real function looked up by name (dlsym), creating the
 * hook when name matches a pattern; addr itself when not hooked. */
void *td_hooks_subst(const char *name, void *addr);

/* Resolves the real functions behind the non-local exit interposers. */
void td_nonlocal_init(void);

/* Resolves libc's dl functions without going through dlsym. 0 or -ENOENT. */
int td_hooks_resolve_dl(void);

void td_hooks_get_stats(struct td_hooks_stats *st);
/* Writes a "hooks" object member: variant, counts, missing names. */
void td_hooks_json(struct td_json *j);

#endif
