/* td_limits: the fd budget, our fd bitmap and the record allocator
 * (see td_limits.h for the rules and why). */
#include "td_limits.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#define TD_FD_BITS (1 << 20) /* the kernel's default nr_open */
static _Atomic uint64_t td_fd_bits[TD_FD_BITS / 64];
static _Atomic int td_fd_top;
static _Atomic int td_counter_fds; /* our counter fds open now */
static _Atomic long td_perf_ino;   /* inode of perf's anon inode, 0 until seen */

bool td_limits_fd_is_ours(int fd)
{
	if (fd < 0 || fd >= TD_FD_BITS)
		return false;
	return (atomic_load_explicit(&td_fd_bits[fd / 64], memory_order_acquire) >> (fd % 64)) & 1;
}

int td_limits_fd_top(void) { return atomic_load(&td_fd_top); }

static void td_fd_mark(int fd, bool on)
{
	if (fd < 0 || fd >= TD_FD_BITS)
		return;
	uint64_t bit = 1ull << (fd % 64);
	if (on) {
		atomic_fetch_or(&td_fd_bits[fd / 64], bit);
		int top = atomic_load(&td_fd_top);
		while (top < fd + 1 && !atomic_compare_exchange_weak(&td_fd_top, &top, fd + 1))
			;
	} else {
		atomic_fetch_and(&td_fd_bits[fd / 64], ~bit);
	}
}

void td_limits_budget(long *rlimit, long *max_fds, long *reserve)
{
	struct rlimit rl;
	long lim = 1024;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0)
		lim = rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > TD_FD_BITS ? TD_FD_BITS
										 : (long)rl.rlim_cur;
	*rlimit = lim;
	*max_fds = lim / 4;
	*reserve = lim / 8 > 16 ? lim / 8 : 16;
}

const char *td_limits_open_reason(int rc)
{
	switch (-rc) {
	case EMFILE: return "fd limit: the process reached RLIMIT_NOFILE (EMFILE)";
	case ENFILE: return "fd limit: the system file table is full (ENFILE)";
	case EPERM:
	case ENOMEM: return "perf mmap refused: locked-memory budget (perf_event_mlock_kb, RLIMIT_MEMLOCK) or permissions";
	case EBUSY: return "counters busy: the PMU could not schedule this thread's group";
	default: return "counters could not be opened for this thread";
	}
}

/* Moves fd to the lowest free number >= 3, close-on-exec. */
static int td_fd_lift(int fd)
{
	int nfd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	if (nfd < 0)
		return -errno;
	close(fd); /* not marked yet: the close interposer lets it through */
	return nfd;
}

int td_limits_admit(struct td_collector *c, struct td_thread_counters *tc, const char **why)
{
	(void)c;
	int n = 0, top = -1;
	for (int i = 0; i < TD_MAX_FDS; i++) {
		if (tc->fds[i] < 0)
			continue;
		n++;
		if (tc->fds[i] > top)
			top = tc->fds[i];
	}
	if (n == 0)
		return 0;
	long lim, max_fds, reserve;
	td_limits_budget(&lim, &max_fds, &reserve);
	if (top >= lim - reserve) {
		*why = "fd reserve: fewer than max(16, RLIMIT_NOFILE/8) fds were left free for the program";
		return -1;
	}
	if (atomic_fetch_add(&td_counter_fds, n) + n > max_fds) {
		atomic_fetch_sub(&td_counter_fds, n);
		*why = "fd budget: tdprobe's counter fds are kept within RLIMIT_NOFILE/4";
		return -1;
	}
	for (int i = 0; i < TD_MAX_FDS; i++) {
		if (tc->fds[i] >= 0 && tc->fds[i] < 3) {
			int nfd = td_fd_lift(tc->fds[i]);
			if (nfd >= 0)
				tc->fds[i] = nfd;
		}
	}
	if (!atomic_load(&td_perf_ino)) {
		struct stat st;
		if (fstat(tc->fds[0] >= 0 ? tc->fds[0] : top, &st) == 0)
			atomic_store(&td_perf_ino, (long)st.st_ino);
	}
	for (int i = 0; i < TD_MAX_FDS; i++)
		td_fd_mark(tc->fds[i], true);
	return 0;
}

