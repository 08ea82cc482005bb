/* td_hooks: finding and patching the GOT slots of configured functions.
 *
 * What is caught: every call that goes through a PLT slot (JUMP_SLOT) of a
 * loaded object — calls from the executable into shared libraries, calls
 * between libraries, calls from a library to its own exported function
 * when it is bound through its PLT (default for non -Bsymbolic, non-hidden
 * calls) — GLOB_DAT slots that the code only calls through (-fno-plt), and
 * calls through pointers from dlsym(<dlopen handle>, name).
 * What is not: calls inside one object that the static linker bound
 * directly (static/hidden functions, -Bsymbolic(-functions), protected
 * symbols, GCC's direct self-recursion, LTO-inlined calls); the
 * executable's own functions (PIE or not, it calls them directly); calls
 * through function pointers — a GLOB_DAT slot whose value the code reads is
 * left alone so that &f compares equal to the same address obtained from
 * data relocations, local references or dlsym(RTLD_DEFAULT) (CPython
 * compares tp_free with PyObject_GC_Del) — vtables and other pointers in
 * data; dlsym(RTLD_NEXT/RTLD_DEFAULT, ...) results. */
#include "td_hooks.h"
#include "td_got.h"
#include "td_log.h"

#include <dlfcn.h>
#include <errno.h>
#include <fnmatch.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <time.h>

struct td_hooks td_hooks = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* ---- patterns ---------------------------------------------------------- */

static int td_hooks_match(const char *sym)
{
	for (unsigned i = 0; i < td_hooks.npat; i++) {
		const struct td_hook_pattern *p = &td_hooks.pat[i];
		if (p->glob ? fnmatch(p->text, sym, 0) == 0 : strcmp(p->text, sym) == 0)
			return (int)i;
	}
	return -1;
}

static int td_hooks_patterns(const char *list)
{
	const char *pos = list;
	char item[256];
	while (td_config_list_next(&pos, item, sizeof(item))) {
		if (!item[0])
			continue;
		if (td_hooks.npat >= TD_HOOKS_MAX_PATTERNS) {
			td_err("regions: more than %d function patterns, ignoring '%s' and later",
			       TD_HOOKS_MAX_PATTERNS, item);
			break;
		}
		struct td_hook_pattern *p = &td_hooks.pat[td_hooks.npat];
		p->text = strdup(item);
		if (!p->text)
			return -ENOMEM;
		p->glob = strpbrk(item, "*?[") != NULL;
		td_hooks.npat++;
	}
	return 0;
}

/* Functions a hook must never wrap: they return twice (the saved return
 * address would be the exit trampoline, whose shadow entry is gone by the
 * second return) or switch stacks under us. */
static const char *const td_hooks_never[] = {
	"setjmp", "_setjmp", "sigsetjmp", "__sigsetjmp", "vfork", "__vfork", "getcontext",
	"swapcontext", "setcontext", "makecontext", "__libc_start_main", "savectx",
};

static bool td_hooks_refused(const char *sym)
{
	for (size_t i = 0; i < sizeof(td_hooks_never) / sizeof(td_hooks_never[0]); i++)
		if (strcmp(sym, td_hooks_never[i]) == 0)
			return true;
	return false;
}

/* Our own interposers (dlsym, pthread_create, longjmp...) identify their
 * caller by return address or are already wrapped: not hooked again. */
static bool td_hooks_is_self(void *addr)
{
	Dl_info di;
	return td_hooks.self_base && dladdr(addr, &di) && (uintptr_t)di.dli_fbase == td_hooks.self_base;
}

/* ---- libc's dl functions ----------------------------------------------- */

struct td_hooks_find {
	const char *name;
	void *addr;
};

static int td_hooks_find_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct td_hooks_find *f = arg;
	struct td_got_obj o;
	if (info->dlpi_addr == td_hooks.self_base)
		return 0;
	if (td_got_parse(&o, info->dlpi_name, info->dlpi_addr, info->dlpi_phdr, info->dlpi_phnum))
		return 0;
	const ElfW(Sym) *s = td_got_lookup(&o, f->name);
	if (!s || ELF64_ST_TYPE(s->st_info) != STT_FUNC)
		return 0;
	f->addr = (void *)(o.base + s->st_value);
	return 1;
}

