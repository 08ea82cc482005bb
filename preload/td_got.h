/* td_got: reads the dynamic section of a loaded ELF object (as reported by
 * dl_iterate_phdr) — relocation tables, dynamic symbols, hash tables,
 * symbol versions, RELRO range — and enumerates the GOT slots bound to
 * named symbols (R_X86_64_JUMP_SLOT from DT_JMPREL, R_X86_64_GLOB_DAT from
 * DT_RELA). Pure reading; writing a slot is td_got_write's one job.
 *
 * Threading: a parsed td_got_obj is a snapshot of memory owned by the
 * dynamic loader; valid while the object stays loaded. No allocation. */
#ifndef TD_GOT_H
#define TD_GOT_H

#include <elf.h>
#include <link.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if defined(__x86_64__)
#define TD_R_JUMP_SLOT R_X86_64_JUMP_SLOT
#define TD_R_GLOB_DAT R_X86_64_GLOB_DAT
#elif defined(__aarch64__)
#define TD_R_JUMP_SLOT R_AARCH64_JUMP_SLOT
#define TD_R_GLOB_DAT R_AARCH64_GLOB_DAT
#endif

struct td_got_obj {
	const char *name;             /* dlpi_name ("" for the executable) */
	uintptr_t base;               /* load bias */
	const ElfW(Phdr) *phdr;
	int phnum;
	const ElfW(Dyn) *dyn;
	const ElfW(Sym) *symtab;
	const char *strtab;
	size_t strsz;
	const ElfW(Rela) *jmprel;     /* DT_JMPREL (DT_PLTREL must be DT_RELA) */
	size_t jmprel_sz;
	const ElfW(Rela) *rela;       /* DT_RELA */
	size_t rela_sz;
	const uint32_t *gnu_hash;     /* DT_GNU_HASH or NULL */
	const uint32_t *sysv_hash;    /* DT_HASH or NULL */
	const ElfW(Half) *versym;     /* DT_VERSYM or NULL */
	const ElfW(Verneed) *verneed; /* DT_VERNEED or NULL */
	size_t verneed_num;
	const ElfW(Verdef) *verdef;   /* DT_VERDEF or NULL */
	size_t verdef_num;
	uintptr_t relro_start, relro_end; /* page-rounded PT_GNU_RELRO, or 0 */
	bool bind_now;                /* DF_BIND_NOW or DF_1_NOW */
	size_t nsyms;                 /* dynamic symbol count, from the hash table */
};

/* One GOT slot bound to a symbol. */
struct td_got_slot {
	void **slot;              /* address of the GOT entry */
	const char *sym;          /* symbol name in the object's string table */
	const char *version;      /* required version (DT_VERNEED) or NULL */
	unsigned type;            /* TD_R_JUMP_SLOT or TD_R_GLOB_DAT */
	unsigned char st_type;    /* STT_* of the referencing symbol entry */
};

/* Parses the object's dynamic section. Returns 0, -ENOENT when it has no
 * PT_DYNAMIC (static executable) or no symbol/string table, -EINVAL when
 * a table is malformed. */
int td_got_parse(struct td_got_obj *o, const char *name, uintptr_t base, const ElfW(Phdr) *phdr,
		 int phnum);

/* Calls fn for each JUMP_SLOT / GLOB_DAT relocation with a named symbol.
 * Stops when fn returns non-zero and returns that value; else 0. */
int td_got_for_each_slot(const struct td_got_obj *o,
			 int (*fn)(void *arg, const struct td_got_obj *o,
				   const struct td_got_slot *s),
			 void *arg);

/* The object's definition of name (defined, default or base version,
 * found through DT_GNU_HASH or DT_HASH), or NULL. */
const ElfW(Sym) *td_got_lookup(const struct td_got_obj *o, const char *name);

/* Calls fn for every defined function symbol of the object (exported
 * functions and ifuncs). Stops on non-zero like td_got_for_each_slot. */
int td_got_for_each_func(const struct td_got_obj *o,
			 int (*fn)(void *arg, const struct td_got_obj *o, const char *name,
				   const ElfW(Sym) *sym),
			 void *arg);

/* True when addr lies inside one of the object's PT_LOAD segments. */
bool td_got_contains(const struct td_got_obj *o, uintptr_t addr);

/* Writes value into a slot of o, making a RELRO page writable for the
 * store and read-only again after. Returns 0 or -errno (slot outside any
 * writable or RELRO segment: -EFAULT; mprotect failure). Callers serialise. */
int td_got_write(const struct td_got_obj *o, void **slot, void *value);

#endif
