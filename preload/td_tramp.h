/* td_tramp: the per-hook stubs. Each stub is a few bytes of generated code
 * that loads its hook id and jumps to the common assembly entry
 * (arch/<arch>/td_trampoline.S). Stubs live in pages that are written once
 * while read-write and then made read-execute (W^X): a new batch of hooks
 * always gets fresh pages, a sealed page is never written again.
 *
 * Threading: td_tramp_make is called with the hooks lock held;
 * td_tramp_lookup is lock-free (pages are published before use and never
 * removed). */
#ifndef TD_TRAMP_H
#define TD_TRAMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdatomic.h>
#include <stdint.h>

#define TD_TRAMP_MAX_PAGES 1024

struct td_tramp_page {
	uintptr_t base;     /* page address */
	unsigned first_id;  /* hook id of the first stub */
	unsigned n;         /* stubs in the page */
};

struct td_tramp {
	void *entry;        /* common entry the stubs jump to */
	void *exit;         /* exit trampoline written into hijacked RA slots */
	const char *variant;
	struct td_tramp_page pages[TD_TRAMP_MAX_PAGES];
	_Atomic unsigned nr_pages;
};

/* Picks the entry/exit variant for this CPU. */
void td_tramp_init(struct td_tramp *tp);

/* Makes stubs for hook ids first..first+n-1; stubs[i] receives the address
 * of the stub of id first+i. Returns 0 or -errno (-ENOSPC: page table full). */
int td_tramp_make(struct td_tramp *tp, unsigned first, unsigned n, void **stubs);

/* True when addr is one of our stubs; *id receives its hook id. */
bool td_tramp_lookup(const struct td_tramp *tp, uintptr_t addr, unsigned *id);

/* Arch parts (arch/<arch>/td_tramp_<arch>.c). */
extern const unsigned td_tramp_arch_stub_size;   /* bytes per stub */
extern const unsigned td_tramp_arch_header_size; /* bytes at the page start */
/* Writes the page header (the entry address) at page. */
void td_tramp_arch_header(void *page, void *entry);
/* Writes the stub for id at stub, inside the page starting at page. */
void td_tramp_arch_stub(void *page, void *stub, unsigned id);
/* Chooses entry and exit code for this CPU. */
void td_tramp_arch_select(struct td_tramp *tp);
/* A lazy-binding PLT stub (GOT value before first resolution)? */
bool td_tramp_arch_is_lazy_plt(uintptr_t code);
/* If the code at addr is an indirect jump through memory (a PLT entry),
 * the address of the memory word it jumps through, else NULL. */
void **td_tramp_arch_plt_slot(uintptr_t code);
/* How code in [text, text+len) uses the GOT slots slots[0..n) (sorted by
 * address): uses[i] gets TD_SLOT_CALL for an indirect call/jump through
 * the slot, TD_SLOT_OTHER for any other reference (the pointer's value is
 * taken: patching it would change the function's address as the program
 * sees it). */
#define TD_SLOT_CALL 1
#define TD_SLOT_OTHER 2
void td_tramp_arch_slot_uses(const unsigned char *text, size_t len, void *const *const *slots,
			     unsigned char *uses, size_t n);

#endif