/* The first definition after our own library, in load order — what
 * dlsym(RTLD_NEXT) would give, found without calling dlsym. */
static void *td_hooks_find_next(const char *name)
{
	struct td_hooks_find f = { name, NULL };
	dl_iterate_phdr(td_hooks_find_cb, &f);
	return f.addr;
}

static void td_hooks_self(void)
{
	Dl_info di;
	if (!td_hooks.self_base && dladdr((void *)td_hooks_self, &di))
		td_hooks.self_base = (uintptr_t)di.dli_fbase;
	td_hooks.ldso_base = getauxval(AT_BASE);
	td_hooks.vdso_base = getauxval(AT_SYSINFO_EHDR);
}

int td_hooks_resolve_dl(void)
{
	if (td_hooks.real_dlsym)
		return 0;
	td_hooks_self();
	/* dladdr gives the start of the mapping; dlpi_addr is the load bias.
	 * They agree for shared libraries (first segment at vaddr 0). */
	td_hooks.real_dlopen = td_hooks_find_next("dlopen");
	td_hooks.real_dlmopen = td_hooks_find_next("dlmopen");
	td_hooks.real_dlvsym = td_hooks_find_next("dlvsym");
	void *s = td_hooks_find_next("dlsym");
	if (!s || !td_hooks.real_dlopen || !td_hooks.real_dlvsym)
		return -ENOENT;
	atomic_store_explicit((_Atomic(void *) *)&td_hooks.real_dlsym, s, memory_order_release);
	return 0;
}

/* ---- hooks ------------------------------------------------------------- */

/* Follows PLT entries (canonical PLT addresses of a non-PIE executable,
 * our own stubs) to the function that finally runs. */
static void *td_hooks_unwrap(void *addr)
{
	for (int i = 0; i < 4 && addr; i++) {
		unsigned id;
		if (td_tramp_lookup(&td_hooks.tramp, (uintptr_t)addr, &id))
			return td_hooks.tab[id].real;
		void **slot = td_tramp_arch_plt_slot((uintptr_t)addr);
		if (!slot)
			return addr;
		addr = *slot;
	}
	return addr;
}

/* Returns the hook id for (name, real), adding it. -1 when full. A new
 * hook has no stub until td_hooks_flush: stubs are made in batches (one
 * W^X page holds 255) and nothing can reach the entry before that. */
static int td_hooks_get(const char *name, void *real, int pat)
{
	unsigned n = atomic_load(&td_hooks.nr);
	for (unsigned i = 0; i < n; i++)
		if (td_hooks.tab[i].real == real && strcmp(td_hooks.tab[i].name, name) == 0)
			return (int)i;
	if (n >= TD_HOOKS_MAX)
		return -1;
	char *copy = strdup(name);
	if (!copy)
		return -1;
	struct td_hook *h = &td_hooks.tab[n];
	h->real = real;
	h->stub = NULL;
	h->name = copy;
	h->region = td_hooks.c ? td_collector_region_id(td_hooks.c, name) : -1;
	if (pat >= 0)
		td_hooks.pat[pat].hooks++;
	atomic_store_explicit(&td_hooks.nr, n + 1, memory_order_release);
	return (int)n;
}

/* Makes the stubs of the hooks added since the last flush. On failure
 * those hooks stay stub-less (never patched in). */
static void td_hooks_flush(void)
{
	unsigned n = atomic_load(&td_hooks.nr), first = td_hooks.nr_stubbed;
	if (first >= n)
		return;
	static void *stubs[TD_HOOKS_MAX]; /* under the lock */
	int err = td_tramp_make(&td_hooks.tramp, first, n - first, stubs);
	if (err) {
		td_dbg("hooks: cannot make %u trampolines: %s", n - first, strerror(-err));
		return;
	}
	for (unsigned i = first; i < n; i++)
		td_hooks.tab[i].stub = stubs[i - first];
	td_hooks.nr_stubbed = n;
}

