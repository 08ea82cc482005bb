/* Process-image ends we can reach by interposition: _exit/_Exit (glibc's
 * path to exit_group) and the exec family (the report is written before the
 * image is replaced). fork is handled by the pthread_atfork child handler
 * in td_preload.c; a vfork child never writes (see td_preload_write_report). */
#include "td_preload.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <unistd.h>

#ifndef TD_UNIT_TEST

extern char **environ;

/* The next definition of name, with name's own type. */
#define TD_REAL(name)                                                                              \
	static __typeof__(&name) real_##name;                                                      \
	if (td_unlikely(!real_##name))                                                             \
		real_##name = (__typeof__(&name))td_preload_next(#name)

TD_EXPORT void _exit(int status)
{
	TD_REAL(_exit);
	td_preload_write_report("_exit");
	real__exit(status);
	__builtin_unreachable();
}

TD_EXPORT void _Exit(int status)
{
	TD_REAL(_Exit);
	td_preload_write_report("_exit");
	real__Exit(status);
	__builtin_unreachable();
}

TD_EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	TD_REAL(execve);
	td_preload_write_report("exec");
	return real_execve(path, argv, envp);
}

TD_EXPORT int execv(const char *path, char *const argv[])
{
	TD_REAL(execv);
	td_preload_write_report("exec");
	return real_execv(path, argv);
}

TD_EXPORT int execvp(const char *file, char *const argv[])
{
	TD_REAL(execvp);
	td_preload_write_report("exec");
	return real_execvp(file, argv);
}

TD_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	TD_REAL(execvpe);
	td_preload_write_report("exec");
	return real_execvpe(file, argv, envp);
}

TD_EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
	TD_REAL(fexecve);
	td_preload_write_report("exec");
	return real_fexecve(fd, argv, envp);
}

/* The execl family: collect the variadic list, then take the paths above. */
static int td_exec_count(const char *arg0, va_list ap)
{
	int n = 1;
	if (!arg0)
		return 0;
	while (va_arg(ap, const char *))
		n++;
	return n;
}

/* Fills argv[0..n] from arg0 and the list after it (its NULL included). */
static void td_exec_fill(char **argv, int n, const char *arg0, va_list *ap)
{
	argv[0] = (char *)arg0;
	for (int i = 1; i <= n; i++)
		argv[i] = va_arg(*ap, char *);
	argv[n] = NULL;
}

/* Declares `argv` (a VLA in the caller's frame) holding the variadic list
 * that follows arg0, and leaves `ap` positioned after its NULL. */
#define TD_EXECL_ARGV(arg0)                                                                        \
	va_list ap;                                                                                \
	va_start(ap, arg0);                                                                        \
	int n = td_exec_count(arg0, ap);                                                           \
	va_end(ap);                                                                                \
	char *argv[n + 1];                                                                         \
	va_start(ap, arg0);                                                                        \
	td_exec_fill(argv, n, arg0, &ap)

TD_EXPORT int execl(const char *path, const char *arg0, ...)
{
	TD_EXECL_ARGV(arg0);
	va_end(ap);
	return execve(path, argv, environ);
}

TD_EXPORT int execlp(const char *file, const char *arg0, ...)
{
	TD_EXECL_ARGV(arg0);
	va_end(ap);
	return execvp(file, argv);
}

TD_EXPORT int execle(const char *path, const char *arg0, ...)
{
	TD_EXECL_ARGV(arg0);
	char *const *envp = va_arg(ap, char *const *);
	va_end(ap);
	return execve(path, argv, envp);
}

#endif
