#include "td_got.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* glibc relocates the d_ptr values of the in-memory dynamic section on
 * x86_64 and aarch64; other loaders (and the vDSO) leave them as file
 * offsets. A value below the load bias cannot be relocated yet. */
static uintptr_t td_got_ptr(uintptr_t base, ElfW(Addr) p)
{
	return p < base ? base + p : p;
}

static size_t td_got_gnu_count(const uint32_t *h)
{
	uint32_t nbuckets = h[0], symoffset = h[1], bloom_size = h[2];
	const ElfW(Addr) *bloom = (const ElfW(Addr) *)&h[4];
	const uint32_t *buckets = (const uint32_t *)&bloom[bloom_size];
	const uint32_t *chain = &buckets[nbuckets];
	uint32_t last = 0;

	for (uint32_t i = 0; i < nbuckets; i++)
		if (buckets[i] > last)
			last = buckets[i];
	/* No defined symbol in the table: symoffset need not count the
	 * undefined ones (GNU ld writes 1 for an aarch64 executable that
	 * exports nothing), so the count is unknown (0). */
	if (last < symoffset)
		return 0;
	while (!(chain[last - symoffset] & 1))
		last++;
	return (size_t)last + 1;
}

int td_got_parse(struct td_got_obj *o, const char *name, uintptr_t base, const ElfW(Phdr) *phdr,
		 int phnum)
{
	memset(o, 0, sizeof(*o));
	o->name = name ? name : "";
	o->base = base;
	o->phdr = phdr;
	o->phnum = phnum;
	long page = sysconf(_SC_PAGESIZE);

	for (int i = 0; i < phnum; i++) {
		if (phdr[i].p_type == PT_DYNAMIC) {
			o->dyn = (const ElfW(Dyn) *)(base + phdr[i].p_vaddr);
		} else if (phdr[i].p_type == PT_GNU_RELRO) {
			uintptr_t s = base + phdr[i].p_vaddr;
			uintptr_t e = s + phdr[i].p_memsz;
			o->relro_start = s & ~(uintptr_t)(page - 1);
			o->relro_end = e & ~(uintptr_t)(page - 1);
		}
	}
	if (!o->dyn)
		return -ENOENT;

	int pltrel = DT_RELA;
	size_t relaent = sizeof(ElfW(Rela));
	for (const ElfW(Dyn) *d = o->dyn; d->d_tag != DT_NULL; d++) {
		ElfW(Addr) p = d->d_un.d_ptr;
		switch (d->d_tag) {
		case DT_SYMTAB: o->symtab = (const ElfW(Sym) *)td_got_ptr(base, p); break;
		case DT_STRTAB: o->strtab = (const char *)td_got_ptr(base, p); break;
		case DT_STRSZ: o->strsz = d->d_un.d_val; break;
		case DT_JMPREL: o->jmprel = (const ElfW(Rela) *)td_got_ptr(base, p); break;
		case DT_PLTRELSZ: o->jmprel_sz = d->d_un.d_val; break;
		case DT_PLTREL: pltrel = (int)d->d_un.d_val; break;
		case DT_RELA: o->rela = (const ElfW(Rela) *)td_got_ptr(base, p); break;
		case DT_RELASZ: o->rela_sz = d->d_un.d_val; break;
		case DT_RELAENT: relaent = d->d_un.d_val; break;
		case DT_GNU_HASH: o->gnu_hash = (const uint32_t *)td_got_ptr(base, p); break;
		case DT_HASH: o->sysv_hash = (const uint32_t *)td_got_ptr(base, p); break;
		case DT_VERSYM: o->versym = (const ElfW(Half) *)td_got_ptr(base, p); break;
		case DT_VERNEED: o->verneed = (const ElfW(Verneed) *)td_got_ptr(base, p); break;
		case DT_VERNEEDNUM: o->verneed_num = d->d_un.d_val; break;
		case DT_VERDEF: o->verdef = (const ElfW(Verdef) *)td_got_ptr(base, p); break;
		case DT_VERDEFNUM: o->verdef_num = d->d_un.d_val; break;
		case DT_BIND_NOW: o->bind_now = true; break;
		case DT_FLAGS:
			if (d->d_un.d_val & DF_BIND_NOW)
				o->bind_now = true;
			break;
		case DT_FLAGS_1:
			if (d->d_un.d_val & DF_1_NOW)
				o->bind_now = true;
			break;
		default: break;
		}
	}
	if (!o->symtab || !o->strtab)
		return -ENOENT;
	/* Only RELA is used on the architectures we support. */
	if (pltrel != DT_RELA || relaent != sizeof(ElfW(Rela)))
		return -EINVAL;
	if (o->gnu_hash)
		o->nsyms = td_got_gnu_count(o->gnu_hash);
	else if (o->sysv_hash)
		o->nsyms = o->sysv_hash[1];
	return 0;
}

