/* td_dl: libraries loaded after startup get hooked, and dlsym of a hooked
 * name returns its stub. The exported entry points are in
 * arch/<arch>/td_dl_<arch>.S; see there why the caller must stay the
 * caller. Rules (decide functions):
 *   dlsym/dlvsym(RTLD_NEXT, ...)  real function, caller intact, no stub
 *                                 (an interposer asking for "the next
 *                                 definition" wants the real thing)
 *   dlsym/dlvsym(RTLD_DEFAULT)    called from here (misses retried in the
 *                                 caller's own scope), the real address
 *                                 returned: it must compare equal to the
 *                                 program's own &function
 *   dlsym/dlvsym(a dlopen handle) called from here, the result replaced
 *                                 by the stub when the name is hooked
 *                                 (plugins reached only through dlsym)
 *   dlopen/dlmopen(path with '/' and no '$', or NULL)
 *                                 called from here (the caller cannot
 *                                 change the result), new objects patched
 *                                 before returning
 *   dlopen/dlmopen(bare name or $ORIGIN...)
 *                                 real function, caller intact; the new
 *                                 objects are patched at the next dlsym
 *                                 or dlopen that passes through here. */
#include "td_hooks.h"

#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <string.h>

#ifndef TD_UNIT_TEST

void *td_dl_decide_open(const char *file, int mode);
void *td_dl_decide_mopen(Lmid_t nsid, const char *file, int mode);
void *td_dl_decide_sym(void *handle, const char *name);
void *td_dl_decide_vsym(void *handle, const char *name, const char *version);
void *td_dl_open_c(const char *file, int mode);
void *td_dl_mopen_c(Lmid_t nsid, const char *file, int mode);
void *td_dl_sym_c(void *handle, const char *name);
void *td_dl_vsym_c(void *handle, const char *name, const char *version);

static bool td_dl_path_is_exact(const char *file)
{
	return !file || (strchr(file, '/') && !strchr(file, '$'));
}

void *td_dl_decide_open(const char *file, int mode)
{
	if (td_hooks_resolve_dl())
		return NULL; /* td_dl_open_c reports the failure */
	if (!td_hooks.installed)
		return (void *)td_hooks.real_dlopen;
	if (td_dl_path_is_exact(file))
		return NULL;
	atomic_store(&td_hooks.rescan, 1);
	return (void *)td_hooks.real_dlopen;
}

void *td_dl_decide_mopen(Lmid_t nsid, const char *file, int mode)
{
	if (td_hooks_resolve_dl())
		return NULL;
	if (!td_hooks.installed)
		return (void *)td_hooks.real_dlmopen;
	if (td_dl_path_is_exact(file))
		return NULL;
	atomic_store(&td_hooks.rescan, 1);
	return (void *)td_hooks.real_dlmopen;
}

void *td_dl_decide_sym(void *handle, const char *name)
{
	if (td_hooks_resolve_dl())
		return NULL;
	if (handle == RTLD_NEXT || !td_hooks.installed)
		return (void *)td_hooks.real_dlsym;
	return NULL;
}

void *td_dl_decide_vsym(void *handle, const char *name, const char *version)
{
	if (td_hooks_resolve_dl())
		return NULL;
	if (handle == RTLD_NEXT || !td_hooks.installed)
		return (void *)td_hooks.real_dlvsym;
	return NULL;
}

/* Our own lookups can leave an error string behind; the caller's call
 * succeeded, so dlerror() must say so. */
static void td_dl_patch_new(void)
{
	int saved = errno;
	atomic_store(&td_hooks.rescan, 0);
	td_hooks_scan();
	dlerror();
	errno = saved;
}

void *td_dl_open_c(const char *file, int mode)
{
	if (!td_hooks.real_dlopen) {
		errno = ENOSYS;
		return NULL;
	}
	void *h = td_hooks.real_dlopen(file, mode);
	if (h)
		td_dl_patch_new();
	return h;
}

void *td_dl_mopen_c(Lmid_t nsid, const char *file, int mode)
{
	if (!td_hooks.real_dlmopen) {
		errno = ENOSYS;
		return NULL;
	}
	void *h = td_hooks.real_dlmopen(nsid, file, mode);
	if (h)
		td_dl_patch_new();
	return h;
}

/* RTLD_DEFAULT is resolved in the caller's scope by glibc, which differs
 * from ours for libraries loaded RTLD_LOCAL: retry in the caller's object
 * (a link_map is a valid handle). */
static void *td_dl_caller_retry(void *ra, const char *name, const char *version)
{
	Dl_info di;
	struct link_map *lm = NULL;
	if (!dladdr1(ra, &di, (void **)&lm, RTLD_DL_LINKMAP) || !lm)
		return NULL;
	return version ? td_hooks.real_dlvsym(lm, name, version) : td_hooks.real_dlsym(lm, name);
}

void *td_dl_sym_c(void *handle, const char *name)
{
	void *ra = __builtin_return_address(0);
	if (!td_hooks.real_dlsym) {
		errno = ENOSYS;
		return NULL;
	}
	if (atomic_load(&td_hooks.rescan))
		td_dl_patch_new();
	void *r = td_hooks.real_dlsym(handle, name);
	if (!r && handle == RTLD_DEFAULT) {
		r = td_dl_caller_retry(ra, name, NULL);
		if (r)
			dlerror();
	}
	return r && handle != RTLD_DEFAULT ? td_hooks_subst(name, r) : r;
}

void *td_dl_vsym_c(void *handle, const char *name, const char *version)
{
	void *ra = __builtin_return_address(0);
	if (!td_hooks.real_dlvsym) {
		errno = ENOSYS;
		return NULL;
	}
	if (atomic_load(&td_hooks.rescan))
		td_dl_patch_new();
	void *r = td_hooks.real_dlvsym(handle, name, version);
	if (!r && handle == RTLD_DEFAULT) {
		r = td_dl_caller_retry(ra, name, version);
		if (r)
			dlerror();
	}
	return r && handle != RTLD_DEFAULT ? td_hooks_subst(name, r) : r;
}

#endif
