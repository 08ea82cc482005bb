#include "td_symbolize.h"

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* A function symbol of a module's .symtab, value relative to the file. */
struct td_sym {
	uint64_t value;
	uint64_t size;
	const char *name; /* into the module's mapped file */
};

struct td_module {
	const struct link_map *lm;
	uintptr_t base;       /* load bias (l_addr) */
	char *path;           /* what we report */
	bool symtab_tried;
	void *map;            /* the file, mapped read-only, or NULL */
	size_t map_len;
	struct td_sym *syms;  /* sorted by value */
	size_t nr_syms;
};

struct td_symbolize {
	struct td_module *mods;
	size_t nr_mods, cap_mods;
};

struct td_symbolize *td_symbolize_new(void)
{
	return calloc(1, sizeof(struct td_symbolize));
}

void td_symbolize_delete(struct td_symbolize *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nr_mods; i++) {
		struct td_module *m = &s->mods[i];
		free(m->path);
		free(m->syms);
		if (m->map)
			munmap(m->map, m->map_len);
	}
	free(s->mods);
	free(s);
}

static int td_sym_cmp(const void *a, const void *b)
{
	const struct td_sym *x = a, *y = b;
	return x->value < y->value ? -1 : x->value > y->value;
}

/* Maps path and collects the sized function symbols of its .symtab. */
static void td_module_read_symtab(struct td_module *m, const char *file)
{
	m->symtab_tried = true;
	int fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	struct stat st;
	if (fstat(fd, &st) || st.st_size < (off_t)sizeof(Elf64_Ehdr)) {
		close(fd);
		return;
	}
	size_t len = (size_t)st.st_size;
	void *map = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return;
	const unsigned char *p = map;
	const Elf64_Ehdr *eh = map;
	if (memcmp(p, ELFMAG, SELFMAG) || p[EI_CLASS] != ELFCLASS64 || !eh->e_shoff ||
	    eh->e_shentsize != sizeof(Elf64_Shdr) ||
	    eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr) > len)
		goto fail;
	const Elf64_Shdr *sh = (const Elf64_Shdr *)(p + eh->e_shoff);
	for (unsigned i = 0; i < eh->e_shnum; i++) {
		if (sh[i].sh_type != SHT_SYMTAB || sh[i].sh_link >= eh->e_shnum)
			continue;
		const Elf64_Shdr *strs = &sh[sh[i].sh_link];
		if (sh[i].sh_offset + sh[i].sh_size > len || strs->sh_offset + strs->sh_size > len ||
		    sh[i].sh_entsize != sizeof(Elf64_Sym))
			goto fail;
		const Elf64_Sym *sym = (const Elf64_Sym *)(p + sh[i].sh_offset);
		size_t n = sh[i].sh_size / sizeof(Elf64_Sym);
		const char *str = (const char *)(p + strs->sh_offset);
		m->syms = calloc(n ? n : 1, sizeof(*m->syms));
		if (!m->syms)
			goto fail;
		for (size_t k = 0; k < n; k++) {
			int type = ELF64_ST_TYPE(sym[k].st_info);
			if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym[k].st_shndx == SHN_UNDEF ||
			    !sym[k].st_size || sym[k].st_name >= strs->sh_size)
				continue;
			m->syms[m->nr_syms++] = (struct td_sym){ sym[k].st_value, sym[k].st_size,
								 str + sym[k].st_name };
		}
		qsort(m->syms, m->nr_syms, sizeof(*m->syms), td_sym_cmp);
		m->map = map;
		m->map_len = len;
		return;
	}
fail:
	free(m->syms);
	m->syms = NULL;
	m->nr_syms = 0;
	munmap(map, len);
}

static const struct td_sym *td_module_find(const struct td_module *m, uint64_t off)
{
	size_t lo = 0, hi = m->nr_syms;
	while (lo < hi) { /* first symbol with value > off */
		size_t mid = (lo + hi) / 2;
		if (m->syms[mid].value <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Look back a few: aliases and nested symbols share start values. */
	for (size_t i = lo, seen = 0; i > 0 && seen < 8; i--, seen++) {
		const struct td_sym *s = &m->syms[i - 1];
		if (off >= s->value && off < s->value + s->size)
			return s;
	}
	return NULL;
}

static struct td_module *td_module_get(struct td_symbolize *s, const struct link_map *lm,
				       const char *dli_fname)
{
	for (size_t i = 0; i < s->nr_mods; i++)
		if (s->mods[i].lm == lm)
			return &s->mods[i];
	if (s->nr_mods == s->cap_mods) {
		size_t cap = s->cap_mods ? 2 * s->cap_mods : 16;
		struct td_module *n = realloc(s->mods, cap * sizeof(*n));
		if (!n)
			return NULL;
		s->mods = n;
		s->cap_mods = cap;
	}
	struct td_module *m = &s->mods[s->nr_mods];
	memset(m, 0, sizeof(*m));
	m->lm = lm;
	m->base = lm->l_addr;
	if (lm->l_name && lm->l_name[0]) {
		m->path = strdup(lm->l_name);
	} else {
		/* The main program's link map has no name. */
		char buf[4096];
		ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
		if (n > 0) {
			buf[n] = 0;
			m->path = strdup(buf);
		} else {
			m->path = strdup(dli_fname && dli_fname[0] ? dli_fname : "[main]");
		}
	}
	if (!m->path)
		return NULL;
	s->nr_mods++;
	return m;
}

int td_symbolize_addr(struct td_symbolize *s, uintptr_t addr, int is_return,
		      struct td_frame_info *out)
{
	memset(out, 0, sizeof(*out));
	out->address = addr;
	uintptr_t look = is_return && addr ? addr - 1 : addr;
	Dl_info info;
	struct link_map *lm = NULL;
	if (!dladdr1((void *)look, &info, (void **)&lm, RTLD_DL_LINKMAP) || !lm)
		return -ENOENT;
	struct td_module *m = td_module_get(s, lm, info.dli_fname);
	if (!m) {
		out->module = info.dli_fname;
		out->offset = addr - lm->l_addr;
		return 0;
	}
	out->module = m->path;
	if (info.dli_sname && info.dli_saddr) {
		out->symbol = info.dli_sname;
		out->offset = addr - (uintptr_t)info.dli_saddr;
		return 0;
	}
	if (!m->symtab_tried)
		td_module_read_symtab(m, (lm->l_name && lm->l_name[0]) ? lm->l_name : "/proc/self/exe");
	const struct td_sym *sym = td_module_find(m, look - m->base);
	if (sym) {
		out->symbol = sym->name;
		out->offset = addr - (m->base + sym->value);
	} else {
		out->offset = addr - m->base;
	}
	return 0;
}
