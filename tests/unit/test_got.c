/* td_got and td_tramp on real objects: the test library libtdabi.so (built
 * into build/targets) and this test program. The dynamic-section walker
 * must find the same definitions as dlsym, the imports the code really
 * makes (PLT and -fno-plt/pointer GOT slots), tell a call-only GOT slot
 * from one whose pointer the code reads, tell a lazy PLT stub from a bound
 * slot, write RELRO slots and leave them read-only; a generated stub must
 * call its target with every argument intact. */
#include "td_got.h"
#include "td_hooks.h"
#include "td_tramp.h"

#include <criterion/criterion.h>

#ifdef TD_ARCH_x86_64
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Called through its GOT slot (GLOB_DAT), as -fno-plt code does. */
extern pid_t getppid(void) __attribute__((noplt));

static char abi_path[PATH_MAX + 64];

static void *open_abi(int mode)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	cr_assert_gt(n, 0);
	exe[n] = 0;
	*strrchr(exe, '/') = 0;
	snprintf(abi_path, sizeof(abi_path), "%s/../targets/libtdabi.so", exe);
	void *h = dlopen(abi_path, mode);
	cr_assert_not_null(h, "dlopen %s: %s", abi_path, dlerror());
	return h;
}

struct find {
	const char *suffix; /* NULL: the executable */
	struct td_got_obj o;
	int found;
};

static int find_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct find *f = arg;
	const char *n = info->dlpi_name;
	size_t ln = strlen(n), ls = f->suffix ? strlen(f->suffix) : 0;
	bool match = f->suffix ? ln >= ls && strcmp(n + ln - ls, f->suffix) == 0 : ln == 0;
	if (!match || f->found)
		return 0;
	cr_assert_eq(td_got_parse(&f->o, n, info->dlpi_addr, info->dlpi_phdr, info->dlpi_phnum), 0,
		     "parse %s", n);
	f->found = 1;
	return 0;
}

static struct td_got_obj parse(const char *suffix)
{
	struct find f = { .suffix = suffix };
	dl_iterate_phdr(find_cb, &f);
	cr_assert(f.found, "object %s not loaded", suffix ? suffix : "(main)");
	return f.o;
}

static const char *abi_funcs[] = {
	"abi_many_ints", "abi_mixed",     "abi_big_byval", "abi_varargs",  "abi_ld",
	"abi_cld",       "abi_i128",      "abi_errno",     "abi_small_ret", "abi_pair_ret",
	"abi_float",     "abi_m128",      "abi_m256",      "abi_recurse",   "abi_callback",
	"abi_addr_of_many_ints", "abi_identity", "abi_addr_of_identity",
};
#define NFUNCS (sizeof(abi_funcs) / sizeof(abi_funcs[0]))

Test(got, parse_reads_tables_of_a_shared_library)
{
	open_abi(RTLD_NOW);
	struct td_got_obj o = parse("/libtdabi.so");
	cr_assert_not_null(o.symtab);
	cr_assert_not_null(o.strtab);
	cr_assert(o.gnu_hash || o.sysv_hash, "no hash table");
	cr_assert_not_null(o.jmprel);
	cr_assert_gt(o.nsyms, NFUNCS, "nsyms %zu", o.nsyms);
	cr_assert_lt(o.relro_start, o.relro_end, "RELRO %#lx..%#lx", (unsigned long)o.relro_start,
		     (unsigned long)o.relro_end);
	cr_assert(td_got_contains(&o, (uintptr_t)o.symtab));
	cr_assert_not(td_got_contains(&o, (uintptr_t)&o));
}

Test(got, lookup_agrees_with_dlsym)
{
	void *h = open_abi(RTLD_NOW);
	struct td_got_obj o = parse("/libtdabi.so");
	for (size_t i = 0; i < NFUNCS; i++) {
		const ElfW(Sym) *s = td_got_lookup(&o, abi_funcs[i]);
		cr_assert_not_null(s, "%s not found", abi_funcs[i]);
		void *want = dlsym(h, abi_funcs[i]);
		cr_assert_eq((void *)(o.base + s->st_value), want, "%s: %p, dlsym %p", abi_funcs[i],
			     (void *)(o.base + s->st_value), want);
	}
	cr_assert_null(td_got_lookup(&o, "abi_nonexistent"));
	/* Imported, not defined here. */
	cr_assert_null(td_got_lookup(&o, "__errno_location"));
}

static int count_abi(void *arg, const struct td_got_obj *o, const char *name, const ElfW(Sym) *s)
{
	if (strncmp(name, "abi_", 4) == 0)
		(*(int *)arg)++;
	return 0;
}

