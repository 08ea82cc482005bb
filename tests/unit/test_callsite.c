/* td_callsite: depth 1 costs nothing and loads nothing; depth > 1 walks the
 * stack through a privately loaded libunwind whose symbols stay out of the
 * global scope; chains start at the given return address. */
#include "td_callsite.h"

#include <criterion/criterion.h>
#include <dlfcn.h>
#include <errno.h>
#include <string.h>

static int libunwind_loaded(void)
{
	void *h = dlopen(TD_CALLSITE_LIBUNWIND, RTLD_NOLOAD | RTLD_LAZY);
	if (h)
		dlclose(h);
	return h != NULL;
}

Test(callsite, depth_one_is_the_return_address_without_libunwind)
{
	struct td_callsite cs;
	cr_assert_eq(td_callsite_init(&cs, 1), 0);
	cr_assert_null(cs.backtrace);
	cr_assert_not(libunwind_loaded(), "libunwind loaded for depth 1");
	uintptr_t out[TD_CALLSITE_MAX_DEPTH];
	cr_assert_eq(td_callsite_capture(&cs, 0x1234, out), 1);
	cr_assert_eq(out[0], 0x1234);
	td_callsite_exit(&cs);
}

Test(callsite, depth_zero_keeps_no_frame)
{
	struct td_callsite cs;
	cr_assert_eq(td_callsite_init(&cs, 0), 0);
	uintptr_t out[TD_CALLSITE_MAX_DEPTH];
	cr_assert_eq(td_callsite_capture(&cs, 0x1234, out), 0);
}

/* level1 -> level2 -> capture_here: the chain from level2's return address
 * into level1... is [ra into level2, ra into level1, ra into the test]. */
static uintptr_t ra_into_level1, ra_into_test;
static int captured_n;
static uintptr_t captured[TD_CALLSITE_MAX_DEPTH];

__attribute__((noinline)) static void capture_here(const struct td_callsite *cs)
{
	uintptr_t ra = (uintptr_t)__builtin_return_address(0);
	captured_n = td_callsite_capture(cs, ra, captured);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void level2(const struct td_callsite *cs)
{
	ra_into_level1 = (uintptr_t)__builtin_return_address(0);
	capture_here(cs);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void level1(const struct td_callsite *cs)
{
	ra_into_test = (uintptr_t)__builtin_return_address(0);
	level2(cs);
	__asm__ volatile("" ::: "memory");
}

Test(callsite, deeper_chains_name_the_callers)
{
	struct td_callsite cs;
	int rc = td_callsite_init(&cs, 3);
	if (rc == -ENOENT)
		cr_skip_test("libunwind.so.8 not installed");
	cr_assert_eq(rc, 0);
	cr_assert_not_null(cs.backtrace);
	level1(&cs);
	cr_assert_eq(captured_n, 3, "frames %d", captured_n);
	cr_assert_eq(captured[1], ra_into_level1, "frame 1 %#lx want %#lx",
		     (unsigned long)captured[1], (unsigned long)ra_into_level1);
	cr_assert_eq(captured[2], ra_into_test);
	td_callsite_exit(&cs);
}

Test(callsite, libunwind_stays_out_of_the_global_scope)
{
	struct td_callsite cs;
	if (td_callsite_init(&cs, 4) == -ENOENT)
		cr_skip_test("libunwind.so.8 not installed");
	cr_assert(libunwind_loaded(), "depth 4 should have loaded libunwind");
	cr_assert_null(dlsym(RTLD_DEFAULT, "unw_backtrace"), "unw_backtrace is global");
	cr_assert_null(dlsym(RTLD_DEFAULT, "_ULx86_64_step"));
	void *raise = dlsym(RTLD_DEFAULT, "_Unwind_RaiseException");
	if (raise) {
		Dl_info info;
		cr_assert(dladdr(raise, &info));
		cr_assert_null(strstr(info.dli_fname, "libunwind"), "_Unwind_RaiseException from %s",
			       info.dli_fname);
	}
	td_callsite_exit(&cs);
}

Test(callsite, unknown_return_address_gives_a_one_frame_chain)
{
	struct td_callsite cs;
	if (td_callsite_init(&cs, 4) == -ENOENT)
		cr_skip_test("libunwind.so.8 not installed");
	uintptr_t out[TD_CALLSITE_MAX_DEPTH];
	cr_assert_eq(td_callsite_capture(&cs, 0x10, out), 1);
	cr_assert_eq(out[0], 0x10);
	td_callsite_exit(&cs);
}

Test(callsite, hash_separates_chains_and_is_never_zero)
{
	uintptr_t a[2] = { 0x1000, 0x2000 }, b[2] = { 0x2000, 0x1000 }, z[1] = { 0 };
	cr_assert_neq(td_callsite_hash(a, 2), td_callsite_hash(b, 2));
	cr_assert_neq(td_callsite_hash(a, 1), td_callsite_hash(a, 2));
	cr_assert_eq(td_callsite_hash(a, 2), td_callsite_hash(a, 2));
	cr_assert_neq(td_callsite_hash(z, 1), 0);
	cr_assert_neq(td_callsite_hash(z, 0), 0);
}
