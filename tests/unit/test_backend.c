/* collector/td_backend: selection and the software backend through the
 * vtable; collector/td_thread: records, totals, foreign settle. */
#include "td_collector.h"
#include "td_metrics.h"

#include <criterion/criterion.h>
#include <math.h>
#include <pthread.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static struct td_config cfg;
static struct td_machine kvm;

static void setup(void)
{
	cr_assert_eq(td_config_init(&cfg), 0);
	memset(&kvm, 0, sizeof(kvm));
	kvm.core_pmu = -1;
	kvm.hypervisor = true;
	strcpy(kvm.no_pmu_reason, "no hardware PMU (hypervisor without vPMU)");
}
static void teardown(void) { td_config_exit(&cfg); }
TestSuite(backend, .init = setup, .fini = teardown);

Test(backend, auto_without_pmu_is_software_and_says_why)
{
	struct td_backend be;
	cr_assert_eq(td_backend_select(&be, &cfg, &kvm), 0);
	cr_expect_str_eq(be.ops->name, "software");
	cr_expect_eq(be.topdown_level, 0);
	cr_expect(strstr(be.reason, "no hardware PMU (hypervisor without vPMU)"), "%s", be.reason);
}

Test(backend, explicit_software)
{
	struct td_backend be;
	cfg.backend = TD_BACKEND_SOFTWARE;
	cr_assert_eq(td_backend_select(&be, &cfg, &kvm), 0);
	cr_expect_str_eq(be.ops->name, "software");
	cr_expect_str_eq(be.reason, "requested by configuration");
}

static void burn_ms(int ms)
{
	struct timespec a, b;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
	do
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
	while ((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000 < ms);
}

Test(backend, software_snapshot_and_accumulate)
{
	struct td_backend be;
	cfg.backend = TD_BACKEND_SOFTWARE;
	td_backend_select(&be, &cfg, &kvm);
	struct td_thread_counters tc = { .tid = 0 };
	cr_assert_eq(be.ops->thread_open(&be, &tc), 0);
	struct td_sample a, b;
	struct td_counts acc = { 0 };
	be.ops->snapshot(&be, &tc, &a);
	burn_ms(20);
	usleep(20000);
	be.ops->snapshot(&be, &tc, &b);
	be.ops->accumulate(&be, &a, &b, &acc);
	cr_expect_geq(acc.cpu_ns, 20000000);
	cr_expect_lt(acc.cpu_ns, 35000000, "sleeping counted as CPU: %lu", (unsigned long)acc.cpu_ns);
	cr_expect_geq(acc.wall_ns, 40000000);
	cr_expect_eq(acc.deltas, 1);
	/* No TopDown from a time-only backend: fractions are NaN, never 0. */
	cr_expect(isnan(td_metrics_fraction(&acc, TD_RETIRING)));
	be.ops->thread_close(&be, &tc);
}

static struct td_collector coll;

static void *worker(void *arg)
{
	struct td_thread *t = td_thread_start(&coll, 1);
	burn_ms(30);
	if (arg) { /* stay "running": the test settles it from outside */
		*(struct td_thread **)arg = t;
		pause();
	}
	td_thread_end(&coll, t, 0);
	return NULL;
}

Test(backend, thread_records_and_foreign_settle)
{
	memset(&coll, 0, sizeof(coll));
	cr_assert_eq(td_config_init(&coll.cfg), 0);
	coll.cfg.backend = TD_BACKEND_SOFTWARE;
	td_backend_select(&coll.backend, &coll.cfg, &kvm);
	pthread_t a, b;
	struct td_thread *volatile running = NULL;
	pthread_create(&a, NULL, worker, NULL);
	pthread_join(a, NULL);
	pthread_create(&b, NULL, worker, (void *)&running);
	while (!running)
		usleep(1000);
	usleep(5000);
	td_thread_settle_foreign(&coll, running);
	cr_expect_eq(atomic_load(&running->state), TD_THREAD_SETTLED);
	cr_expect_geq(running->total.cpu_ns, 30000000, "foreign cpu %lu", (unsigned long)running->total.cpu_ns);
	cr_expect_eq(atomic_load(&coll.nr_threads), 2);
	int exited = 0;
	for (struct td_thread *t = atomic_load(&coll.threads); t; t = t->next)
		if (atomic_load(&t->state) == TD_THREAD_EXITED) {
			exited++;
			cr_expect_geq(t->total.cpu_ns, 30000000);
			cr_expect_eq(t->parent_tid, 1);
		}
	cr_expect_eq(exited, 1);
	/* Ending a settled thread changes nothing: the report owns its figures. */
	uint64_t before = running->total.cpu_ns;
	td_thread_end(&coll, running, 0);
	cr_expect_eq(running->total.cpu_ns, before);
	pthread_cancel(b);
	pthread_join(b, NULL);
}

/* The selector reaches backends through weak references, which do not pull
 * them out of the td_core archive: reference them here. */
#ifdef __x86_64__
const void *const test_backend_linked[] = { &td_backend_rdpmc_ops, &td_backend_perf_ops };
#else
const void *const test_backend_linked[] = { &td_backend_perf_ops };
#endif

/* A core PMU without perf-metrics or usable generic events: auto says why
 * each richer backend could not run, not only the first one. */
Test(backend, auto_with_a_pmu_names_every_refusal)
{
#ifndef __x86_64__
	cr_skip_test("the user-space-read backend of this architecture needs its own PMU facts");
#endif
	struct td_machine m = kvm;
	m.hypervisor = false;
	m.no_pmu_reason[0] = '\0';
	m.nr_pmus = 1;
	strcpy(m.pmus[0].name, "cpu");
	m.pmus[0].type = 4;
	m.core_pmu = 0;
	struct td_backend be;
	cr_assert_eq(td_backend_select(&be, &cfg, &m), 0);
	cr_expect_str_eq(be.ops->name, "software");
	cr_expect(strstr(be.reason, "rdpmc: "), "%s", be.reason);
	cr_expect(strstr(be.reason, "; perf: "), "%s", be.reason);
}
