/* td_render: text tables fit 120 columns, mark the dominant node, name the
 * tma_* columns; CSV has fixed columns; without TopDown the reason shows;
 * the HTML page is self-contained. */
#include <criterion/criterion.h>

#include "td_render.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char err[512];

/* A report with nthreads threads (long names, large numbers) at level. */
static void load_report(struct td_rep_set *set, int nthreads, int level, int pid)
{
	size_t cap = 1 << 20, len = 0;
	char *s = malloc(cap);
	len += (size_t)snprintf(s + len, cap - len,
				"{\"schema\": \"tdprobe/1\", \"process\": {\"pid\": %d, \"ppid\": 1, \"command\": [\"srv\"],"
				" \"host\": \"h\", \"start_unix_ns\": %d}, \"backend\": {\"name\": \"%s\", \"reason\": \"%s\","
				" \"topdown_level\": %d}, \"threads\": [",
				pid, pid, level ? "rdpmc" : "software",
				level ? "perf-metrics available" : "no hardware PMU: running under a hypervisor without vPMU",
				level);
	for (int t = 0; t < nthreads; t++) {
		/* Thread t is dominated by node t % 4 (level 1) and, at level 2,
		 * by child 4 + 2 * (t % 4). */
		uint64_t c[12] = { 0 };
		for (int k = 0; k < 4; k++)
			c[k] = k == t % 4 ? 7000000000000ull : 1000000000000ull;
		for (int k = 0; k < 4; k++) {
			c[4 + 2 * k] = c[k] * 3 / 4;
			c[5 + 2 * k] = c[k] - c[4 + 2 * k];
		}
		uint64_t sum = c[0] + c[1] + c[2] + c[3];
		len += (size_t)snprintf(s + len, cap - len,
					"%s{\"tid\": %d, \"name\": \"a-very-long-thread-name-%d\", \"metrics\": {\"cpu_ns\": %" PRIu64
					", \"wall_ns\": %" PRIu64,
					t ? "," : "", 4000000 + t, t, (uint64_t)987654321000000ull + (uint64_t)t,
					(uint64_t)9876543210000000ull);
		if (level) {
			len += (size_t)snprintf(s + len, cap - len, ", \"slots\": %" PRIu64 ", \"slot_counts\": {", sum);
			int n = level == 2 ? 12 : 4;
			for (int k = 0; k < n; k++)
				len += (size_t)snprintf(s + len, cap - len, "%s\"%s\": %" PRIu64, k ? ", " : "",
							td_rep_node_json[k], c[k]);
			len += (size_t)snprintf(s + len, cap - len, "}");
		}
		len += (size_t)snprintf(s + len, cap - len,
					"}, \"regions\": [{\"function\": \"handle_request_with_a_long_name\", \"calls\": 12345678901,"
					" \"callsite\": [{\"module\": \"/usr/lib/libsrv.so\", \"symbol\": \"dispatch_loop\", \"offset\": 4660}],"
					" \"metrics\": {\"cpu_ns\": 100}}]}");
	}
	len += (size_t)snprintf(s + len, cap - len, "]}");
	struct td_jsonr_doc *d = td_jsonr_parse(s, len, NULL, err, sizeof(err));
	cr_assert_not_null(d, "%s", err);
	cr_assert_eq(td_rep_load_doc(set, "r.json", d, err, sizeof(err)), 0, "%s", err);
	free(s);
}

static char *render(const struct td_view *v, int (*fn)(FILE *, const struct td_view *))
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	cr_assert_eq(fn(f, v), 0);
	fclose(f);
	return buf;
}

/* Every line at most 120 characters. */
static void check_width(const char *text)
{
	int line = 1;
	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		cr_expect_leq(len, TD_RENDER_WIDTH, "line %d is %zu columns: %.*s", line, len, (int)len, p);
		if (!nl)
			break;
		p = nl + 1;
		line++;
	}
}

/* The line of the text starting (after spaces) with prefix. */
static const char *line_with(const char *text, const char *needle, char *out, size_t n)
{
	const char *p = strstr(text, needle);
	if (!p)
		return NULL;
	const char *b = p;
	while (b > text && b[-1] != '\n')
		b--;
	const char *e = strchr(p, '\n');
	size_t len = e ? (size_t)(e - b) : strlen(b);
	snprintf(out, n, "%.*s", (int)len, b);
	return out;
}

