/* td_nonlocal: non-local exits through hooked functions.
 *
 * A hijacked frame returns into the exit trampoline, whose CFI ends the
 * stack, so no unwinder may walk such a frame. Before a C++ exception
 * unwinds (__cxa_throw, __cxa_rethrow, std::rethrow_exception) every
 * original return address is put back; when it is caught
 * (__cxa_begin_catch) the frames below the catching frame are gone: their
 * regions are closed, innermost first, and the frames still live are
 * hijacked again. longjmp family: the target stack pointer (demangled from
 * glibc's jmp_buf) tells which frames are discarded; those regions are
 * closed before the jump. pthread_exit is the core's interposer, which
 * calls td_hooks_thread_exit (td_hook_rt.c).
 *
 * Not caught: unwinding started by other runtimes (_Unwind_RaiseException
 * called directly, e.g. Rust panics) through a hooked frame stops at the
 * exit trampoline (end of stack: terminate, as for a missing handler);
 * pthread_cancel's forced unwind also stops there, then glibc ends the
 * thread anyway and the regions are closed at thread end — destructors of
 * frames outside the innermost hooked function do not run. */
#include "td_hooks.h"

#include <dlfcn.h>
#include <stdint.h>

#ifndef TD_UNIT_TEST

static void *td_nonlocal_next(const char *name)
{
	if (td_hooks_resolve_dl())
		return NULL;
	void *p = td_hooks.real_dlsym(RTLD_NEXT, name);
	/* A C program that dlopens a C++ library RTLD_LOCAL: the C++ runtime
	 * is not in the global scope, so ask it directly. */
	static const char *const runtimes[] = { "libstdc++.so.6", "libc++abi.so.1", "libc++.so.1" };
	for (size_t i = 0; !p && i < sizeof(runtimes) / sizeof(runtimes[0]); i++) {
		void *h = td_hooks.real_dlopen(runtimes[i], RTLD_NOLOAD | RTLD_LAZY);
		if (h) {
			p = td_hooks.real_dlsym(h, name);
			dlclose(h);
		}
	}
	return p;
}

#define TD_REAL(var, name)                                                                         \
	do {                                                                                       \
		if (!var)                                                                          \
			var = td_nonlocal_next(name);                                              \
	} while (0)

/* ---- C++ exceptions ---------------------------------------------------- */

static void (*td_real_cxa_throw)(void *, void *, void (*)(void *));
static void (*td_real_cxa_rethrow)(void);
static void *(*td_real_cxa_begin_catch)(void *);
static void (*td_real_rethrow_exception)(void *);

TD_EXPORT __attribute__((noreturn)) void __cxa_throw(void *obj, void *tinfo, void (*dest)(void *))
{
	TD_REAL(td_real_cxa_throw, "__cxa_throw");
	td_hooks_shadow_restore();
	td_real_cxa_throw(obj, tinfo, dest);
	__builtin_unreachable();
}

TD_EXPORT __attribute__((noreturn)) void __cxa_rethrow(void)
{
	TD_REAL(td_real_cxa_rethrow, "__cxa_rethrow");
	td_hooks_shadow_restore();
	td_real_cxa_rethrow();
	__builtin_unreachable();
}

/* std::rethrow_exception(std::exception_ptr): the exception_ptr is passed
 * by invisible reference (it has a non-trivial destructor). */
TD_EXPORT __attribute__((noreturn)) void
_ZSt17rethrow_exceptionNSt15__exception_ptr13exception_ptrE(void *ep)
{
	TD_REAL(td_real_rethrow_exception, "_ZSt17rethrow_exceptionNSt15__exception_ptr13exception_ptrE");
	td_hooks_shadow_restore();
	td_real_rethrow_exception(ep);
	__builtin_unreachable();
}