/* What an unresolved lazy JUMP_SLOT would bind to. */
static void *td_hooks_lookup(const struct td_got_obj *o, const struct td_got_slot *s)
{
	void *r = NULL;
	/* Our interposers (close, pthread_create, ...) are unversioned and come
	 * first in the scope: the loader binds versioned references to them, so
	 * dlvsym, which skips them, would bypass them. */
	void *first = td_hooks.real_dlsym(RTLD_DEFAULT, s->sym);
	if (first && td_hooks_is_self(first))
		return first;
	if (s->version)
		r = td_hooks.real_dlvsym(RTLD_DEFAULT, s->sym, s->version);
	if (!r)
		r = td_hooks.real_dlsym(RTLD_DEFAULT, s->sym);
	if (!r && o->name[0]) {
		void *h = td_hooks.real_dlopen(o->name, RTLD_LAZY | RTLD_NOLOAD);
		if (h) {
			r = td_hooks.real_dlsym(h, s->sym);
			dlclose(h);
		}
	}
	return r;
}

static bool td_hooks_is_func(void *addr)
{
	Dl_info di;
	const ElfW(Sym) *sym = NULL;
	if (!dladdr1(addr, &di, (void **)&sym, RTLD_DL_SYMENT) || !sym)
		return true; /* no symbol information: trust the relocation type */
	unsigned t = ELF64_ST_TYPE(sym->st_info);
	return t == STT_FUNC || t == STT_GNU_IFUNC;
}

/* GLOB_DAT slots of one object that match a pattern, with how its code
 * uses them: only slots used for calls alone (-fno-plt) are patched. A
 * slot whose value the code reads is a function pointer the program may
 * compare with one obtained elsewhere (a data relocation, a local
 * reference): changing it would break pointer identity (CPython compares
 * tp_free with PyObject_GC_Del this way). */
#define TD_HOOKS_MAX_GD 256
struct td_hooks_gd {
	void **slots[TD_HOOKS_MAX_GD];
	unsigned char uses[TD_HOOKS_MAX_GD];
	size_t n;
};

/* A slot to point at a stub once the stubs of this scan exist. */
struct td_hooks_patch {
	const struct td_got_obj *o;
	void **slot;
	unsigned hook;
	int pat;
	const char *sym;
};

struct td_hooks_walk {
	struct td_hooks_gd gd;
	struct td_hooks_patch *p;
	size_t np, cap;
};

static int td_hooks_gd_cb(void *arg, const struct td_got_obj *o, const struct td_got_slot *s)
{
	struct td_hooks_gd *gd = arg;
	if (s->type == TD_R_GLOB_DAT && gd->n < TD_HOOKS_MAX_GD && td_hooks_match(s->sym) >= 0)
		gd->slots[gd->n++] = s->slot;
	return 0;
}

static int td_hooks_ptr_cmp(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)*(void *const *)a, y = (uintptr_t)*(void *const *)b;
	return x < y ? -1 : x > y;
}

static void td_hooks_gd_scan(const struct td_got_obj *o, struct td_hooks_gd *gd)
{
	gd->n = 0;
	td_got_for_each_slot(o, td_hooks_gd_cb, gd);
	if (!gd->n)
		return;
	qsort(gd->slots, gd->n, sizeof(gd->slots[0]), td_hooks_ptr_cmp);
	memset(gd->uses, 0, sizeof(gd->uses));
	for (int i = 0; i < o->phnum; i++) {
		const ElfW(Phdr) *p = &o->phdr[i];
		if (p->p_type == PT_LOAD && (p->p_flags & PF_X) && (p->p_flags & PF_R))
			td_tramp_arch_slot_uses((const unsigned char *)(o->base + p->p_vaddr),
						p->p_filesz, (void *const *const *)gd->slots, gd->uses,
						gd->n);
	}
}

static bool td_hooks_gd_call_only(const struct td_hooks_gd *gd, void **slot)
{
	for (size_t i = 0; i < gd->n; i++)
		if (gd->slots[i] == slot)
			return gd->uses[i] == TD_SLOT_CALL;
	return false;
}