Test(render, text_fits_120_columns_at_every_level)
{
	for (int level = 0; level <= 2; level++) {
		for (int procs = 1; procs <= 2; procs++) {
			struct td_rep_set set = { 0 };
			for (int p = 0; p < procs; p++)
				load_report(&set, 6, level, 4000000 + p);
			for (int by = TD_BY_THREAD; by <= TD_BY_PROCESS; by++) {
				struct td_merge_opts o = { .by = (enum td_merge_by)by };
				struct td_view v;
				cr_assert_eq(td_merge_view(&set, &o, &v, err, sizeof(err)), 0, "%s", err);
				char *t = render(&v, td_render_text);
				check_width(t);
				free(t);
				td_merge_view_exit(&v);
			}
			td_rep_set_exit(&set);
		}
	}
}

Test(render, tma_columns_and_dominant_mark)
{
	struct td_rep_set set = { 0 };
	load_report(&set, 4, 2, 77);
	struct td_merge_opts o = { .by = TD_BY_THREAD, .sort = "tid" };
	struct td_view v;
	cr_assert_eq(td_merge_view(&set, &o, &v, err, sizeof(err)), 0, "%s", err);
	char *t = render(&v, td_render_text);
	for (int k = 0; k < TD_NODE_COUNT; k++)
		cr_expect(strstr(t, td_rep_node_tma[k]), "column %s missing", td_rep_node_tma[k]);
	/* Level-1 table: thread 4000001 is dominated by bad speculation (70%). */
	char hdr[256], row[256];
	cr_assert_not_null(line_with(t, "tid thread", hdr, sizeof(hdr)));
	cr_assert_not_null(line_with(t, "4000001 a-very", row, sizeof(row)));
	const char *col = strstr(hdr, "tma_bad_speculation");
	cr_assert_not_null(col);
	size_t end = (size_t)(col - hdr) + strlen("tma_bad_speculation");
	/* Right-aligned: the cell ends where the header ends, with the mark. */
	cr_expect_eq(row[end - 1], '<', "row: '%s'", row);
	cr_expect(strncmp(&row[end - 8], " 70.0% <", 8) == 0, "row: '%s'", row);
	/* Exactly one mark per level-1 row. */
	int marks = 0;
	for (const char *p = row; *p; p++)
		marks += *p == '<';
	cr_expect_eq(marks, 1, "row: '%s'", row);
	/* Level 2: child machine_clears (3/4 of 70%) marked in the first L2 table. */
	const char *l2 = strstr(t, "level 2 (retiring and bad speculation)");
	cr_assert_not_null(l2);
	cr_assert_not_null(line_with(l2, "4000001 a-very", row, sizeof(row)));
	cr_expect(strstr(row, "52.5% <"), "row: '%s'", row);
	free(t);
	td_merge_view_exit(&v);
	td_rep_set_exit(&set);
}