Test(got, for_each_func_lists_every_exported_function)
{
	open_abi(RTLD_NOW);
	struct td_got_obj o = parse("/libtdabi.so");
	int n = 0;
	cr_assert_eq(td_got_for_each_func(&o, count_abi, &n), 0);
	cr_assert_eq(n, (int)NFUNCS, "%d abi_ functions, want %zu", n, NFUNCS);
}

struct slots {
	void **errno_slot;
	unsigned errno_type;
	void **many_slot;
	unsigned many_type;
	void **dlopen_slot;
	void **ppid_slot;
	unsigned ppid_type;
	int total;
};

static int slot_cb(void *arg, const struct td_got_obj *o, const struct td_got_slot *s)
{
	struct slots *r = arg;
	r->total++;
	cr_assert(td_got_contains(o, (uintptr_t)s->slot), "%s slot outside the object", s->sym);
	if (strcmp(s->sym, "__errno_location") == 0) {
		r->errno_slot = s->slot;
		r->errno_type = s->type;
		cr_assert_not_null(s->version, "no version for __errno_location");
		cr_assert_str_eq(s->version, "GLIBC_2.2.5");
	} else if (strcmp(s->sym, "abi_many_ints") == 0) {
		r->many_slot = s->slot;
		r->many_type = s->type;
	} else if (strcmp(s->sym, "dlopen") == 0) {
		r->dlopen_slot = s->slot;
	} else if (strcmp(s->sym, "getppid") == 0) {
		r->ppid_slot = s->slot;
		r->ppid_type = s->type;
	}
	return 0;
}

Test(got, slots_are_the_imports_the_code_makes)
{
	void *h = open_abi(RTLD_NOW);
	struct td_got_obj o = parse("/libtdabi.so");
	struct slots r = { 0 };
	cr_assert_eq(td_got_for_each_slot(&o, slot_cb, &r), 0);
	/* abi_errno calls __errno_location through the PLT. */
	cr_assert_not_null(r.errno_slot);
	cr_assert_eq(r.errno_type, TD_R_JUMP_SLOT);
	cr_assert_eq(*r.errno_slot, dlsym(RTLD_DEFAULT, "__errno_location"));
	/* abi_addr_of_many_ints takes the address: a GLOB_DAT slot. */
	cr_assert_not_null(r.many_slot);
	cr_assert_eq(r.many_type, TD_R_GLOB_DAT);
	cr_assert_eq(*r.many_slot, dlsym(h, "abi_many_ints"));
	/* The test program's own import. */
	struct td_got_obj m = parse(NULL);
	struct slots rm = { 0 };
	cr_assert_eq(td_got_for_each_slot(&m, slot_cb, &rm), 0);
	cr_assert_not_null(rm.dlopen_slot, "dlopen slot of the executable");
	cr_assert_gt(rm.total, 5);
}

Test(got, lazy_slot_points_at_a_plt_stub_until_bound)
{
	if (getenv("LD_BIND_NOW") && *getenv("LD_BIND_NOW"))
		cr_skip_test("LD_BIND_NOW set");
	void *h = open_abi(RTLD_LAZY);
	struct td_got_obj o = parse("/libtdabi.so");
	if (o.bind_now)
		cr_skip_test("libtdabi.so linked with -z now");
	struct slots r = { 0 };
	td_got_for_each_slot(&o, slot_cb, &r);
	cr_assert_not_null(r.errno_slot);
	cr_assert(td_tramp_arch_is_lazy_plt((uintptr_t)*r.errno_slot), "slot %p is not a lazy stub",
		  *r.errno_slot);
	int (*set)(int) = (int (*)(int))dlsym(h, "abi_errno");
	set(0);
	cr_assert_eq(*r.errno_slot, dlsym(RTLD_DEFAULT, "__errno_location"));
	cr_assert_not(td_tramp_arch_is_lazy_plt((uintptr_t)*r.errno_slot));
}

static bool page_writable(uintptr_t addr)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	bool w = false;
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;
		char perms[8];
		if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) == 3 && addr >= lo && addr < hi)
			w = perms[1] == 'w';
	}
	if (f)
		fclose(f);
	return w;
}

Test(got, write_to_relro_slot_restores_read_only)
{
	void *h = open_abi(RTLD_NOW);
	struct td_got_obj o = parse("/libtdabi.so");
	struct slots r = { 0 };
	td_got_for_each_slot(&o, slot_cb, &r);
	uintptr_t a = (uintptr_t)r.many_slot;
	cr_assert(a >= o.relro_start && a < o.relro_end, "GLOB_DAT slot not in RELRO");
	cr_assert_not(page_writable(a), "RELRO page writable before");
	void *old = *r.many_slot;
	cr_assert_eq(td_got_write(&o, r.many_slot, (void *)0x1234), 0);
	cr_assert_eq(*r.many_slot, (void *)0x1234);
	cr_assert_not(page_writable(a), "RELRO page left writable");
	cr_assert_eq(td_got_write(&o, r.many_slot, old), 0);
	void *(*addr)(void) = (void *(*)(void))dlsym(h, "abi_addr_of_many_ints");
	cr_assert_eq(addr(), dlsym(h, "abi_many_ints"));
	cr_assert_eq(td_got_write(&o, (void **)&old, old), -EFAULT, "slot outside the object");
}

