/* td_rep / td_merge: reports load with strict checks, and merged totals are
 * the exact sums of the parts (fractions recomputed from slot counts). */
#include <criterion/criterion.h>

#include "td_merge.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static char err[512];

/* A thread object with level-1 slot counts r, b, f, k (fractions derived). */
static int thread_json(char *o, size_t n, int tid, const char *name, uint64_t cpu, uint64_t wall,
		       const uint64_t c[4], uint64_t err_slots, const char *regions)
{
	uint64_t s = c[0] + c[1] + c[2] + c[3];
	return snprintf(o, n,
			"{\"tid\": %d, \"name\": \"%s\", \"parent_tid\": 0, \"state\": \"exited\","
			" \"metrics\": {\"cpu_ns\": %" PRIu64 ", \"wall_ns\": %" PRIu64 ", \"slots\": %" PRIu64 ","
			" \"retiring\": %.9f, \"bad_speculation\": %.9f, \"frontend_bound\": %.9f, \"backend_bound\": %.9f,"
			" \"slot_counts\": {\"retiring\": %" PRIu64 ", \"bad_speculation\": %" PRIu64
			", \"frontend_bound\": %" PRIu64 ", \"backend_bound\": %" PRIu64 "},"
			" \"error_slots\": %" PRIu64 ", \"error_pp\": %.9f,"
			" \"events\": {\"instructions\": %" PRIu64 ", \"cycles\": %" PRIu64 "}},"
			" \"regions\": [%s]}",
			tid, name, cpu, wall, s, (double)c[0] / s, (double)c[1] / s, (double)c[2] / s,
			(double)c[3] / s, c[0], c[1], c[2], c[3], err_slots, 100.0 * err_slots / s, cpu * 2,
			cpu, regions ? regions : "");
}

static const char *region_json(char *o, size_t n, const char *fn, uint64_t calls, uint64_t cpu,
			       const uint64_t c[4], const char *sym)
{
	uint64_t s = c[0] + c[1] + c[2] + c[3];
	snprintf(o, n,
		 "{\"function\": \"%s\", \"callsite\": [{\"module\": \"/bin/x\", \"symbol\": \"%s\", \"offset\": 16,"
		 " \"address\": \"0x401010\"}], \"calls\": %" PRIu64 ", \"metrics\": {\"cpu_ns\": %" PRIu64
		 ", \"wall_ns\": %" PRIu64 ", \"slot_counts\": {\"retiring\": %" PRIu64 ", \"bad_speculation\": %" PRIu64
		 ", \"frontend_bound\": %" PRIu64 ", \"backend_bound\": %" PRIu64 "}, \"retiring\": %.9f}}",
		 fn, sym, calls, cpu, cpu + 5, c[0], c[1], c[2], c[3], (double)c[0] / s);
	return o;
}

static int load(struct td_rep_set *set, const char *name, const char *text)
{
	struct td_jsonr_doc *d = td_jsonr_parse(text, strlen(text), NULL, err, sizeof(err));
	cr_assert_not_null(d, "fixture %s: %s", name, err);
	return td_rep_load_doc(set, name, d, err, sizeof(err));
}

static void report(char *o, size_t n, int pid, const char *threads, const char *regions)
{
	int w = snprintf(o, n,
		 "{\"schema\": \"tdprobe/1\", \"process\": {\"pid\": %d, \"ppid\": 1, \"command\": [\"w\", \"-x\"],"
		 " \"host\": \"h\", \"start_unix_ns\": %d},"
		 " \"machine\": {\"cpu_model\": \"Test CPU\", \"ncpus\": 4},"
		 " \"backend\": {\"name\": \"emulate\", \"reason\": \"asked\", \"topdown_level\": 1, \"emulated\": true},"
		 " \"threads\": [%s], \"regions\": [%s]}",
		 pid, pid * 10, threads, regions ? regions : "");
	cr_assert(w > 0 && (size_t)w < n, "fixture too long for its buffer");
}

/* Four worker processes plus a parent: the merge's total equals the sum of
 * every thread of every file, field by field. */
