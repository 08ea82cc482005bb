/* The regions part of the report: per-thread entries with call-site frames,
 * inclusive metrics and an exclusive block, [other] entries and the folded
 * count, the process-wide merge over threads, and the summary lines. */
#include "td_region.h"
#include "td_region_table.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t fake_now;

static void fake_snapshot(const struct td_backend *be, struct td_thread_counters *tc,
			  struct td_sample *out)
{
	memset(out, 0, sizeof(*out));
	out->wall_ns = out->cpu_ns = fake_now;
	out->flags = TD_SAMPLE_OK;
}

static void fake_accumulate(const struct td_backend *be, const struct td_sample *a,
			    const struct td_sample *b, struct td_counts *acc)
{
	acc->wall_ns += b->wall_ns - a->wall_ns;
	acc->cpu_ns += b->cpu_ns - a->cpu_ns;
	acc->deltas++;
}

static const struct td_backend_ops fake_ops = {
	.name = "fake", .snapshot = fake_snapshot, .accumulate = fake_accumulate,
};

static struct td_collector c;
static struct td_thread t1, t2;

static void setup(void)
{
	memset(&c, 0, sizeof(c));
	cr_assert_eq(td_config_init(&c.cfg), 0);
	c.cfg.max_callsites = 16;
	c.backend.ops = &fake_ops;
	c.region_names[0] = "alpha";
	c.region_names[1] = "beta";
	atomic_store(&c.nr_regions, 2);
	memset(&t1, 0, sizeof(t1));
	memset(&t2, 0, sizeof(t2));
	t1.regions = td_regions_new(&c.cfg);
	t2.regions = td_regions_new(&c.cfg);
	/* registry: t2 -> t1 */
	t2.next = &t1;
	atomic_store(&c.threads, &t2);
}

static void teardown(void)
{
	td_regions_delete(t1.regions);
	td_regions_delete(t2.regions);
	td_config_exit(&c.cfg);
}

TestSuite(region_report, .init = setup, .fini = teardown);

/* A real code address in this program, so symbolization has work to do. */
__attribute__((noinline)) static void call_site_here(void)
{
	__asm__ volatile(".rept 16\n\tnop\n\t.endr"); /* 16+ bytes at any -O */
}
#define SITE ((uintptr_t)&call_site_here + 4)

static void run(struct td_thread *t, uint64_t at, int region, uintptr_t ra, uint64_t len)
{
	fake_now = at;
	cr_assert_eq(td_region_enter(&c, t, region, ra), 0);
	fake_now = at + len;
	td_region_exit(&c, t, region);
}

static char *json_of(void (*write)(struct td_json *j, void *arg), void *arg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct td_json j;
	td_json_init(&j, f, 0);
	td_json_object_begin(&j);
	write(&j, arg);
	td_json_object_end(&j);
	fclose(f);
	return buf;
}

static void write_thread(struct td_json *j, void *arg) { td_regions_json_thread(&c, arg, j); }
static void write_process(struct td_json *j, void *arg) { td_regions_json_process(&c, j); }

Test(region_report, thread_entries_have_frames_calls_metrics_and_exclusive)
{
	fake_now = 0;
	cr_assert_eq(td_region_enter(&c, &t1, 0, SITE), 0);
	fake_now = 10;
	cr_assert_eq(td_region_enter(&c, &t1, 1, SITE + 1), 0);
	fake_now = 50;
	td_region_exit(&c, &t1, 1);
	fake_now = 100;
	td_region_exit(&c, &t1, 0);
	run(&t1, 200, 0, SITE, 50);

	char *s = json_of(write_thread, &t1);
	cr_log_info("%s", s);
	/* alpha: 2 calls, 150 ns inclusive, 110 exclusive; sorted first. */
	cr_assert_not_null(strstr(s, "\"regions\":[{\"function\":\"alpha\",\"callsite\":[{\"module\":\""), "%s", s);
	cr_assert_not_null(strstr(s, "\"symbol\":\"call_site_here\",\"offset\":4,\"address\":\"0x"), "%s", s);
	cr_assert_not_null(strstr(s, "\"calls\":2,\"metrics\":{\"cpu_ns\":150,\"wall_ns\":150"), "%s", s);
	cr_assert_not_null(strstr(s, "\"exclusive\":{\"cpu_ns\":110,\"wall_ns\":110"), "%s", s);
	cr_assert_not_null(strstr(s, "{\"function\":\"beta\""), "%s", s);
	cr_assert_not_null(strstr(s, "\"symbol\":\"call_site_here\",\"offset\":5"), "%s", s);
	cr_assert_not_null(strstr(s, "\"other_callsites_folded\":0"), "%s", s);
	free(s);
}

Test(region_report, folded_call_sites_are_an_other_entry_and_counted)
{
	for (uintptr_t i = 0; i < 20; i++)
		run(&t1, 1000 * i, 1, 0x1000 + i, 5);
	char *s = json_of(write_thread, &t1);
	cr_assert_not_null(strstr(s, "\"function\":\"beta\",\"callsite\":[],\"other\":true,\"calls\":4"), "%s", s);
	cr_assert_not_null(strstr(s, "\"other_callsites_folded\":4"), "%s", s);
	free(s);
}

Test(region_report, process_view_merges_threads_by_function_and_call_site)
{
	run(&t1, 0, 0, SITE, 10);
	run(&t1, 100, 0, SITE, 10);
	run(&t2, 0, 0, SITE, 30);      /* same function and call site: merged */
	run(&t2, 100, 0, SITE + 1, 1); /* another call site: its own entry */
	char *s = json_of(write_process, NULL);
	cr_assert_not_null(strstr(s, "\"calls\":3,\"metrics\":{\"cpu_ns\":50,"), "%s", s);
	cr_assert_not_null(strstr(s, "\"calls\":1,\"metrics\":{\"cpu_ns\":1,"), "%s", s);
	cr_assert_not_null(strstr(s, "\"other_callsites_folded\":0"), "%s", s);
	free(s);
}

static char lines[8][512];
static int nr_lines;
static void collect(void *arg, const char *s)
{
	if (nr_lines < 8)
		snprintf(lines[nr_lines++], sizeof(lines[0]), "%s", s);
}

Test(region_report, summary_lists_the_top_regions_heaviest_first)
{
	run(&t1, 0, 0, SITE, 10);
	run(&t1, 100, 1, SITE + 1, 90);
	nr_lines = 0;
	td_regions_summary(&c, &t1, 1, collect, NULL);
	cr_assert_eq(nr_lines, 1);
	cr_assert_not_null(strstr(lines[0], "beta"), "%s", lines[0]);
	cr_assert_not_null(strstr(lines[0], "call_site_here+0x5"), "%s", lines[0]);
	cr_assert_not_null(strstr(lines[0], "calls 1 "), "%s", lines[0]);
}
