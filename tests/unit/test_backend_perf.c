/* perf backend with real perf_event_open and software events on this
 * machine: a known busy loop, page faults of N touched pages, group read
 * and scaling, per-thread isolation, TopDown choice from machine facts. */
#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../config/td_config.h"
#include "td_backend.h"
#include "td_events.h"
#include "td_formulas.h"
#include "td_machine.h"
#include "td_test_env.h"

struct fixture {
	struct td_config cfg;
	struct td_machine m;
	struct td_backend be;
};

static int setup(struct fixture *f, const char *ini, const char *machine)
{
	char err[256] = "";
	memset(f, 0, sizeof(*f));
	cr_assert_eq(td_config_init(&f->cfg), 0);
	if (ini)
		cr_assert_eq(td_config_load_string(&f->cfg, "test.ini", ini, err, sizeof(err)), 0, "%s",
			     err);
	if (machine) {
		char sys[256], proc[256];
		snprintf(sys, sizeof(sys), "data/machines/%s/sys", machine);
		snprintf(proc, sizeof(proc), "data/machines/%s/proc", machine);
		td_machine_probe(&f->m, sys, proc);
	} else {
		td_machine_probe(&f->m, "/sys", "/proc");
	}
	f->be.cfg = &f->cfg;
	f->be.machine = &f->m;
	f->be.ops = &td_backend_perf_ops;
	f->be.method = "";
	return td_backend_perf_ops.probe(&f->be);
}

static void teardown(struct fixture *f)
{
	if (f->be.ops && f->be.ops->exit)
		f->be.ops->exit(&f->be);
	td_config_exit(&f->cfg);
}

static int event_index(const struct td_backend *be, const char *name)
{
	for (int i = 0; i < be->nr_events; i++)
		if (!strcmp(be->event_names[i], name))
			return i;
	return -1;
}

