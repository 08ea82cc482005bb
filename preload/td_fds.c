/* close/close_range/closefrom/dup2/dup3 interposers: our counter fds stay
 * out of the program's way (rules in collector/td_limits.h).
 *   - close(ours) fails with EBADF, as it would without us (the program
 *     never opened that fd); daemons closing 3..N at start keep working and
 *     our counters keep counting;
 *   - close_range/closefrom close the program's fds around ours;
 *   - dup2/dup3 onto one of ours moves ours to another number first, so the
 *     program gets exactly the fd number it asked for;
 *   - dup2/dup3 from one of ours fails with EBADF (not the program's).
 * The check is one bit test; fds above the highest fd ever ours skip it.
 * Not covered: raw close_range/dup2 syscalls (td_limits_release then drops
 * an fd that is no longer ours instead of closing it). */
#include "td_preload.h"

#include "../collector/td_limits.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef TD_UNIT_TEST

#ifndef CLOSE_RANGE_UNSHARE
#define CLOSE_RANGE_UNSHARE (1U << 1)
#endif

#define TD_REAL(name)                                                                              \
	static __typeof__(&name) real_##name;                                                      \
	if (td_unlikely(!real_##name))                                                             \
		real_##name = (__typeof__(&name))td_preload_next(#name)

static int td_ebadf(void)
{
	errno = EBADF;
	return -1;
}

TD_EXPORT int close(int fd)
{
	TD_REAL(close);
	if (td_unlikely(td_limits_fd_is_ours(fd)))
		return td_ebadf();
	return real_close(fd);
}

static int td_close_range_raw(unsigned first, unsigned last, int flags)
{
	return (int)syscall(SYS_close_range, first, last, flags);
}

TD_EXPORT int close_range(unsigned first, unsigned last, int flags)
{
	unsigned top = (unsigned)td_limits_fd_top();
	if (td_likely(first >= top || last < first))
		return td_close_range_raw(first, last, flags);
	if (flags & CLOSE_RANGE_UNSHARE) {
		/* Unshare first, then close around ours in the new table. */
		if (unshare(CLONE_FILES) != 0)
			return -1;
		flags &= ~(int)CLOSE_RANGE_UNSHARE;
	}
	unsigned lo = first;
	for (unsigned fd = first; fd <= last && fd < top; fd++) {
		if (!td_limits_fd_is_ours((int)fd))
			continue;
		if (fd > lo && td_close_range_raw(lo, fd - 1, flags) != 0)
			return -1;
		lo = fd + 1;
	}
	if (lo <= last && td_close_range_raw(lo, last, flags) != 0)
		return -1;
	return 0;
}

TD_EXPORT void closefrom(int lowfd)
{
	close_range(lowfd < 0 ? 0 : (unsigned)lowfd, ~0U, 0);
}

static int td_dup_onto(int oldfd, int newfd)
{
	if (td_unlikely(td_limits_fd_is_ours(oldfd)))
		return -1;
	if (td_unlikely(td_limits_fd_is_ours(newfd))) {
		if (oldfd == newfd)
			return -1; /* newfd is not open as far as the program knows */
		td_limits_fd_relocate(td_preload_collector(), newfd);
	}
	return 0;
}

TD_EXPORT int dup2(int oldfd, int newfd)
{
	TD_REAL(dup2);
	if (td_unlikely(td_dup_onto(oldfd, newfd) != 0))
		return td_ebadf();
	return real_dup2(oldfd, newfd);
}

TD_EXPORT int dup3(int oldfd, int newfd, int flags)
{
	TD_REAL(dup3);
	if (td_unlikely(td_dup_onto(oldfd, newfd) != 0))
		return td_ebadf();
	return real_dup3(oldfd, newfd, flags);
}

#endif
