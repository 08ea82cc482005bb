/* Built into libtdprobe.so only with -DTD_ASAN_LIB=ON. The hooks' dlsym
 * interposer is entered from ASan's own start-up (ASan resolves the real
 * functions it intercepts through dlsym) while ASan's interceptors still
 * have no real function behind them: the lookup path (td_dl.c, td_hooks.c,
 * td_got.c) uses these plain versions instead of libc's, and is not
 * instrumented (CMakeLists.txt). */
#include <stddef.h>

int td_asan_strcmp(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return (unsigned char)*a - (unsigned char)*b;
}

char *td_asan_strchr(const char *s, int c)
{
	for (;; s++) {
		if (*s == (char)c)
			return (char *)s;
		if (!*s)
			return NULL;
	}
}

void *td_asan_memset(void *p, int c, size_t n)
{
	volatile unsigned char *d = p;
	while (n--)
		*d++ = (unsigned char)c;
	return p;
}