static int td_hooks_slot_cb(void *arg, const struct td_got_obj *o, const struct td_got_slot *s)
{
	struct td_hooks_walk *w = arg;
	int pat = td_hooks_match(s->sym);
	if (pat < 0)
		return 0;
	if (td_hooks_refused(s->sym)) {
		td_hooks.pat[pat].refused++;
		return 0;
	}
	if (s->st_type != STT_FUNC && s->st_type != STT_GNU_IFUNC && s->st_type != STT_NOTYPE)
		return 0;
	if (s->type == TD_R_GLOB_DAT && !td_hooks_gd_call_only(&w->gd, s->slot)) {
		td_hooks.pat[pat].pointers++;
		return 0;
	}
	void *cur = __atomic_load_n(s->slot, __ATOMIC_ACQUIRE);
	unsigned id;
	if (!cur || td_tramp_lookup(&td_hooks.tramp, (uintptr_t)cur, &id))
		return 0;
	void *real = cur;
	if (s->type == TD_R_JUMP_SLOT && !o->bind_now && td_tramp_arch_is_lazy_plt((uintptr_t)cur))
		real = td_hooks_lookup(o, s);
	real = td_hooks_unwrap(real);
	if (!real)
		return 0;
	if (td_hooks_is_self(real)) {
		td_hooks.pat[pat].refused++;
		return 0;
	}
	if (s->st_type == STT_NOTYPE && !td_hooks_is_func(real))
		return 0;
	int hid = td_hooks_get(s->sym, real, pat);
	if (hid < 0)
		return 0;
	if (w->np == w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 256;
		struct td_hooks_patch *v = realloc(w->p, cap * sizeof(*v));
		if (!v)
			return 0;
		w->p = v;
		w->cap = cap;
	}
	w->p[w->np++] = (struct td_hooks_patch){ o, s->slot, (unsigned)hid, pat, s->sym };
	return 0;
}

/* Objects are listed first and patched after dl_iterate_phdr returns: the
 * resolver may call dlopen/dlsym, which must not run under its lock. */
struct td_hooks_objs {
	struct td_got_obj *v;
	size_t n, cap;
};

static int td_hooks_list_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct td_hooks_objs *l = arg;
	uintptr_t b = info->dlpi_addr;
	if (b == td_hooks.self_base && b)
		return 0;
	if (td_hooks.ldso_base && b == td_hooks.ldso_base)
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_LOAD && td_hooks.vdso_base &&
		    b + info->dlpi_phdr[i].p_vaddr == td_hooks.vdso_base)
			return 0;
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 64;
		struct td_got_obj *v = realloc(l->v, cap * sizeof(*v));
		if (!v)
			return 1;
		l->v = v;
		l->cap = cap;
	}
	if (td_got_parse(&l->v[l->n], info->dlpi_name, b, info->dlpi_phdr, info->dlpi_phnum) == 0)
		l->n++;
	return 0;
}

static int td_hooks_def_cb(void *arg, const struct td_got_obj *o, const char *name,
			   const ElfW(Sym) *sym)
{
	int pat = td_hooks_match(name);
	if (pat >= 0)
		td_hooks.pat[pat].defined = true;
	return 0;
}

static int td_hooks_scan_locked(bool report)
{
	struct td_hooks_objs l = { 0 };
	static struct td_hooks_walk w; /* under the lock; off small thread stacks */
	int patched = 0;
	w.np = 0;
	dl_iterate_phdr(td_hooks_list_cb, &l);
	for (size_t i = 0; i < l.n; i++) {
		td_hooks_gd_scan(&l.v[i], &w.gd);
		int err = td_got_for_each_slot(&l.v[i], td_hooks_slot_cb, &w);
		if (err)
			td_dbg("hooks: %s: bad relocation table", l.v[i].name);
		if (report)
			td_got_for_each_func(&l.v[i], td_hooks_def_cb, NULL);
	}
	td_hooks_flush();
	for (size_t i = 0; i < w.np; i++) {
		const struct td_hooks_patch *p = &w.p[i];
		void *stub = td_hooks.tab[p->hook].stub;
		if (!stub)
			continue;
		int err = td_got_write(p->o, p->slot, stub);
		if (err) {
			td_dbg("hooks: %s: cannot patch slot of %s: %s",
			       p->o->name[0] ? p->o->name : "(main)", p->sym, strerror(-err));
			continue;
		}
		td_hooks.pat[p->pat].slots++;
		td_hooks.slots++;
		patched++;
	}
	td_hooks.objects = (unsigned)l.n;
	free(l.v);
	return patched;
}

int td_hooks_scan(void)
{
	if (!td_hooks.installed)
		return 0;
	pthread_mutex_lock(&td_hooks.lock);
	int n = td_hooks_scan_locked(false);
	pthread_mutex_unlock(&td_hooks.lock);
	return n;
}