Test(merge, forked_workers_total_is_exact_sum)
{
	struct td_rep_set set = { 0 };
	uint64_t want_cpu = 0, want_wall = 0, want_c[4] = { 0 }, want_err = 0, want_calls = 0;
	static char thr[2][4096], reg[1024], doc[16384];

	for (int p = 0; p < 5; p++) {
		uint64_t c0[4] = { 1000 + 7 * p, 200 + p, 300, 500 + 11 * p };
		uint64_t c1[4] = { 999999937ull * (p + 1), 3, 5, 7 };
		uint64_t rc[4] = { 10, 20, 30 + p, 40 };
		region_json(reg, sizeof(reg), "work", 3 + p, 1000 + p, rc, "main");
		thread_json(thr[0], sizeof(thr[0]), 100 * p + 1, "main", 5000000 + p, 9000000, c0, 3 + p, NULL);
		thread_json(thr[1], sizeof(thr[1]), 100 * p + 2, "worker", 123456789ull * (p + 1), 200000000, c1,
			    p, reg);
		char both[8200];
		snprintf(both, sizeof(both), "%s, %s", thr[0], thr[1]);
		report(doc, sizeof(doc), 1000 + p, both, reg);
		char name[32];
		snprintf(name, sizeof(name), "w%d.json", p);
		cr_assert_eq(load(&set, name, doc), 0, "%s", err);
		want_cpu += 5000000 + p + 123456789ull * (p + 1);
		want_wall += 9000000 + 200000000;
		for (int k = 0; k < 4; k++)
			want_c[k] += c0[k] + c1[k];
		want_err += 3 + p + p;
		want_calls += 3 + p;
	}
	struct td_merge_opts o = { .by = TD_BY_THREAD };
	struct td_view v;
	cr_assert_eq(td_merge_view(&set, &o, &v, err, sizeof(err)), 0, "%s", err);
	const struct td_rep_metrics *t = &v.total.m;
	cr_expect_eq(v.total.nr_threads, 10);
	cr_expect(t->has_cpu && t->has_wall);
	cr_expect_eq(t->cpu_ns, want_cpu);
	cr_expect_eq(t->wall_ns, want_wall);
	uint64_t sum = 0;
	for (int k = 0; k < 4; k++) {
		cr_expect_eq(t->count[k], want_c[k], "node %d: %" PRIu64 " vs %" PRIu64, k, t->count[k], want_c[k]);
		sum += want_c[k];
	}
	for (int k = 0; k < 4; k++)
		cr_expect_eq(t->frac[k], (double)want_c[k] / (double)sum, "fraction %d recomputed from counts", k);
	cr_expect(t->has_err);
	cr_expect_float_eq(t->error_pp, 100.0 * want_err / sum, 1e-12);
	uint64_t ins;
	cr_assert(td_rep_metrics_event(t, "instructions", &ins));
	cr_expect_eq(ins, 2 * want_cpu);
	cr_expect(t->has_ipc);
	cr_expect_float_eq(t->ipc, 2.0, 1e-12);
	/* Thread table keeps every process's rows. */
	cr_expect_eq(v.tables[0].nr, 10);
	cr_expect_eq(v.tables[0].total.m.cpu_ns, want_cpu);
	/* Regions merged across the five processes by function. */
	cr_assert_eq(v.nr_tables, 2);
	cr_assert_eq(v.tables[1].nr, 1);
	cr_expect_str_eq(v.tables[1].rows[0].name, "work");
	cr_expect_eq(v.tables[1].rows[0].calls, want_calls);
	cr_expect_eq(v.tables[1].rows[0].pid, -1, "spans several processes");
	cr_expect_eq(v.tables[1].rows[0].m.count[2], 5 * 30 + 0 + 1 + 2 + 3 + 4);
	td_merge_view_exit(&v);

	/* By process: one row per file, the total the same exact sum. */
	o.by = TD_BY_PROCESS;
	cr_assert_eq(td_merge_view(&set, &o, &v, err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(v.tables[0].nr, 5);
	cr_expect_eq(v.tables[0].total.m.cpu_ns, want_cpu);
	uint64_t rows = 0;
	for (size_t i = 0; i < v.tables[0].nr; i++)
		rows += v.tables[0].rows[i].m.count[TD_BACKEND_BOUND];
	cr_expect_eq(rows, want_c[TD_BACKEND_BOUND]);
	td_merge_view_exit(&v);
	td_rep_set_exit(&set);
}

Test(merge, absent_figures_stay_absent)
{
	struct td_rep_set set = { 0 };
	static char doc[4096];
	report(doc, sizeof(doc), 7,
	       "{\"tid\": 7, \"name\": \"a\", \"metrics\": {\"cpu_ns\": 10, \"wall_ns\": 20}},"
	       " {\"tid\": 8, \"name\": \"b\", \"metrics\": {\"cpu_ns\": 5, \"wall_ns\": 9, \"slots\": 8,"
	       " \"slot_counts\": {\"retiring\": 2, \"bad_speculation\": 2, \"frontend_bound\": 2, \"backend_bound\": 2}}}",
	       NULL);
	cr_assert_eq(load(&set, "a.json", doc), 0, "%s", err);
	struct td_merge_opts o = { .by = TD_BY_THREAD };
	struct td_view v;
	cr_assert_eq(td_merge_view(&set, &o, &v, err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(v.total.m.cpu_ns, 15);
	cr_expect_eq(v.total.m.count_mask, 0, "one thread had no slot counts: the sum has none");
	cr_expect_eq(v.total.m.frac_mask, 0, "no made-up fractions");
	cr_expect_eq(td_rep_metrics_level(&v.total.m), 0);
	cr_expect_not(v.total.m.has_slots);
	cr_expect_eq(v.level, 1, "thread b alone has level 1");
	td_merge_view_exit(&v);
	td_rep_set_exit(&set);
}

Test(merge, thread_filter_sort_and_top)
{
	struct td_rep_set set = { 0 };
	static char doc[8192];
	report(doc, sizeof(doc), 9,
	       "{\"tid\": 1, \"name\": \"main\", \"metrics\": {\"cpu_ns\": 50}},"
	       "{\"tid\": 2, \"name\": \"worker-1\", \"metrics\": {\"cpu_ns\": 300}},"
	       "{\"tid\": 3, \"name\": \"worker-2\", \"metrics\": {\"cpu_ns\": 200}},"
	       "{\"tid\": 4, \"name\": \"io\", \"metrics\": {\"cpu_ns\": 100}}",
	       NULL);
	cr_assert_eq(load(&set, "f.json", doc), 0, "%s", err);
	const char *globs[] = { "worker-*", "4" };
	struct td_merge_opts o = { .by = TD_BY_THREAD, .globs = globs, .nr_globs = 2, .top = 2 };
	struct td_view v;
	cr_assert_eq(td_merge_view(&set, &o, &v, err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(v.tables[0].nr_all, 3, "worker-1, worker-2 and tid 4");
	cr_expect_eq(v.tables[0].nr, 2, "--top 2");
	cr_expect_eq(v.tables[0].rows[0].tid, 2, "sorted by cpu, largest first");
	cr_expect_eq(v.tables[0].rows[1].tid, 3);
	cr_expect_eq(v.tables[0].total.m.cpu_ns, 600, "the total counts every filtered row, not just the top");
	td_merge_view_exit(&v);
	o.sort = "name";
	o.top = 0;
	cr_assert_eq(td_merge_view(&set, &o, &v, err, sizeof(err)), 0, "%s", err);
	cr_expect_str_eq(v.tables[0].rows[0].name, "io");
	cr_expect_str_eq(v.tables[0].rows[2].name, "worker-2");
	td_merge_view_exit(&v);
	o.sort = "bogus";
	cr_expect_neq(td_merge_view(&set, &o, &v, err, sizeof(err)), 0);
	cr_expect(strstr(err, "unknown key 'bogus'"), "%s", err);
	cr_expect_eq(td_merge_check_sort("tma_memory_bound"), 0);
	cr_expect_eq(td_merge_check_sort("core_bound"), 0);
	td_rep_set_exit(&set);
}

Test(merge, callsites_kept_apart_by_callsite)
{
	struct td_rep_set set = { 0 };
	static char doc[8192], r1[1024], r2[1024], r3[1024], regs[4096];
	uint64_t c[4] = { 1, 2, 3, 4 };
	region_json(r1, sizeof(r1), "f", 1, 10, c, "main");
	region_json(r2, sizeof(r2), "f", 2, 20, c, "other");
	region_json(r3, sizeof(r3), "g", 4, 40, c, "main");
	snprintf(regs, sizeof(regs), "%s, %s, %s", r1, r2, r3);
	report(doc, sizeof(doc), 5, "{\"tid\": 5, \"metrics\": {}}", regs);
	cr_assert_eq(load(&set, "c.json", doc), 0, "%s", err);
	struct td_merge_opts o = { .by = TD_BY_CALLSITE };
	struct td_view v;
	cr_assert_eq(td_merge_view(&set, &o, &v, err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(v.tables[0].nr, 3);
	td_merge_view_exit(&v);
	o.by = TD_BY_REGION;
	cr_assert_eq(td_merge_view(&set, &o, &v, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(v.tables[0].nr, 2);
	cr_expect_str_eq(v.tables[0].rows[0].name, "g");
	cr_expect_eq(v.tables[0].rows[1].calls, 3);
	cr_expect_eq(v.tables[0].rows[1].m.cpu_ns, 30);
	cr_expect_eq(v.tables[0].rows[1].m.count[3], 8);
	char cs[256];
	td_merge_callsite_str(&set.procs[0]->regions[0], cs, sizeof(cs));
	cr_expect_str_eq(cs, "main+0x10 (x)");
	td_merge_view_exit(&v);
	td_rep_set_exit(&set);
}

/* Loader errors name the file and the member. */
static void bad(const char *text, const char *want)
{
	struct td_rep_set set = { 0 };
	cr_expect_neq(load(&set, "bad.json", text), 0, "accepted: %s", text);
	cr_expect(strstr(err, want) != NULL, "message '%s' lacks '%s'", err, want);
	cr_expect(strncmp(err, "bad.json: ", 10) == 0, "names the file: %s", err);
	cr_expect_eq(set.nr, 0, "the set is unchanged on error");
	td_rep_set_exit(&set);
}

Test(merge, loader_rejects_bad_reports)
{
	bad("[]", "the top-level value is array");
	bad("{}", "schema: missing");
	bad("{\"schema\": \"tdprobe/9\"}", "schema: \"tdprobe/9\" is not supported");
	bad("{\"schema\": \"tdprobe/1\", \"threads\": []}", "process: missing");
	bad("{\"schema\": \"tdprobe/1\", \"process\": {\"pid\": 1}}", "threads: missing");
	bad("{\"schema\": \"tdprobe/1\", \"process\": {\"pid\": \"1\"}, \"threads\": []}",
	    "process.pid: expected an integer, found string");
	bad("{\"schema\": \"tdprobe/1\", \"process\": {\"pid\": 1}, \"threads\": [{\"tid\": 2, \"metrics\": {\"cpu_ns\": -5}}]}",
	    "threads[0].metrics.cpu_ns: -5 is not a non-negative integer");
	bad("{\"schema\": \"tdprobe/1\", \"process\": {\"pid\": 1}, \"threads\": [{\"tid\": 2, \"metrics\": {\"retiring\": 1.5}}]}",
	    "threads[0].metrics.retiring: fraction 1.5 is outside [0, 1]");
	bad("{\"schema\": \"tdprobe/1\", \"process\": {\"pid\": 1}, \"threads\": [{\"tid\": 2, \"metrics\": {\"retiring\": 0.9,"
	    " \"slot_counts\": {\"retiring\": 1, \"bad_speculation\": 1, \"frontend_bound\": 1, \"backend_bound\": 1}}}]}",
	    "threads[0].metrics.retiring: fraction 0.9 disagrees with slot_counts (1 of 4 = 0.25)");
	bad("{\"schema\": \"tdprobe/1\", \"process\": {\"pid\": 1}, \"threads\": [], \"regions\": [{\"calls\": 1}]}",
	    "regions[0]: no \"function\" name");
	bad("{\"schema\": \"tdprobe/1\", \"process\": {\"pid\": 1}, \"backend\": {\"topdown_level\": 3}, \"threads\": []}",
	    "backend.topdown_level: 3 is not 0, 1 or 2");
	bad("{\"schema\": \"tdprobe/1\", \"process\": {\"pid\": 1}, \"threads\": [{\"tid\": 1, \"series\": {\"points\": [[1, 2], [3]]}}]}",
	    "threads[0].series.points: point 1: expected an array of 2 numbers");
}

Test(merge, metrics_add_is_exact_and_order_free)
{
	struct td_rep_metrics a, b, s1, s2;
	td_rep_metrics_zero(&a);
	td_rep_metrics_zero(&b);
	a.parts = b.parts = 1;
	a.has_cpu = b.has_cpu = true;
	a.cpu_ns = UINT64_C(1) << 62;
	b.cpu_ns = 12345;
	a.count_mask = b.count_mask = 0xfff;
	for (int k = 0; k < TD_NODE_COUNT; k++) {
		a.count[k] = 1000 + k;
		b.count[k] = 7 * k;
	}
	td_rep_metrics_zero(&s1);
	td_rep_metrics_add(&s1, &a);
	td_rep_metrics_add(&s1, &b);
	td_rep_metrics_finish(&s1);
	td_rep_metrics_zero(&s2);
	td_rep_metrics_add(&s2, &b);
	td_rep_metrics_add(&s2, &a);
	td_rep_metrics_finish(&s2);
	cr_expect_eq(s1.cpu_ns, (UINT64_C(1) << 62) + 12345);
	cr_expect_eq(s1.cpu_ns, s2.cpu_ns);
	cr_expect_eq(s1.parts, 2);
	cr_expect_eq(td_rep_metrics_level(&s1), 2);
	uint64_t l1 = 4000 + 6 + 7 * 6;
	cr_expect_eq(td_rep_metrics_l1_sum(&s1), l1);
	for (int k = 0; k < TD_NODE_COUNT; k++) {
		cr_expect_eq(s1.count[k], s2.count[k]);
		cr_expect_eq(s1.frac[k], (double)(1000 + k + 7 * k) / (double)l1);
	}
	cr_expect_eq(td_rep_metrics_dominant(&s1, 1), TD_BACKEND_BOUND);
	cr_expect_eq(td_rep_metrics_dominant(&s1, 2), TD_CORE_BOUND);
}
