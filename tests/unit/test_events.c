/* td_events: token parsing (exact attr values), list errors, scaling, and
 * real group opens with software events on this machine. */
#include <criterion/criterion.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "td_events.h"
#include "td_machine.h"
#include "td_test_env.h"

static struct td_event_spec parse_ok(const char *tok, const char *sysfs)
{
	struct td_event_spec ev;
	int rc = td_events_parse(tok, sysfs, &ev);
	cr_assert_eq(rc, 0, "parse '%s' -> %d", tok, rc);
	return ev;
}

Test(events, generic_hardware_names)
{
	struct { const char *tok; uint64_t config; } cases[] = {
		{ "instructions", PERF_COUNT_HW_INSTRUCTIONS },
		{ "cycles", PERF_COUNT_HW_CPU_CYCLES },
		{ "cpu-cycles", PERF_COUNT_HW_CPU_CYCLES },
		{ "branches", PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
		{ "branch-misses", PERF_COUNT_HW_BRANCH_MISSES },
		{ "cache-references", PERF_COUNT_HW_CACHE_REFERENCES },
		{ "cache-misses", PERF_COUNT_HW_CACHE_MISSES },
		{ "ref-cycles", PERF_COUNT_HW_REF_CPU_CYCLES },
		{ "bus-cycles", PERF_COUNT_HW_BUS_CYCLES },
		{ "stalled-cycles-frontend", PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
		{ "stalled-cycles-backend", PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
		{ "Instructions", PERF_COUNT_HW_INSTRUCTIONS },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct td_event_spec ev = parse_ok(cases[i].tok, NULL);
		cr_expect_eq(ev.type, PERF_TYPE_HARDWARE, "%s", cases[i].tok);
		cr_expect_eq(ev.config, cases[i].config, "%s", cases[i].tok);
		cr_expect_str_eq(ev.name, cases[i].tok);
		cr_expect(!td_events_is_software(&ev));
	}
}

Test(events, software_names)
{
	struct { const char *tok; uint64_t config; } cases[] = {
		{ "task-clock", PERF_COUNT_SW_TASK_CLOCK },
		{ "cpu-clock", PERF_COUNT_SW_CPU_CLOCK },
		{ "page-faults", PERF_COUNT_SW_PAGE_FAULTS },
		{ "faults", PERF_COUNT_SW_PAGE_FAULTS },
		{ "context-switches", PERF_COUNT_SW_CONTEXT_SWITCHES },
		{ "cs", PERF_COUNT_SW_CONTEXT_SWITCHES },
		{ "cpu-migrations", PERF_COUNT_SW_CPU_MIGRATIONS },
		{ "minor-faults", PERF_COUNT_SW_PAGE_FAULTS_MIN },
		{ "major-faults", PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct td_event_spec ev = parse_ok(cases[i].tok, NULL);
		cr_expect_eq(ev.type, PERF_TYPE_SOFTWARE, "%s", cases[i].tok);
		cr_expect_eq(ev.config, cases[i].config, "%s", cases[i].tok);
		cr_expect(td_events_is_software(&ev));
	}
}

Test(events, raw_hex_codes)
{
	struct td_event_spec ev = parse_ok("r01c2", NULL);
	cr_expect_eq(ev.type, PERF_TYPE_RAW);
	cr_expect_eq(ev.config, 0x1c2);
	ev = parse_ok("r1000001a0", NULL);
	cr_expect_eq(ev.config, 0x1000001a0ull);
	ev = parse_ok("RFF", NULL);
	cr_expect_eq(ev.config, 0xff);
	struct td_event_spec bad;
	cr_expect_eq(td_events_parse("r", NULL, &bad), -EINVAL);
	cr_expect_eq(td_events_parse("r0x3c", NULL, &bad), -EINVAL);
	cr_expect_eq(td_events_parse("r3cz", NULL, &bad), -EINVAL);
	cr_expect_eq(td_events_parse("r-1", NULL, &bad), -EINVAL);
	cr_expect_eq(td_events_parse("rx", NULL, &bad), -EINVAL);
}

Test(events, unknown_names_rejected)
{
	struct td_event_spec ev;
	cr_expect_eq(td_events_parse("cylces", NULL, &ev), -EINVAL);
	cr_expect_eq(td_events_parse("", NULL, &ev), -EINVAL);
	cr_expect_eq(td_events_parse("cycles:u", NULL, &ev), -EINVAL);
}

Test(events, pmu_terms_from_sysfs_format)
{
	const char *icl = "data/machines/icl/sys";
	struct td_event_spec ev = parse_ok("cpu/event=0x3c,umask=0x1/", icl);
	cr_expect_eq(ev.type, 4);
	cr_expect_eq(ev.config, 0x13c, "config %#llx", (unsigned long long)ev.config);
	ev = parse_ok("cpu/event=0xd,umask=0x3,cmask=1,edge/", icl);
	cr_expect_eq(ev.config, 0x104030dull, "config %#llx", (unsigned long long)ev.config);
	/* AMD's split event field: bits 8-11 of the event go to config 32-35. */
	ev = parse_ok("cpu/event=0x1a0,umask=0x1e/", "data/machines/zen4/sys");
	cr_expect_eq(ev.config, 0x100001ea0ull, "config %#llx", (unsigned long long)ev.config);
	ev = parse_ok("armv8_pmuv3_0/event=0x11,long,rdpmc/", "data/machines/n2/sys");
	cr_expect_eq(ev.type, 10);
	cr_expect_eq(ev.config, 0x11);
	cr_expect_eq(ev.config1, 0x3);
	ev = parse_ok("cpu_atom/event=0xc2/", "data/machines/adl/sys");
	cr_expect_eq(ev.type, 10);
	cr_expect_eq(ev.config, 0xc2);

	struct td_event_spec bad;
	cr_expect_eq(td_events_parse("nosuch/event=1/", icl, &bad), -ENOENT);
	cr_expect_eq(td_events_parse("cpu/frob=1/", icl, &bad), -ENOENT);
	cr_expect_eq(td_events_parse("cpu/umask=0x1ff/", icl, &bad), -ERANGE);
	cr_expect_eq(td_events_parse("cpu/event=zz/", icl, &bad), -EINVAL);
	cr_expect_eq(td_events_parse("cpu/event=1", icl, &bad), -EINVAL);
	cr_expect_eq(td_events_parse("/event=1/", icl, &bad), -EINVAL);
}

Test(events, list_keeps_commas_inside_pmu_terms)
{
	struct td_event_spec specs[8];
	char err[256] = "";
	int n = 0;
	int rc = td_events_parse_list(" instructions, cpu/event=0x3c,umask=0x1/ ,page-faults,r1c2 ",
				      "[counters] events", "data/machines/icl/sys", specs, &n, 8,
				      err, sizeof(err));
	cr_assert_eq(rc, 0, "%s", err);
	cr_assert_eq(n, 4);
	cr_expect_str_eq(specs[0].name, "instructions");
	cr_expect_str_eq(specs[1].name, "cpu/event=0x3c,umask=0x1/");
	cr_expect_eq(specs[1].config, 0x13c);
	cr_expect_str_eq(specs[2].name, "page-faults");
	cr_expect_str_eq(specs[3].name, "r1c2");
}

Test(events, list_error_names_the_bad_token)
{
	struct td_event_spec specs[8];
	char err[256] = "";
	int n = 0;
	int rc = td_events_parse_list("instructions,cylces,cycles", "[counters] events", NULL, specs,
				      &n, 8, err, sizeof(err));
	cr_expect_eq(rc, -EINVAL);
	cr_expect(strstr(err, "[counters] events: unknown event 'cylces' (expected") == err, "%s",
		  err);
	n = 0;
	rc = td_events_parse_list("cycles,cycles,cycles", "[counters] events", NULL, specs, &n, 2,
				  err, sizeof(err));
	cr_expect_eq(rc, -E2BIG);
	cr_expect_str_eq(err, "[counters] events: too many events at 'cycles' (at most 2 per thread)");
	n = 0;
	rc = td_events_parse_list("cpu/frob=1/", "[counters] events", "data/machines/icl/sys", specs,
				  &n, 8, err, sizeof(err));
	cr_expect_eq(rc, -ENOENT);
	cr_expect_str_eq(err, "[counters] events: 'cpu/frob=1/': no such PMU or format term in sysfs");
	n = 0;
	cr_expect_eq(td_events_parse_list("", "k", NULL, specs, &n, 8, err, sizeof(err)), 0);
	cr_expect_eq(n, 0);
}

Test(events, scaling)
{
	cr_expect_eq(td_events_scale(1000, 200, 100), 2000);
	cr_expect_eq(td_events_scale(1000, 300, 100), 3000);
	cr_expect_eq(td_events_scale(1000, 100, 100), 1000);
	cr_expect_eq(td_events_scale(1000, 100, 0), 0);
	/* No overflow for large products. */
	cr_expect_eq(td_events_scale(UINT64_MAX / 2, 4, 2), UINT64_MAX - 1);
	cr_expect_null(td_events_scale_note(100, 100));
	cr_expect_null(td_events_scale_note(0, 0));
	cr_expect_str_eq(td_events_scale_note(100, 40), "scaled");
	cr_expect_str_eq(td_events_scale_note(100, 0), "never ran");
}

Test(events, attr_for_leader_and_member)
{
	struct td_event_spec ev = parse_ok("r01c2", NULL);
	struct perf_event_attr a;
	td_events_attr(&ev, true, true, &a);
	cr_expect_eq(a.type, PERF_TYPE_RAW);
	cr_expect_eq(a.config, 0x1c2);
	cr_expect_eq(a.disabled, 1);
	cr_expect_eq(a.exclude_kernel, 1);
	cr_expect_eq(a.read_format, PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
				     PERF_FORMAT_TOTAL_TIME_RUNNING);
	cr_expect_eq(a.inherit, 0);
	td_events_attr(&ev, false, false, &a);
	cr_expect_eq(a.disabled, 0);
	cr_expect_eq(a.exclude_kernel, 0);
}

Test(events, software_group_opens_and_counts_page_faults)
{
	TD_TEST_NEEDS_PERF_EVENT_OPEN();
	struct td_event_spec ev[2];
	ev[0] = parse_ok("task-clock", NULL);
	ev[1] = parse_ok("page-faults", NULL);
	int fds[2], failed = -1;
	int rc = td_events_open_group(ev, 2, true, fds, &failed);
	cr_assert_eq(rc, 0, "open: %s", strerror(-rc));
	cr_assert_eq(td_events_enable_group(fds[0]), 0);
	size_t pages = 256, pg = (size_t)sysconf(_SC_PAGESIZE);
	volatile char *mem = malloc(pages * pg + pg);
	for (size_t i = 0; i < pages; i++)
		mem[i * pg] = 1;
	uint64_t v[2], en, run;
	cr_assert_eq(td_events_read_group(fds[0], 2, v, &en, &run), 0);
	cr_expect_gt(v[0], 0);
	cr_expect_geq(v[1], pages / 2, "page faults %llu for %zu pages", (unsigned long long)v[1],
		      pages);
	cr_expect_gt(en, 0);
	cr_expect_eq(en, run, "software groups are never multiplexed");
	cr_expect_eq(td_events_read_group(fds[0], 3, v, &en, &run), -ENODATA, "wrong count");
	free((void *)mem);
	close(fds[1]);
	close(fds[0]);
}

/* On a machine without a hardware PMU, hardware events are dropped by the
 * plan and named; software ones stay in one group. */
Test(events, plan_drops_and_names_unschedulable_events)
{
	TD_TEST_NEEDS_PERF_EVENT_OPEN();
	struct td_machine m;
	td_machine_probe(&m, "/sys", "/proc");
	struct td_event_spec specs[4];
	specs[0] = parse_ok("task-clock", NULL);
	specs[1] = parse_ok("page-faults", NULL);
	specs[2] = parse_ok("cycles", NULL);
	specs[3] = parse_ok("instructions", NULL);
	for (int i = 0; i < 4; i++)
		specs[i].tag = 10 + i;
	struct td_events_plan plan;
	char dropped[256];
	int n = 4;
	int rc = td_events_plan(specs, &n, true, &plan, dropped, sizeof(dropped));
	cr_assert_eq(rc, 0);
	if (m.nr_pmus > 0) {
		cr_expect_eq(n, 4);
		cr_expect_str_eq(dropped, "");
		return;
	}
	cr_expect_eq(n, 2);
	cr_expect_eq(plan.nr_groups, 1);
	cr_expect_eq(plan.group_start[0], 0);
	cr_expect_eq(plan.group_start[1], 2);
	cr_expect_eq(specs[1].tag, 11);
	cr_expect(strstr(dropped, "cycles (no such event on this machine") == dropped, "%s", dropped);
	cr_expect(strstr(dropped, ", instructions (no such event") != NULL, "%s", dropped);

	/* Only hardware events: nothing left. */
	specs[0] = parse_ok("cycles", NULL);
	n = 1;
	cr_expect_eq(td_events_plan(specs, &n, true, &plan, dropped, sizeof(dropped)), -ENOENT);
	cr_expect_eq(n, 0);
}

Test(events, errno_hints)
{
	cr_expect(strstr(td_events_errno_hint(-EACCES), "perf_event_paranoid") != NULL);
	cr_expect(strstr(td_events_errno_hint(ENOENT), "no such event") != NULL);
	cr_expect(strstr(td_events_errno_hint(-ENODATA), "never scheduled") != NULL);
}

/* Pinned specs form their own group, never split, never merged. */
Test(events, plan_keeps_pinned_runs_together)
{
	TD_TEST_NEEDS_PERF_EVENT_OPEN();
	struct td_event_spec specs[4];
	specs[0] = parse_ok("task-clock", NULL);
	specs[1] = parse_ok("page-faults", NULL);
	specs[2] = parse_ok("context-switches", NULL);
	specs[3] = parse_ok("minor-faults", NULL);
	specs[1].pin = specs[2].pin = 1;
	struct td_events_plan plan;
	char dropped[256];
	int n = 4;
	cr_assert_eq(td_events_plan(specs, &n, true, &plan, dropped, sizeof(dropped)), 0);
	cr_expect_eq(n, 4);
	cr_assert_eq(plan.nr_groups, 3);
	cr_expect_eq(plan.group_start[0], 0);
	cr_expect_eq(plan.group_start[1], 1);
	cr_expect_eq(plan.group_start[2], 3);
	cr_expect_eq(plan.group_start[3], 4);
}

Test(events, plan_drops_a_failing_pinned_group_whole)
{
	TD_TEST_NEEDS_PERF_EVENT_OPEN();
	struct td_machine m;
	td_machine_probe(&m, "/sys", "/proc");
	if (m.nr_pmus > 0)
		cr_skip_test("this machine has a PMU: raw slots may open");
	struct td_event_spec specs[4];
	specs[0] = parse_ok("task-clock", NULL);
	specs[1] = parse_ok("r0400", NULL);
	specs[2] = parse_ok("r8000", NULL);
	specs[3] = parse_ok("page-faults", NULL);
	specs[1].pin = specs[2].pin = 1;
	struct td_events_plan plan;
	char dropped[256];
	int n = 4;
	cr_assert_eq(td_events_plan(specs, &n, true, &plan, dropped, sizeof(dropped)), 0);
	cr_expect_eq(n, 2);
	cr_expect_str_eq(specs[1].name, "page-faults");
	cr_expect(strstr(dropped, "r0400 (no such event") == dropped, "%s", dropped);
	cr_expect(strstr(dropped, ", r8000 (no such event") != NULL, "%s", dropped);
	cr_expect_eq(plan.nr_groups, 2);
}