/* The version an undefined symbol asks for, from DT_VERNEED. */
static const char *td_got_needed_version(const struct td_got_obj *o, size_t symidx)
{
	if (!o->versym || !o->verneed)
		return NULL;
	ElfW(Half) want = o->versym[symidx] & 0x7fff;
	if (want < 2)
		return NULL;
	const ElfW(Verneed) *vn = o->verneed;
	for (size_t i = 0; i < o->verneed_num; i++) {
		const ElfW(Vernaux) *va = (const ElfW(Vernaux) *)((const char *)vn + vn->vn_aux);
		for (unsigned k = 0; k < vn->vn_cnt; k++) {
			if (va->vna_other == want)
				return va->vna_name < o->strsz ? o->strtab + va->vna_name : NULL;
			if (!va->vna_next)
				break;
			va = (const ElfW(Vernaux) *)((const char *)va + va->vna_next);
		}
		if (!vn->vn_next)
			break;
		vn = (const ElfW(Verneed) *)((const char *)vn + vn->vn_next);
	}
	return NULL;
}

static int td_got_walk_rela(const struct td_got_obj *o, const ElfW(Rela) *r, size_t sz,
			    int (*fn)(void *, const struct td_got_obj *, const struct td_got_slot *),
			    void *arg)
{
	size_t n = sz / sizeof(ElfW(Rela));
	for (size_t i = 0; i < n; i++) {
		unsigned type = (unsigned)ELF64_R_TYPE(r[i].r_info);
		size_t symidx = ELF64_R_SYM(r[i].r_info);
		if ((type != TD_R_JUMP_SLOT && type != TD_R_GLOB_DAT) || symidx == 0)
			continue;
		if (o->nsyms && symidx >= o->nsyms)
			return -EINVAL;
		const ElfW(Sym) *sym = &o->symtab[symidx];
		if (o->strsz && sym->st_name >= o->strsz)
			return -EINVAL;
		struct td_got_slot s = {
			.slot = (void **)(o->base + r[i].r_offset),
			.sym = o->strtab + sym->st_name,
			.version = td_got_needed_version(o, symidx),
			.type = type,
			.st_type = (unsigned char)ELF64_ST_TYPE(sym->st_info),
		};
		if (!s.sym[0])
			continue;
		int ret = fn(arg, o, &s);
		if (ret)
			return ret;
	}
	return 0;
}

int td_got_for_each_slot(const struct td_got_obj *o,
			 int (*fn)(void *arg, const struct td_got_obj *o,
				   const struct td_got_slot *s),
			 void *arg)
{
	int ret = 0;
	if (o->jmprel)
		ret = td_got_walk_rela(o, o->jmprel, o->jmprel_sz, fn, arg);
	/* DT_RELA may include DT_JMPREL (some linkers overlap them): skip the
	 * overlap so each slot is seen once. */
	if (!ret && o->rela) {
		size_t sz = o->rela_sz;
		if (o->jmprel && (const char *)o->jmprel >= (const char *)o->rela &&
		    (const char *)o->jmprel < (const char *)o->rela + sz)
			sz = (size_t)((const char *)o->jmprel - (const char *)o->rela);
		ret = td_got_walk_rela(o, o->rela, sz, fn, arg);
	}
	return ret;
}

static bool td_got_sym_defined(const struct td_got_obj *o, size_t i)
{
	const ElfW(Sym) *s = &o->symtab[i];
	if (s->st_shndx == SHN_UNDEF || s->st_value == 0)
		return false;
	/* A hidden (non-default) version such as memcpy@GLIBC_2.2.5. */
	if (o->versym && (o->versym[i] & 0x8000))
		return false;
	return true;
}

static uint32_t td_got_gnu_hashfn(const char *s)
{
	uint32_t h = 5381;
	for (; *s; s++)
		h = h * 33 + (unsigned char)*s;
	return h;
}