TD_EXPORT void *__cxa_begin_catch(void *exc)
{
	TD_REAL(td_real_cxa_begin_catch, "__cxa_begin_catch");
	if (td_hooks_tls()->top) {
		/* The catching frame's stack pointer is just above our return
		 * address; hooked calls it made had their RA slot at or below it. */
		uintptr_t sp = (uintptr_t)__builtin_frame_address(0) + 2 * sizeof(void *);
		td_hooks_shadow_discard(sp);
		td_hooks_shadow_rehijack();
	}
	return td_real_cxa_begin_catch(exc);
}

/* ---- longjmp ----------------------------------------------------------- */

/* glibc x86_64 keeps rsp in __jmpbuf[6], mangled as rol(rsp ^ guard, 17)
 * with the pointer guard at %fs:0x30 (tcbhead_t.pointer_guard). This is a
 * glibc implementation detail: the result is sanity-checked and, if it
 * does not look like a stack address above ours, nothing is closed here
 * (the exit path closes the stale frames later, see td_hook_exit). */
static uintptr_t td_nonlocal_jmp_sp(const void *env)
{
#if defined(__x86_64__) && defined(__GLIBC__)
	uintptr_t v = ((const uintptr_t *)env)[6], guard;
	__asm__("mov %%fs:0x30, %0" : "=r"(guard));
	v = (v >> 17) | (v << (64 - 17));
	return v ^ guard;
#else
	(void)env;
	return 0;
#endif
}

static void td_nonlocal_jump(const void *env)
{
	if (!td_hooks_tls()->top)
		return;
	uintptr_t sp = td_nonlocal_jmp_sp(env);
	uintptr_t here = (uintptr_t)__builtin_frame_address(0);
	/* Target above us, on the same stack (1 GiB), pointer aligned. */
	if (sp <= here || sp - here > ((uintptr_t)1 << 30) || (sp & 7))
		return;
	td_hooks_shadow_discard(sp);
}

typedef void (*td_jmp_fn)(void *, int);
static td_jmp_fn td_real_longjmp, td_real__longjmp, td_real_siglongjmp, td_real_longjmp_chk;

TD_EXPORT __attribute__((noreturn)) void longjmp(void *env, int val)
{
	TD_REAL(td_real_longjmp, "longjmp");
	td_nonlocal_jump(env);
	td_real_longjmp(env, val);
	__builtin_unreachable();
}

TD_EXPORT __attribute__((noreturn)) void _longjmp(void *env, int val)
{
	TD_REAL(td_real__longjmp, "_longjmp");
	td_nonlocal_jump(env);
	td_real__longjmp(env, val);
	__builtin_unreachable();
}

TD_EXPORT __attribute__((noreturn)) void siglongjmp(void *env, int val)
{
	TD_REAL(td_real_siglongjmp, "siglongjmp");
	td_nonlocal_jump(env);
	td_real_siglongjmp(env, val);
	__builtin_unreachable();
}

TD_EXPORT __attribute__((noreturn)) void __longjmp_chk(void *env, int val)
{
	TD_REAL(td_real_longjmp_chk, "__longjmp_chk");
	td_nonlocal_jump(env);
	td_real_longjmp_chk(env, val);
	__builtin_unreachable();
}

/* Resolves every real function now (install time): longjmp may be called
 * from a signal handler, where dlsym must not run. */
void td_nonlocal_init(void)
{
	TD_REAL(td_real_cxa_throw, "__cxa_throw");
	TD_REAL(td_real_cxa_rethrow, "__cxa_rethrow");
	TD_REAL(td_real_cxa_begin_catch, "__cxa_begin_catch");
	TD_REAL(td_real_rethrow_exception, "_ZSt17rethrow_exceptionNSt15__exception_ptr13exception_ptrE");
	TD_REAL(td_real_longjmp, "longjmp");
	TD_REAL(td_real__longjmp, "_longjmp");
	TD_REAL(td_real_siglongjmp, "siglongjmp");
	TD_REAL(td_real_longjmp_chk, "__longjmp_chk");
}

#else
void td_nonlocal_init(void) {}
#endif