void *td_hooks_subst(const char *name, void *addr)
{
	if (!addr || !td_hooks.installed)
		return addr;
	int pat = td_hooks_match(name);
	if (pat < 0 || td_hooks_refused(name))
		return addr;
	void *real = td_hooks_unwrap(addr);
	if (!td_hooks_is_func(real) || td_hooks_is_self(real))
		return addr;
	pthread_mutex_lock(&td_hooks.lock);
	int id = td_hooks_get(name, real, pat);
	td_hooks_flush();
	void *stub = id < 0 ? NULL : td_hooks.tab[id].stub;
	pthread_mutex_unlock(&td_hooks.lock);
	return stub ? stub : addr;
}

int td_hooks_install(struct td_collector *c)
{
	if (td_hooks.installed)
		return 0;
	int err = td_hooks_resolve_dl();
	if (err) {
		td_err("regions: cannot find the dynamic loader's functions; functions not hooked");
		return err;
	}
	td_nonlocal_init();
	td_tramp_init(&td_hooks.tramp);
	td_hooks.c = c;
	err = td_hooks_patterns(c->cfg.functions);
	if (err)
		return err;
	if (!td_hooks.npat)
		return 0;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pthread_mutex_lock(&td_hooks.lock);
	td_hooks.installed = true;
	td_hooks_scan_locked(true);
	pthread_mutex_unlock(&td_hooks.lock);
	clock_gettime(CLOCK_MONOTONIC, &t1);

	for (unsigned i = 0; i < td_hooks.npat; i++) {
		const struct td_hook_pattern *p = &td_hooks.pat[i];
		if (p->slots)
			continue;
		if (p->pointers && !p->hooks)
			td_info("region '%s': only its address is taken through the GOT; not hooked, "
				"so that function pointers compare equal", p->text);
		else if (p->refused)
			td_err("region '%s': not hooked: it returns twice, switches stacks or is "
			       "interposed by tdprobe itself", p->text);
		else if (!p->defined)
			td_err("region '%s': no such symbol in any loaded object", p->text);
		else
			td_info("region '%s': defined but never called through a GOT/PLT slot; "
				"only calls through dlsym will be counted", p->text);
	}
	td_dbg("hooks: %u functions, %u GOT slots in %u objects, %s trampolines, %.1f ms",
	       atomic_load(&td_hooks.nr), td_hooks.slots, td_hooks.objects, td_hooks.tramp.variant,
	       (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6);
	return 0;
}

void td_hooks_get_stats(struct td_hooks_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->patterns = td_hooks.npat;
	for (unsigned i = 0; i < td_hooks.npat; i++) {
		if (!td_hooks.pat[i].slots && !td_hooks.pat[i].hooks)
			st->missing += !td_hooks.pat[i].defined;
		if (!td_hooks.pat[i].slots && td_hooks.pat[i].defined)
			st->unreachable++;
	}
	st->hooks = atomic_load(&td_hooks.nr);
	st->slots = td_hooks.slots;
	st->objects = td_hooks.objects;
	st->dropped_depth = td_hooks_tls()->dropped;
}

void td_hooks_json(struct td_json *j)
{
	struct td_hooks_stats st;
	td_hooks_get_stats(&st);
	td_json_key(j, "hooks");
	td_json_object_begin(j);
	td_json_kv_string(j, "trampolines", td_hooks.tramp.variant ? td_hooks.tramp.variant : "none");
	td_json_kv_uint(j, "patterns", st.patterns);
	td_json_kv_uint(j, "functions", st.hooks);
	td_json_kv_uint(j, "got_slots", st.slots);
	td_json_kv_uint(j, "objects", st.objects);
	td_json_key(j, "missing");
	td_json_array_begin(j);
	for (unsigned i = 0; i < td_hooks.npat; i++)
		if (!td_hooks.pat[i].slots && !td_hooks.pat[i].hooks && !td_hooks.pat[i].defined)
			td_json_string(j, td_hooks.pat[i].text);
	td_json_array_end(j);
	td_json_key(j, "not_reachable");
	td_json_array_begin(j);
	for (unsigned i = 0; i < td_hooks.npat; i++)
		if (!td_hooks.pat[i].slots && td_hooks.pat[i].defined)
			td_json_string(j, td_hooks.pat[i].text);
	td_json_array_end(j);
	td_json_object_end(j);
}