static uint32_t td_got_sysv_hashfn(const char *s)
{
	uint32_t h = 0, g;
	for (; *s; s++) {
		h = (h << 4) + (unsigned char)*s;
		g = h & 0xf0000000;
		if (g)
			h ^= g >> 24;
		h &= ~g;
	}
	return h;
}

const ElfW(Sym) *td_got_lookup(const struct td_got_obj *o, const char *name)
{
	if (o->gnu_hash) {
		const uint32_t *h = o->gnu_hash;
		uint32_t nbuckets = h[0], symoffset = h[1], bloom_size = h[2], shift = h[3];
		const ElfW(Addr) *bloom = (const ElfW(Addr) *)&h[4];
		const uint32_t *buckets = (const uint32_t *)&bloom[bloom_size];
		const uint32_t *chain = &buckets[nbuckets];
		uint32_t hv = td_got_gnu_hashfn(name);
		const unsigned bits = sizeof(ElfW(Addr)) * 8;
		ElfW(Addr) word = bloom[(hv / bits) % bloom_size];
		ElfW(Addr) mask = ((ElfW(Addr))1 << (hv % bits)) | ((ElfW(Addr))1 << ((hv >> shift) % bits));
		if ((word & mask) != mask || nbuckets == 0)
			return NULL;
		uint32_t i = buckets[hv % nbuckets];
		if (i < symoffset)
			return NULL;
		for (;; i++) {
			uint32_t ch = chain[i - symoffset];
			if ((ch | 1) == (hv | 1) && strcmp(o->strtab + o->symtab[i].st_name, name) == 0 &&
			    td_got_sym_defined(o, i))
				return &o->symtab[i];
			if (ch & 1)
				break;
		}
		return NULL;
	}
	if (o->sysv_hash) {
		const uint32_t *h = o->sysv_hash;
		uint32_t nbucket = h[0], nchain = h[1];
		const uint32_t *bucket = &h[2], *chain = &bucket[nbucket];
		if (nbucket == 0)
			return NULL;
		for (uint32_t i = bucket[td_got_sysv_hashfn(name) % nbucket]; i && i < nchain;
		     i = chain[i]) {
			if (strcmp(o->strtab + o->symtab[i].st_name, name) == 0 &&
			    td_got_sym_defined(o, i))
				return &o->symtab[i];
		}
	}
	return NULL;
}

int td_got_for_each_func(const struct td_got_obj *o,
			 int (*fn)(void *arg, const struct td_got_obj *o, const char *name,
				   const ElfW(Sym) *sym),
			 void *arg)
{
	for (size_t i = 1; i < o->nsyms; i++) {
		const ElfW(Sym) *s = &o->symtab[i];
		unsigned t = ELF64_ST_TYPE(s->st_info);
		if ((t != STT_FUNC && t != STT_GNU_IFUNC) || !td_got_sym_defined(o, i))
			continue;
		int ret = fn(arg, o, o->strtab + s->st_name, s);
		if (ret)
			return ret;
	}
	return 0;
}

bool td_got_contains(const struct td_got_obj *o, uintptr_t addr)
{
	for (int i = 0; i < o->phnum; i++) {
		const ElfW(Phdr) *p = &o->phdr[i];
		if (p->p_type == PT_LOAD && addr >= o->base + p->p_vaddr &&
		    addr < o->base + p->p_vaddr + p->p_memsz)
			return true;
	}
	return false;
}

int td_got_write(const struct td_got_obj *o, void **slot, void *value)
{
	uintptr_t a = (uintptr_t)slot;
	if (a >= o->relro_start && a + sizeof(void *) <= o->relro_end) {
		long page = sysconf(_SC_PAGESIZE);
		void *pg = (void *)(a & ~(uintptr_t)(page - 1));
		if (mprotect(pg, (size_t)page, PROT_READ | PROT_WRITE))
			return -errno;
		__atomic_store_n(slot, value, __ATOMIC_RELEASE);
		if (mprotect(pg, (size_t)page, PROT_READ))
			return -errno;
		return 0;
	}
	for (int i = 0; i < o->phnum; i++) {
		const ElfW(Phdr) *p = &o->phdr[i];
		if (p->p_type == PT_LOAD && (p->p_flags & PF_W) && a >= o->base + p->p_vaddr &&
		    a + sizeof(void *) <= o->base + p->p_vaddr + p->p_memsz) {
			__atomic_store_n(slot, value, __ATOMIC_RELEASE);
			return 0;
		}
	}
	return -EFAULT;
}
