/* Probes of the test environment shared by unit tests. */
#ifndef TD_TEST_ENV_H
#define TD_TEST_ENV_H

#include <criterion/criterion.h>
#include <errno.h>
#include <stdbool.h>
#include <sys/syscall.h>
#include <unistd.h>

/* perf_event_open exists (a real kernel says EFAULT to a NULL attr);
 * qemu-user, which runs the aarch64 unit tests, answers ENOSYS. */
static inline bool td_test_has_perf_event_open(void)
{
	errno = 0;
	long r = syscall(SYS_perf_event_open, NULL, 0, -1, -1, 0);
	return !(r < 0 && errno == ENOSYS);
}

#define TD_TEST_NEEDS_PERF_EVENT_OPEN()                                                            \
	do {                                                                                       \
		if (!td_test_has_perf_event_open())                                               \
			cr_skip_test("perf_event_open is not implemented here (qemu-user); "       \
				     "the arm64 VM runs it");                                      \
	} while (0)

#endif