void td_limits_release(struct td_collector *c, struct td_thread_counters *tc)
{
	(void)c;
	long ino = atomic_load(&td_perf_ino);
	int n = 0;
	for (int i = 0; i < TD_MAX_FDS; i++) {
		int fd = tc->fds[i];
		if (fd < 0 || !td_limits_fd_is_ours(fd))
			continue;
		n++;
		td_fd_mark(fd, false);
		struct stat st;
		if (fstat(fd, &st) != 0 || (ino && (long)st.st_ino != ino))
			tc->fds[i] = -1; /* not ours any more: never close the program's fd */
	}
	atomic_fetch_sub(&td_counter_fds, n);
}

int td_limits_fd_relocate(struct td_collector *c, int fd)
{
	if (!c)
		return -ENOENT;
	for (struct td_thread *t = atomic_load(&c->threads); t; t = t->next) {
		for (int i = 0; i < TD_MAX_FDS; i++) {
			if (t->ctr.fds[i] != fd)
				continue;
			int nfd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
			if (nfd < 0) {
				/* No room to move it: give the number up rather than
				 * ever read() the program's file through it. */
				int e = errno;
				__atomic_store_n(&t->ctr.fds[i], -1, __ATOMIC_RELEASE);
				td_fd_mark(fd, false);
				atomic_fetch_sub(&td_counter_fds, 1);
				return -e;
			}
			td_fd_mark(nfd, true);
			__atomic_store_n(&t->ctr.fds[i], nfd, __ATOMIC_RELEASE);
			td_fd_mark(fd, false);
			return 0; /* the caller's dup2 closes the old number */
		}
	}
	td_fd_mark(fd, false);
	return -ENOENT;
}

static atomic_flag td_chunk_lock = ATOMIC_FLAG_INIT;

void td_limits_fork_child(struct td_collector *c)
{
	(void)c;
	/* The only thread of the child: a lock another parent thread held at
	 * fork would never be released. */
	atomic_flag_clear(&td_chunk_lock);
	int top = atomic_load(&td_fd_top);
	for (int w = 0; w <= top / 64 && w < TD_FD_BITS / 64; w++)
		atomic_store(&td_fd_bits[w], 0);
	atomic_store(&td_counter_fds, 0);
}

/* Bump allocator over 1 MiB chunks. */
#define TD_CHUNK (1u << 20)
static _Atomic(uintptr_t) td_chunk_next, td_chunk_end;
static _Atomic size_t td_record_bytes;

size_t td_limits_record_bytes(void) { return atomic_load(&td_record_bytes); }

void *td_limits_record_alloc(size_t size)
{
	size = (size + 63) & ~(size_t)63;
	atomic_fetch_add(&td_record_bytes, size);
	if (size > TD_CHUNK / 4) {
		void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		return p == MAP_FAILED ? NULL : p;
	}
	for (;;) {
		uintptr_t cur = atomic_load(&td_chunk_next), end = atomic_load(&td_chunk_end);
		if (cur && cur + size <= end) {
			if (atomic_compare_exchange_weak(&td_chunk_next, &cur, cur + size))
				return (void *)cur; /* fresh anonymous memory: already zero */
			continue;
		}
		/* New chunk: one thread maps it, the others retry. */
		if (atomic_flag_test_and_set(&td_chunk_lock))
			continue;
		uintptr_t n2 = atomic_load(&td_chunk_next), e2 = atomic_load(&td_chunk_end);
		if (!n2 || n2 + size > e2) {
			void *p = mmap(NULL, TD_CHUNK, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (p == MAP_FAILED) {
				atomic_flag_clear(&td_chunk_lock);
				return NULL;
			}
			atomic_store(&td_chunk_end, 0);
			atomic_store(&td_chunk_next, (uintptr_t)p);
			atomic_store(&td_chunk_end, (uintptr_t)p + TD_CHUNK);
		}
		atomic_flag_clear(&td_chunk_lock);
	}
}