Test(render, without_topdown_says_why)
{
	struct td_rep_set set = { 0 };
	load_report(&set, 2, 0, 5);
	struct td_merge_opts o = { .by = TD_BY_THREAD };
	struct td_view v;
	cr_assert_eq(td_merge_view(&set, &o, &v, err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(v.level, 0);
	char *t = render(&v, td_render_text);
	cr_expect(strstr(t, "no TopDown figures: backend software: no hardware PMU: running under a hypervisor"),
		  "%s", t);
	cr_expect_null(strstr(t, "tma_"), "no TopDown columns without TopDown");
	cr_expect(strstr(t, "cpu ms"));
	free(t);
	char *h = render(&v, td_render_html);
	cr_expect(strstr(h, "No TopDown breakdown"));
	cr_expect(strstr(h, "no hardware PMU: running under a hypervisor without vPMU"));
	free(h);
	td_merge_view_exit(&v);
	td_rep_set_exit(&set);
}

static int count_fields(const char *line, size_t len)
{
	int n = 1;
	bool q = false;
	for (size_t i = 0; i < len; i++) {
		if (line[i] == '"')
			q = !q;
		else if (line[i] == ',' && !q)
			n++;
	}
	return n;
}

Test(render, csv_fixed_columns)
{
	struct td_rep_set set = { 0 };
	load_report(&set, 3, 1, 9);
	struct td_merge_opts o = { .by = TD_BY_THREAD };
	struct td_view v;
	cr_assert_eq(td_merge_view(&set, &o, &v, err, sizeof(err)), 0, "%s", err);
	char *c = render(&v, td_render_csv);
	const char *want_hdr =
		"kind,table,pid,tid,name,callsite,calls,threads,cpu_ns,wall_ns,slots,slots_retiring,"
		"slots_bad_speculation,slots_frontend_bound,slots_backend_bound,slots_heavy_operations,"
		"slots_light_operations,slots_branch_mispredicts,slots_machine_clears,slots_fetch_latency,"
		"slots_fetch_bandwidth,slots_memory_bound,slots_core_bound,tma_retiring,tma_bad_speculation,"
		"tma_frontend_bound,tma_backend_bound,tma_heavy_operations,tma_light_operations,"
		"tma_branch_mispredicts,tma_machine_clears,tma_fetch_latency,tma_fetch_bandwidth,"
		"tma_memory_bound,tma_core_bound,dominant,error_pp,ipc,events\n";
	cr_expect(strncmp(c, want_hdr, strlen(want_hdr)) == 0, "header:\n%.400s", c);
	int cols = count_fields(want_hdr, strlen(want_hdr) - 1);
	cr_expect_eq(cols, 39);
	int lines = 0, threads = 0, totals = 0, regions = 0;
	for (const char *p = c; *p;) {
		const char *nl = strchr(p, '\n');
		cr_assert_not_null(nl);
		cr_expect_eq(count_fields(p, (size_t)(nl - p)), cols, "line %d: %.*s", lines, (int)(nl - p), p);
		threads += strncmp(p, "thread,", 7) == 0;
		totals += strncmp(p, "total,", 6) == 0;
		regions += strncmp(p, "region,", 7) == 0;
		lines++;
		p = nl + 1;
	}
	cr_expect_eq(lines, 1 + 3 + 1 + 1);
	cr_expect_eq(threads, 3);
	cr_expect_eq(totals, 1);
	cr_expect_eq(regions, 1);
	/* Exact integers, and the dominant node named: thread 0 is retiring-bound. */
	cr_expect(strstr(c, "thread,threads,9,4000000,a-very-long-thread-name-0,,,1,987654321000000,9876543210000000,"
			    "10000000000000,7000000000000,1000000000000,1000000000000,1000000000000,"),
		  "%s", c);
	cr_expect(strstr(c, "0.700000,0.100000,0.100000,0.100000,,,,,,,,,tma_retiring,"), "%s", c);
	/* Callsites with commas would be quoted; the region total of calls is exact. */
	cr_expect(strstr(c, "region,regions,9,,handle_request_with_a_long_name,,37037036703,"), "%s", c);
	free(c);
	td_merge_view_exit(&v);
	td_rep_set_exit(&set);
}

Test(render, html_is_self_contained)
{
	struct td_rep_set set = { 0 };
	load_report(&set, 5, 2, 3);
	struct td_merge_opts o = { .by = TD_BY_THREAD };
	struct td_view v;
	cr_assert_eq(td_merge_view(&set, &o, &v, err, sizeof(err)), 0, "%s", err);
	char *h = render(&v, td_render_html);
	cr_expect(strncmp(h, "<!DOCTYPE html>", 15) == 0);
	cr_expect(strstr(h, "</html>"));
	cr_expect_null(strstr(h, "<script"), "no script");
	cr_expect_null(strstr(h, " src="), "nothing loaded");
	cr_expect_null(strstr(h, "href="), "no links");
	cr_expect_null(strstr(h, "url("), "no CSS fetches");
	cr_expect(strstr(h, "default-src 'none'"), "CSP forbids network loads");
	/* Bars: one segment per L1 node per row, titles with the numbers. */
	cr_expect(strstr(h, "title=\"tma_retiring 70.0% (7000000000000 slots)\""), "%.2000s", h);
	cr_expect(strstr(h, "<details"), "L1 rows expand to L2");
	cr_expect(strstr(h, "tma_machine_clears"));
	free(h);
	td_merge_view_exit(&v);
	td_rep_set_exit(&set);
}
