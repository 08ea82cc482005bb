/* collector/td_limits: the fd budget decisions, our fd bitmap, and the
 * record allocator under concurrent threads (also run under TSan). */
#include "td_limits.h"

#include <criterion/criterion.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

static struct td_collector ctx;

static void counters_with(struct td_thread_counters *tc, int fd)
{
	memset(tc, 0, sizeof(*tc));
	for (int i = 0; i < TD_MAX_FDS; i++)
		tc->fds[i] = -1;
	tc->fds[0] = fd;
}

static void set_nofile(rlim_t n)
{
	struct rlimit rl;
	getrlimit(RLIMIT_NOFILE, &rl);
	rl.rlim_cur = n;
	cr_assert_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
}

Test(limits, budget_is_a_quarter_and_reserve_an_eighth_at_least_16)
{
	long lim, max_fds, reserve;
	set_nofile(64);
	td_limits_budget(&lim, &max_fds, &reserve);
	cr_expect_eq(lim, 64);
	cr_expect_eq(max_fds, 16);
	cr_expect_eq(reserve, 16);
	set_nofile(1024);
	td_limits_budget(&lim, &max_fds, &reserve);
	cr_expect_eq(max_fds, 256);
	cr_expect_eq(reserve, 128);
}

Test(limits, admit_marks_release_unmarks)
{
	set_nofile(1024);
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	struct td_thread_counters tc;
	const char *why = NULL;
	counters_with(&tc, fd);
	cr_assert_eq(td_limits_admit(&ctx, &tc, &why), 0);
	cr_expect(td_limits_fd_is_ours(tc.fds[0]));
	cr_expect_geq(td_limits_fd_top(), tc.fds[0] + 1);
	td_limits_release(&ctx, &tc);
	cr_expect_not(td_limits_fd_is_ours(fd));
	cr_expect_eq(tc.fds[0], fd, "still our file: kept for the backend to close");
}

Test(limits, high_fd_is_refused_by_the_reserve)
{
	set_nofile(64);
	int fd = fcntl(open("/dev/null", O_RDONLY), F_DUPFD_CLOEXEC, 48); /* 64 - 16 */
	cr_assert_geq(fd, 48);
	struct td_thread_counters tc;
	const char *why = NULL;
	counters_with(&tc, fd);
	cr_expect_eq(td_limits_admit(&ctx, &tc, &why), -1);
	cr_expect(why && strstr(why, "fd reserve"), "%s", why ? why : "(null)");
	cr_expect_not(td_limits_fd_is_ours(fd));
}

Test(limits, sixteen_fds_then_the_budget_says_no)
{
	set_nofile(64);
	struct td_thread_counters tc[17];
	const char *why = NULL;
	for (int i = 0; i < 16; i++) {
		counters_with(&tc[i], open("/dev/null", O_RDONLY | O_CLOEXEC));
		cr_assert_eq(td_limits_admit(&ctx, &tc[i], &why), 0, "fd %d", i);
	}
	counters_with(&tc[16], open("/dev/null", O_RDONLY | O_CLOEXEC));
	cr_expect_eq(td_limits_admit(&ctx, &tc[16], &why), -1);
	cr_expect(strstr(why, "fd budget"), "%s", why);
	td_limits_release(&ctx, &tc[0]);
	cr_expect_eq(td_limits_admit(&ctx, &tc[16], &why), 0, "one released: room for one");
}

Test(limits, a_replaced_fd_is_dropped_not_closed)
{
	set_nofile(1024);
	/* dups of one file stand for perf fds: they share one inode. */
	int a = open("/dev/null", O_RDONLY | O_CLOEXEC);
	struct td_thread_counters first, kept, replaced;
	const char *why;
	counters_with(&first, a);
	cr_assert_eq(td_limits_admit(&ctx, &first, &why), 0);
	counters_with(&kept, dup(a));
	cr_assert_eq(td_limits_admit(&ctx, &kept, &why), 0);
	int fd = dup(a);
	counters_with(&replaced, fd);
	cr_assert_eq(td_limits_admit(&ctx, &replaced, &why), 0);
	/* Behind our back (a raw syscall), fd becomes another file. */
	int prog = open("/dev/zero", O_RDONLY);
	syscall(SYS_dup3, prog, fd, 0); /* dup2: not a syscall on aarch64 */
	td_limits_release(&ctx, &kept);
	td_limits_release(&ctx, &replaced);
	cr_expect_geq(kept.fds[0], 0, "still ours: left for the backend to close");
	cr_expect_eq(replaced.fds[0], -1, "a program's file must never be closed by us");
	cr_expect_eq(fcntl(fd, F_GETFD), 0, "still open");
}

#define NTH 8
#define PER 2000
static void *alloc_many(void *arg)
{
	uintptr_t id = (uintptr_t)arg;
	unsigned char **v = malloc(PER * sizeof(*v));
	for (int i = 0; i < PER; i++) {
		v[i] = td_limits_record_alloc(640);
		cr_assert(v[i]);
		cr_assert_eq((uintptr_t)v[i] % 64, 0);
		for (int k = 0; k < 640; k++)
			cr_assert_eq(v[i][k], 0, "fresh record not zeroed");
		memset(v[i], (int)id + 1, 640);
	}
	for (int i = 0; i < PER; i++)
		for (int k = 0; k < 640; k += 64)
			cr_assert_eq(v[i][k], (unsigned char)(id + 1), "records overlap");
	free(v);
	return NULL;
}

Test(limits, records_from_many_threads_never_overlap)
{
	pthread_t th[NTH];
	for (uintptr_t i = 0; i < NTH; i++)
		pthread_create(&th[i], NULL, alloc_many, (void *)i);
	for (int i = 0; i < NTH; i++)
		pthread_join(th[i], NULL);
}