/* Touches n fresh pages (one fault each) and burns about ms of CPU. */
static void work(size_t pages, int ms)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	if (pages) {
		volatile char *p = mmap(NULL, pages * pg, PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		cr_assert_neq((void *)p, MAP_FAILED);
		for (size_t i = 0; i < pages; i++)
			p[i * pg] = (char)i;
		munmap((void *)p, pages * pg);
	}
	struct timespec a, b;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
	volatile unsigned long x = 0;
	do {
		for (int i = 0; i < 10000; i++)
			x += (unsigned long)i * 7;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
	} while ((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000 < ms);
}

Test(backend_perf, default_counts_task_clock)
{
	TD_TEST_NEEDS_PERF_EVENT_OPEN();
	struct fixture f;
	int rc = setup(&f, "[counters]\nbackend = perf\n", NULL);
	cr_assert_eq(rc, 0, "probe: %s", f.be.reason);
	cr_expect_eq(f.be.nr_events, 1);
	cr_expect_str_eq(f.be.event_names[0], "task-clock");
	cr_expect_eq(f.be.topdown_level, 0);
	cr_expect_str_eq(f.be.method, "perf_event_open group read()");
	cr_expect(strstr(f.be.reason, "events: task-clock") != NULL, "%s", f.be.reason);
	teardown(&f);
}

Test(backend_perf, busy_loop_and_page_faults)
{
	TD_TEST_NEEDS_PERF_EVENT_OPEN();
	struct fixture f;
	int rc = setup(&f, "[counters]\nbackend = perf\nsoftware_events = task-clock, page-faults\n",
		       NULL);
	cr_assert_eq(rc, 0, "probe: %s", f.be.reason);
	cr_assert_eq(f.be.nr_events, 2);
	int tc_i = event_index(&f.be, "task-clock"), pf_i = event_index(&f.be, "page-faults");
	cr_assert(tc_i >= 0 && pf_i >= 0);

	struct td_thread_counters tc;
	memset(&tc, 0, sizeof(tc));
	cr_assert_eq(td_backend_perf_ops.thread_open(&f.be, &tc), 0);
	cr_expect(tc.open);
	cr_expect_eq(tc.nr_fds, 2, "task-clock serves cpu_ns and the event: one fd each");

	struct td_sample a, b;
	struct td_counts acc;
	memset(&acc, 0, sizeof(acc));
	td_backend_perf_ops.snapshot(&f.be, &tc, &a);
	work(1000, 50);
	td_backend_perf_ops.snapshot(&f.be, &tc, &b);
	cr_expect(a.flags & TD_SAMPLE_OK);
	cr_expect(b.flags & TD_SAMPLE_OK);
	cr_expect_eq(b.time_enabled, b.time_running, "software: never multiplexed");
	td_backend_perf_ops.accumulate(&f.be, &a, &b, &acc);
	cr_expect_eq(acc.deltas, 1);
	cr_expect_eq(acc.invalid, 0);
	/* 1000 fresh pages: one minor fault each. */
	cr_expect_geq(acc.events[pf_i], 1000, "page-faults %llu", (unsigned long long)acc.events[pf_i]);
	/* Slack for the loop, stack and (under ASan) shadow memory. */
	cr_expect_lt(acc.events[pf_i], 1400, "page-faults %llu", (unsigned long long)acc.events[pf_i]);
	/* At least the 50 ms burnt, and cpu_ns is the task-clock delta. */
	cr_expect_geq(acc.events[tc_i], 50000000ull, "task-clock %llu", (unsigned long long)acc.events[tc_i]);
	cr_expect_lt(acc.events[tc_i], 500000000ull);
	cr_expect_eq(acc.cpu_ns, acc.events[tc_i]);
	cr_expect_geq(acc.wall_ns, acc.cpu_ns / 2);
	cr_expect_null(td_events_scale_note(acc.time_enabled, acc.time_running));

	/* A sample from before an epoch change is never mixed in. */
	b.epoch++;
	td_backend_perf_ops.accumulate(&f.be, &a, &b, &acc);
	cr_expect_eq(acc.invalid, 1);
	cr_expect_eq(acc.deltas, 1);

	td_backend_perf_ops.thread_close(&f.be, &tc);
	cr_expect(!tc.open);
	cr_expect_eq(tc.fds[0], -1);
	teardown(&f);
}

struct worker {
	struct fixture *f;
	size_t pages;
	int ms;
	struct td_counts acc;
	pthread_barrier_t *bar;
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct td_thread_counters tc;
	struct td_sample a, b;
	memset(&tc, 0, sizeof(tc));
	if (td_backend_perf_ops.thread_open(&w->f->be, &tc))
		return (void *)1;
	td_backend_perf_ops.snapshot(&w->f->be, &tc, &a);
	pthread_barrier_wait(w->bar); /* both threads counting together */
	work(w->pages, w->ms);
	pthread_barrier_wait(w->bar);
	td_backend_perf_ops.snapshot(&w->f->be, &tc, &b);
	td_backend_perf_ops.accumulate(&w->f->be, &a, &b, &w->acc);
	td_backend_perf_ops.thread_close(&w->f->be, &tc);
	return NULL;
}

Test(backend_perf, per_thread_isolation)
{
	TD_TEST_NEEDS_PERF_EVENT_OPEN();
	struct fixture f;
	int rc = setup(&f, "[counters]\nbackend = perf\nsoftware_events = task-clock, page-faults\n",
		       NULL);
	cr_assert_eq(rc, 0, "probe: %s", f.be.reason);
	int tc_i = event_index(&f.be, "task-clock"), pf_i = event_index(&f.be, "page-faults");
	pthread_barrier_t bar;
	pthread_barrier_init(&bar, NULL, 2);
	struct worker heavy = { &f, 2000, 80, { 0 }, &bar }, light = { &f, 0, 5, { 0 }, &bar };
	pthread_t t1, t2;
	pthread_create(&t1, NULL, worker_main, &heavy);
	pthread_create(&t2, NULL, worker_main, &light);
	void *r1, *r2;
	pthread_join(t1, &r1);
	pthread_join(t2, &r2);
	cr_assert_null(r1);
	cr_assert_null(r2);
	cr_expect_geq(heavy.acc.events[pf_i], 2000);
	cr_expect_lt(light.acc.events[pf_i], 100, "light thread saw %llu faults",
		     (unsigned long long)light.acc.events[pf_i]);
	cr_expect_geq(heavy.acc.events[tc_i], 80000000ull);
	cr_expect_geq(light.acc.events[tc_i], 5000000ull);
	cr_expect_lt(light.acc.events[tc_i], 60000000ull, "light thread cpu %llu",
		     (unsigned long long)light.acc.events[tc_i]);
	pthread_barrier_destroy(&bar);
	teardown(&f);
}

static void *spin_until(void *arg)
{
	volatile int *stop = arg;
	work(300, 0);
	while (!*stop)
		work(0, 1);
	return NULL;
}

struct foreign {
	struct fixture *f;
	struct td_thread_counters tc;
	volatile int stop;
	volatile int ready;
};

static void *foreign_main(void *arg)
{
	struct foreign *fo = arg;
	memset(&fo->tc, 0, sizeof(fo->tc));
	if (td_backend_perf_ops.thread_open(&fo->f->be, &fo->tc))
		return (void *)1;
	fo->ready = 1;
	spin_until((void *)&fo->stop);
	return NULL;
}

Test(backend_perf, foreign_snapshot_reads_another_thread)
{
	TD_TEST_NEEDS_PERF_EVENT_OPEN();
	struct fixture f;
	int rc = setup(&f, "[counters]\nbackend = perf\nsoftware_events = task-clock, page-faults\n",
		       NULL);
	cr_assert_eq(rc, 0, "probe: %s", f.be.reason);
	struct foreign fo = { .f = &f };
	pthread_t t;
	pthread_create(&t, NULL, foreign_main, &fo);
	while (!fo.ready)
		usleep(1000);
	usleep(30000);
	struct td_sample s;
	cr_expect_eq(td_backend_perf_ops.snapshot_foreign(&f.be, &fo.tc, &s), 0);
	cr_expect(s.flags & TD_SAMPLE_OK);
	cr_expect_gt(s.cpu_ns, 1000000ull);
	cr_expect_geq(s.events[event_index(&f.be, "page-faults")], 300);
	fo.stop = 1;
	pthread_join(t, NULL);
	td_backend_perf_ops.thread_close(&f.be, &fo.tc);
	teardown(&f);
}

Test(backend_perf, unknown_event_names_the_token)
{
	struct fixture f;
	int rc = setup(&f, "[counters]\nbackend = perf\nevents = page-faults, cylces\n", NULL);
	cr_expect_eq(rc, -EINVAL);
	cr_expect(strstr(f.be.reason, "[counters] events: unknown event 'cylces'") == f.be.reason,
		  "%s", f.be.reason);
	teardown(&f);
}

Test(backend_perf, unschedulable_events_are_named)
{
	TD_TEST_NEEDS_PERF_EVENT_OPEN();
	struct fixture f;
	int rc = setup(&f, "[counters]\nbackend = perf\nevents = page-faults, cycles, instructions\n",
		       NULL);
	cr_assert_eq(rc, 0, "probe: %s", f.be.reason);
	if (f.m.nr_pmus > 0) {
		cr_expect_eq(f.be.nr_events, 3);
		teardown(&f);
		return;
	}
	/* No PMU here: the hardware events go, page-faults stays. */
	cr_expect_eq(f.be.nr_events, 1);
	cr_expect_str_eq(f.be.event_names[0], "page-faults");
	cr_expect(strstr(f.be.reason, "could not schedule: cycles (no such event") != NULL, "%s",
		  f.be.reason);
	cr_expect(strstr(f.be.reason, "instructions (") != NULL, "%s", f.be.reason);
	struct td_thread_counters tc;
	memset(&tc, 0, sizeof(tc));
	cr_assert_eq(td_backend_perf_ops.thread_open(&f.be, &tc), 0);
	struct td_sample a, b;
	struct td_counts acc = { 0 };
	td_backend_perf_ops.snapshot(&f.be, &tc, &a);
	work(100, 1);
	td_backend_perf_ops.snapshot(&f.be, &tc, &b);
	td_backend_perf_ops.accumulate(&f.be, &a, &b, &acc);
	cr_expect_geq(acc.events[0], 100);
	cr_expect_gt(acc.cpu_ns, 0, "hidden task-clock still gives cpu_ns");
	td_backend_perf_ops.thread_close(&f.be, &tc);
	teardown(&f);
}

Test(backend_perf, auto_without_topdown_declines)
{
	TD_TEST_NEEDS_PERF_EVENT_OPEN();
	struct fixture f;
	int rc = setup(&f, NULL, "kvm");
	cr_expect_eq(rc, -ENOENT);
	cr_expect_str_eq(f.be.reason, "no TopDown from generic events: no hardware PMU: running "
				      "under a hypervisor without vPMU");
	teardown(&f);
	rc = setup(&f, NULL, "icl");
	cr_expect_eq(rc, -ENOENT);
	cr_expect(strstr(f.be.reason, "perf-metrics") != NULL, "%s", f.be.reason);
	teardown(&f);
}

/* The Skylake and Zen 4 sets are chosen from the facts; here they cannot
 * be opened (no PMU), so an explicit perf backend keeps the plain events
 * and says TopDown was lost and why. */
Test(backend_perf, formula_set_chosen_but_unopenable_here)
{
	TD_TEST_NEEDS_PERF_EVENT_OPEN();
	struct fixture f;
	int rc = setup(&f, "[counters]\nbackend = perf\n", "zen4");
	cr_assert_eq(rc, 0, "%s", f.be.reason);
	struct td_machine real;
	td_machine_probe(&real, "/sys", "/proc");
	if (real.nr_pmus > 0) {
		teardown(&f);
		cr_skip_test("this machine has a PMU: the Zen 4 set may open or not");
	}
	cr_expect_eq(f.be.topdown_level, 0);
	cr_expect(strstr(f.be.reason, "no TopDown (zen4-pipeline-utilization") != NULL, "%s",
		  f.be.reason);
	cr_expect_eq(f.be.nr_events, 1);
	teardown(&f);
	rc = setup(&f, NULL, "skl");
	cr_expect_eq(rc, -ENOENT, "auto: no TopDown, decline");
	cr_expect(strstr(f.be.reason, "skylake-generic-smt") != NULL, "%s", f.be.reason);
	teardown(&f);
}

/* Perf-metrics through read(): the kernel's per-node slot counts behind a
 * slots leader, accumulated as deltas and turned into nodes at report time.
 * The accumulate/apply path is exact; opening needs a PMU (SPR facts). */
Test(backend_perf, perf_metrics_read_path)
{
	TD_TEST_NEEDS_PERF_EVENT_OPEN();
	struct fixture f;
	int rc = setup(&f, "[counters]\nbackend = perf\n", "spr");
	cr_assert_eq(rc, 0, "%s", f.be.reason);
	struct td_machine real;
	td_machine_probe(&real, "/sys", "/proc");
	if (real.nr_pmus == 0) {
		cr_expect_eq(f.be.topdown_level, 0);
		cr_expect(strstr(f.be.reason, "no TopDown (perf-metrics level 2 (group read()) formula "
					      "events: slots (no such event") != NULL, "%s", f.be.reason);
	}
	teardown(&f);
	/* User events do not fit beside the 8 level-2 events: level 1 instead. */
	rc = setup(&f, "[counters]\nbackend = perf\nevents = page-faults\n", "spr");
	cr_assert_eq(rc, 0, "%s", f.be.reason);
	if (real.nr_pmus == 0)
		cr_expect(strstr(f.be.reason, "no TopDown (perf-metrics level 1 (group read())") != NULL,
			  "%s", f.be.reason);
	teardown(&f);

	struct td_backend be = { 0 };
	be.ops = &td_backend_perf_ops;
	be.method = td_formulas_desc(TD_FORMULAS_PERF_METRICS_L2)->method;
	be.nr_events = 8;
	struct td_sample a = { .flags = TD_SAMPLE_OK, .slots = 1000,
			       .events = { 400, 100, 200, 300, 100, 50, 150, 200 } };
	struct td_sample b = { .flags = TD_SAMPLE_OK, .slots = 11000,
			       .events = { 4400, 1100, 2200, 3300, 1600, 750, 1350, 2700 } };
	struct td_counts acc = { 0 };
	td_backend_perf_ops.accumulate(&be, &a, &b, &acc);
	cr_expect_eq(acc.slots, 10000);
	td_formulas_apply(&be, &acc);
	cr_expect_eq(acc.node[TD_RETIRING], 4000);
	cr_expect_eq(acc.node[TD_BAD_SPECULATION], 1000);
	cr_expect_eq(acc.node[TD_FRONTEND_BOUND], 2000);
	cr_expect_eq(acc.node[TD_BACKEND_BOUND], 3000);
	cr_expect_eq(acc.node[TD_LIGHT_OPERATIONS], 2500);
	cr_expect_eq(acc.node[TD_MACHINE_CLEARS], 300);
	cr_expect_eq(acc.node[TD_FETCH_BANDWIDTH], 800);
	cr_expect_eq(acc.node[TD_CORE_BOUND], 500);
}
