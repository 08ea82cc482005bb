/* td_symbolize: code address -> module, symbol, offset, at report time only.
 *
 * dladdr first (the dynamic symbol table); where it finds no symbol, the
 * module's own ELF .symtab, read from its file (static functions, and
 * executables built without -rdynamic); a stripped module gives just the
 * module and the offset from its load base (addr2line's input).
 *
 * A td_symbolize is a cache for one report: modules are looked up and
 * their symbol tables read once. Not for hot paths or signal handlers
 * (allocates, opens files). One thread at a time. */
#ifndef TD_SYMBOLIZE_H
#define TD_SYMBOLIZE_H

#include <stdint.h>

struct td_symbolize;

struct td_frame_info {
	uintptr_t address;
	const char *module; /* file path; NULL when no loaded object holds the address */
	const char *symbol; /* NULL when unknown (stripped) */
	uintptr_t offset;   /* from symbol when known, else from the module's load base */
};

struct td_symbolize *td_symbolize_new(void);
void td_symbolize_delete(struct td_symbolize *s);

/* Fills out for addr. Return addresses (call sites) should pass
 * is_return = 1: the lookup then uses addr - 1, so a call that ends a
 * function is attributed to it, not to the next one; out->offset is still
 * relative to addr. Strings stay valid until td_symbolize_delete. Returns
 * 0, or -ENOENT when no loaded object contains addr (out->module NULL). */
int td_symbolize_addr(struct td_symbolize *s, uintptr_t addr, int is_return,
		      struct td_frame_info *out);

#endif