static void slot_uses(const struct td_got_obj *o, void **slot, unsigned char *use)
{
	void *const *slots[1] = { slot };
	*use = 0;
	for (int i = 0; i < o->phnum; i++) {
		const ElfW(Phdr) *p = &o->phdr[i];
		if (p->p_type == PT_LOAD && (p->p_flags & PF_X))
			td_tramp_arch_slot_uses((const unsigned char *)(o->base + p->p_vaddr),
						p->p_filesz, slots, use, 1);
	}
}

Test(got, call_only_slots_are_told_from_address_taken_ones)
{
	open_abi(RTLD_NOW);
	struct td_got_obj o = parse("/libtdabi.so");
	struct slots r = { 0 };
	td_got_for_each_slot(&o, slot_cb, &r);
	unsigned char use;
	slot_uses(&o, r.many_slot, &use);
	cr_assert_eq(use, TD_SLOT_OTHER, "abi_many_ints slot: use %d, want pointer read", use);
	cr_assert_gt(getppid(), 0);
	struct td_got_obj m = parse(NULL);
	struct slots rm = { 0 };
	td_got_for_each_slot(&m, slot_cb, &rm);
	cr_assert_not_null(rm.ppid_slot, "no GOT slot for getppid");
	cr_assert_eq(rm.ppid_type, TD_R_GLOB_DAT);
	slot_uses(&m, rm.ppid_slot, &use);
	cr_assert_eq(use, TD_SLOT_CALL, "getppid slot: use %d, want call only", use);
}

Test(tramp, stub_calls_the_real_function_with_all_arguments)
{
	void *h = open_abi(RTLD_NOW);
	td_tramp_init(&td_hooks.tramp);
	const char *names[] = { "abi_many_ints", "abi_varargs", "abi_ld", "abi_big_byval" };
	void *stubs[4];
	for (unsigned i = 0; i < 4; i++) {
		td_hooks.tab[i].real = dlsym(h, names[i]);
		td_hooks.tab[i].region = -1;
	}
	cr_assert_eq(td_tramp_make(&td_hooks.tramp, 0, 4, stubs), 0);
	for (unsigned i = 0; i < 4; i++) {
		unsigned id = 99;
		cr_assert(td_tramp_lookup(&td_hooks.tramp, (uintptr_t)stubs[i], &id));
		cr_assert_eq(id, i);
	}
	unsigned id;
	cr_assert_not(td_tramp_lookup(&td_hooks.tramp, (uintptr_t)stubs[0] + 1, &id));
	cr_assert_not(td_tramp_lookup(&td_hooks.tramp, (uintptr_t)&id, &id));

	long (*mi)(long, long, long, long, long, long, long, long, long, long) = stubs[0];
	cr_assert_eq(mi(1, 2, 3, 4, 5, 6, 7, 8, 9, 10), 1 + 4 + 9 + 20 + 35 + 66 + 91 + 136 + 171 + 230);
	double (*va)(int, ...) = stubs[1];
	cr_assert_eq(va(4, 3, 0.5, 2, 0.25), 3 * 1 + 0.5 * 2 + 2 * 3 + 0.25 * 4);
	long double (*ld)(long double, long double) = stubs[2];
	cr_assert_eq(ld(3.0L, 0.5L), 3.0L * 0.5L + 1.0L / 3.0L);
	struct big { long v[8]; } b, c, r;
	for (int i = 0; i < 8; i++) {
		b.v[i] = i + 1;
		c.v[i] = 100 * i;
	}
	struct big (*bb)(struct big, int, struct big) = stubs[3];
	r = bb(b, 2, c);
	for (int i = 0; i < 8; i++)
		cr_assert_eq(r.v[i], b.v[i] * 2 - c.v[7 - i], "v[%d] = %ld", i, r.v[i]);
	/* The stub page is executable and no longer writable (W^X). */
	cr_assert_not(page_writable((uintptr_t)stubs[0]));
}

#else

Test(got, x86_64_only)
{
	cr_skip_test("these tests parse libtdabi.so and x86_64 PLT stubs: x86_64 only (the arm64 VM suite hooks real calls)");
}

#endif
