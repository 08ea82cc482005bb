/* td_limits: tdprobe's share of the process's resources.
 *
 * File descriptors. Counter backends open fds per thread (perf: one per
 * event). The program must never get EMFILE because of us, so counters are
 * opened only within a budget and the rest of the threads fall back to the
 * software backend, with the reason in the report:
 *   - our counter fds together stay within a quarter of RLIMIT_NOFILE (soft);
 *   - a thread's counters are given back at once when the highest fd they
 *     got is within the reserve of the limit: max(16, limit / 8) fds. fds
 *     are allocated lowest-first, so fd k means 0..k-1 are all in use.
 * Our fds never sit on 0, 1 or 2 (a daemon started with them closed
 * reopens them by number), and they are marked in a process-wide bitmap so
 * the close/dup2 interposers (preload/td_fds.c) keep them out of the
 * program's way: the program cannot close them (EBADF, as if they did not
 * exist, which from its point of view they do not), and a dup2 onto one
 * moves ours elsewhere first.
 *
 * Records. Thread records come from a bump allocator over mmapped chunks
 * (never the host's malloc; records are kept for the report and never
 * freed), so a thread costs sizeof(struct td_thread) rounded to 64 bytes,
 * not a page. */
#ifndef TD_LIMITS_H
#define TD_LIMITS_H

#include "td_collector.h"

#include <stdbool.h>
#include <stddef.h>

/* Decides whether the counters a backend just opened in tc may be kept.
 * Returns 0 (fds now marked ours), or -1 with a static reason in *why: the
 * caller closes them and falls back. */
int td_limits_admit(struct td_collector *c, struct td_thread_counters *tc, const char **why);

/* Unmarks tc's fds before the backend closes them; an fd that is no longer
 * our perf fd (replaced behind our back by a raw syscall) is dropped from
 * tc rather than closed. */
void td_limits_release(struct td_collector *c, struct td_thread_counters *tc);

/* Why thread_open failed, as a static string, from its -errno. */
const char *td_limits_open_reason(int rc);

/* Is fd one of our counter fds? Async-signal-safe, no syscall. */
bool td_limits_fd_is_ours(int fd);
/* Highest fd ever marked ours + 1 (0 when none). */
int td_limits_fd_top(void);
/* Moves our fd away from fd (the program dup2s onto it). 0 or -errno. */
int td_limits_fd_relocate(struct td_collector *c, int fd);
/* Forked child: the parent's counter fds are closed by the caller; forget them. */
void td_limits_fork_child(struct td_collector *c);

/* The budget in force (for the report). */
void td_limits_budget(long *rlimit, long *max_fds, long *reserve);

/* 64-byte aligned, zeroed, never freed; NULL when mmap fails. */
void *td_limits_record_alloc(size_t size);
/* Bytes handed out by td_limits_record_alloc so far (the report states it). */
size_t td_limits_record_bytes(void);

#endif
