/* td_symbolize: dynamic symbols via dladdr, static functions via the
 * module's .symtab, stripped modules as module+offset. */
#include "td_symbolize.h"

#include <criterion/criterion.h>
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>

#ifndef TD_TARGETS_DIR
#define TD_TARGETS_DIR "../../build/targets"
#endif

/* Not exported (the test is not linked with -rdynamic): only .symtab has it. */
__attribute__((noinline)) int td_test_static_function(int x)
{
	__asm__ volatile("" ::: "memory");
	return x + 1;
}

static struct td_symbolize *s;
static void setup(void) { s = td_symbolize_new(); cr_assert_not_null(s); }
static void teardown(void) { td_symbolize_delete(s); }
TestSuite(symbolize, .init = setup, .fini = teardown);

static int ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && strcmp(s + a - b, suffix) == 0;
}

Test(symbolize, dynamic_symbol_from_dladdr)
{
	struct td_frame_info fi;
	uintptr_t addr = (uintptr_t)&qsort + 3;
	cr_assert_eq(td_symbolize_addr(s, addr, 0, &fi), 0);
	cr_assert_not_null(fi.module);
	/* libc's, or the sanitizer's interceptor in an ASan build */
	cr_assert(strstr(fi.module, "libc.so") || strstr(fi.module, "libasan"), "module %s", fi.module);
	/* What dladdr says (qsort itself, or an interceptor under ASan). */
	Dl_info info;
	cr_assert(dladdr((void *)addr, &info) && info.dli_sname);
	cr_assert_str_eq(fi.symbol, info.dli_sname);
	cr_assert(strstr(fi.symbol, "qsort"), "symbol %s", fi.symbol);
	cr_assert_eq(fi.offset, addr - (uintptr_t)info.dli_saddr);
	cr_assert_eq(fi.address, addr);
}

Test(symbolize, static_function_from_symtab)
{
	struct td_frame_info fi;
	uintptr_t addr = (uintptr_t)&td_test_static_function + 2;
	Dl_info info;
	cr_assert(dladdr((void *)addr, &info));
	cr_assert_null(info.dli_sname, "test binary exports %s: no .symtab path", info.dli_sname);
	cr_assert_eq(td_symbolize_addr(s, addr, 0, &fi), 0);
	cr_assert_str_eq(fi.symbol, "td_test_static_function");
	cr_assert_eq(fi.offset, 2);
	cr_assert(ends_with(fi.module, "test_symbolize"), "module %s", fi.module);
	/* Cached: the same answer again. */
	struct td_frame_info again;
	cr_assert_eq(td_symbolize_addr(s, addr, 0, &again), 0);
	cr_assert_eq(again.symbol, fi.symbol);
}

Test(symbolize, return_address_at_function_end_belongs_to_the_caller)
{
	/* A return address one past a function's last byte must not be
	 * attributed to whatever follows it. */
	struct td_frame_info fi;
	void *h = dlopen(TD_TARGETS_DIR "/libregions_stripped.so", RTLD_NOW);
	cr_assert_not_null(h, "%s", dlerror());
	uintptr_t fn = (uintptr_t)dlsym(h, "regions_stripped_get_hidden");
	cr_assert_eq(td_symbolize_addr(s, fn, 1, &fi), 0);
	cr_assert_neq(fi.symbol ? strcmp(fi.symbol, "regions_stripped_get_hidden") : 1, 0);
	cr_assert_eq(td_symbolize_addr(s, fn + 1, 1, &fi), 0);
	cr_assert_str_eq(fi.symbol, "regions_stripped_get_hidden");
	cr_assert_eq(fi.offset, 1);
	dlclose(h);
}

Test(symbolize, stripped_module_gives_module_and_offset)
{
	void *h = dlopen(TD_TARGETS_DIR "/libregions_stripped.so", RTLD_NOW);
	cr_assert_not_null(h, "%s", dlerror());
	void *(*get)(void);
	*(void **)&get = dlsym(h, "regions_stripped_get_hidden");
	cr_assert_not_null(get);
	uintptr_t hidden = (uintptr_t)get();
	struct link_map *lm = NULL;
	Dl_info info;
	cr_assert(dladdr1((void *)hidden, &info, (void **)&lm, RTLD_DL_LINKMAP));

	struct td_frame_info fi;
	cr_assert_eq(td_symbolize_addr(s, hidden + 4, 0, &fi), 0);
	cr_assert_null(fi.symbol, "stripped library gave symbol %s", fi.symbol);
	cr_assert(ends_with(fi.module, "libregions_stripped.so"), "module %s", fi.module);
	cr_assert_eq(fi.offset, hidden + 4 - lm->l_addr);
	dlclose(h);
}

Test(symbolize, address_outside_any_module)
{
	struct td_frame_info fi;
	cr_assert_eq(td_symbolize_addr(s, 0x10, 0, &fi), -ENOENT);
	cr_assert_null(fi.module);
	cr_assert_null(fi.symbol);
	cr_assert_eq(fi.address, 0x10);
}
