/* The rdpmc backend's probe on described machines: every "no" names its
 * reason, the PMU type comes from sysfs, a failed trial open leaks no fd.
 * (This machine has no PMU: the user-space read itself is covered by
 * test_pmu_read and, through the same code, test_emulate.) */
#include "td_backend.h"
#include "td_config.h"
#include "td_machine.h"

#include <criterion/criterion.h>

#ifdef TD_ARCH_x86_64
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static struct td_machine machine(int type, bool slots, int nr_topdown)
{
	struct td_machine m = { .arch = "x86_64", .vendor = "GenuineIntel", .nr_pmus = 1,
				.core_pmu = 0, .topdown_level = nr_topdown >= 8 ? 2 : 1 };
	strcpy(m.pmus[0].name, "cpu");
	m.pmus[0].type = type;
	m.pmus[0].has_slots = slots;
	m.pmus[0].nr_topdown = nr_topdown;
	return m;
}

static int count_fds(void)
{
	int n = 0;
	DIR *d = opendir("/proc/self/fd");
	for (struct dirent *e; d && (e = readdir(d));)
		n += e->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

Test(backend_rdpmc, no_core_pmu_says_why)
{
	struct td_machine m = { .arch = "x86_64", .core_pmu = -1 };
	strcpy(m.no_pmu_reason, "no hardware PMU: running under a hypervisor without vPMU");
	struct td_backend be = { .ops = &td_backend_rdpmc_ops, .machine = &m };
	cr_expect_eq(be.ops->probe(&be), -ENOENT);
	cr_expect(strstr(be.reason, "hypervisor without vPMU"), "%s", be.reason);
}

Test(backend_rdpmc, pmu_without_slots_is_not_perf_metrics)
{
	struct td_machine m = machine(4, false, 0);
	struct td_backend be = { .ops = &td_backend_rdpmc_ops, .machine = &m };
	cr_expect_eq(be.ops->probe(&be), -ENOENT);
	cr_expect(strstr(be.reason, "no slots/topdown-* events"), "%s", be.reason);
}

Test(backend_rdpmc, pmu_type_is_never_guessed)
{
	struct td_machine m = machine(0, true, 8);
	struct td_backend be = { .ops = &td_backend_rdpmc_ops, .machine = &m };
	cr_expect_eq(be.ops->probe(&be), -ENOENT);
	cr_expect(strstr(be.reason, "not guessing"), "%s", be.reason);
}

Test(backend_rdpmc, hybrid_needs_the_core_cpu_list)
{
	struct td_machine m = machine(4, true, 8);
	m.hybrid = true;
	strcpy(m.pmus[0].name, "cpu_core");
	strcpy(m.pmus[0].cpus, "0-3,x");
	struct td_backend be = { .ops = &td_backend_rdpmc_ops, .machine = &m };
	int rc = be.ops->probe(&be);
	cr_expect_lt(rc, 0);
	cr_expect(strstr(be.reason, "cpu_core/cpus") || strstr(be.reason, "rseq"), "%s", be.reason);
}

/* Here the described PMU does not exist: the trial open fails, the reason
 * names the errno, and nothing stays open. */
Test(backend_rdpmc, failed_trial_open_names_the_error_and_leaks_nothing)
{
	struct td_machine m = machine(4, true, 8);
	struct td_config cfg;
	cr_assert_eq(td_config_init(&cfg), 0);
	int before = count_fds();
	struct td_backend be = { .ops = &td_backend_rdpmc_ops, .machine = &m, .cfg = &cfg };
	int rc = be.ops->probe(&be);
	cr_expect_lt(rc, 0, "this machine has no PMU");
	cr_expect(strstr(be.reason, "cannot open the TopDown group on PMU cpu"), "%s", be.reason);
	cr_expect_eq(count_fds(), before);
	cr_expect_null(be.priv);
	td_config_exit(&cfg);
}

Test(backend_rdpmc, bad_or_software_extra_events_are_named)
{
	struct td_machine m = machine(4, true, 8);
	struct td_config cfg;
	cr_assert_eq(td_config_init(&cfg), 0);
	free(cfg.events);
	cfg.events = strdup("instructions,cylces");
	struct td_backend be = { .ops = &td_backend_rdpmc_ops, .machine = &m, .cfg = &cfg };
	cr_expect_lt(be.ops->probe(&be), 0);
	cr_expect(strstr(be.reason, "cylces"), "%s", be.reason);
	free(cfg.events);
	cfg.events = strdup("instructions,task-clock");
	cr_expect_eq(be.ops->probe(&be), -EINVAL);
	cr_expect(strstr(be.reason, "task-clock is a software event"), "%s", be.reason);
	td_config_exit(&cfg);
}

#else

Test(backend_rdpmc, x86_64_only)
{
	cr_skip_test("the rdpmc backend reads Intel perf-metrics: x86_64 only");
}

#endif
