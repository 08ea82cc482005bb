/* td_series: per-thread time series through the real thread path
 * (td_thread_start/end) with the software and emulate backends: timer
 * points every interval of CPU time, decimation keeps the buffer bounded,
 * the last point is the thread's exact total, foreign signals are ignored,
 * a program's own handler for our signal is left alone, and the JSON parses. */
#include <criterion/criterion.h>

#include "td_collector.h"
#include "td_jsonr.h"
#include "td_series.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static struct td_collector *new_collector(enum td_backend_kind kind, unsigned long interval_ms)
{
	struct td_collector *c = calloc(1, sizeof(*c));
	cr_assert_eq(td_config_init(&c->cfg), 0);
	c->cfg.interval_ms = interval_ms;
	c->cfg.backend = kind;
	c->machine.core_pmu = -1;
	cr_assert_eq(td_backend_select(&c->backend, &c->cfg, &c->machine), 0);
	c->pid = getpid();
	c->start_wall_ns = td_clock_wall_ns();
	return c;
}

static volatile unsigned long sink;

static void burn_cpu_ms(unsigned ms)
{
	uint64_t end = td_clock_thread_cpu_ns() + (uint64_t)ms * 1000000u;
	unsigned long x = 1;
	while (td_clock_thread_cpu_ns() < end)
		for (int i = 0; i < 10000; i++)
			x = x * 6364136223846793005ul + 1;
	sink = x;
}

/* The series as JSON, parsed back. */
static struct td_jsonr_doc *series_doc(struct td_collector *c, struct td_thread *t)
{
	char *buf = NULL, err[256];
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	struct td_json j;
	td_json_init(&j, f, 0);
	td_json_object_begin(&j);
	td_series_json(c, t, &j);
	td_json_object_end(&j);
	fclose(f);
	struct td_jsonr_doc *d = td_jsonr_parse(buf, n, NULL, err, sizeof(err));
	cr_assert_not_null(d, "series JSON does not parse: %s\n%.300s", err, buf);
	free(buf);
	return d;
}

static uint64_t pt(const struct td_jsonr_value *points, size_t i, size_t col)
{
	uint64_t v;
	cr_assert_eq(td_jsonr_u64(&points->arr.items[i].arr.items[col], &v), 0);
	return v;
}

Test(series, timer_points_every_interval_of_cpu_time)
{
	struct td_collector *c = new_collector(TD_BACKEND_SOFTWARE, 5);
	struct td_thread *t = td_thread_start(c, 0);
	cr_assert_not_null(t);
	cr_assert_not_null(t->series, "interval_ms set: the thread has a series");
	burn_cpu_ms(200);
	td_thread_end(c, t, 0);

	struct td_jsonr_doc *d = series_doc(c, t);
	const struct td_jsonr_value *s = td_jsonr_get(td_jsonr_root(d), "series");
	cr_assert_not_null(s);
	cr_expect(td_jsonr_get(s, "timer")->b, "timer sampling available");
	const struct td_jsonr_value *cols = td_jsonr_get(s, "columns");
	cr_assert_eq(cols->arr.n, 2, "software backend: t_ns and cpu_ns only");
	const struct td_jsonr_value *p = td_jsonr_get(s, "points");
	size_t n = p->arr.n;
	/* 200 ms of CPU at one point per 5 ms: about 40 timer points + the end. */
	cr_expect_geq(n, 30, "%zu points", n);
	cr_expect_leq(n, 45, "%zu points", n);
	/* Kernel CPU-time timers expire on scheduler ticks (4 ms at HZ=250),
	 * so single intervals are a tick or two; their mean is the interval. */
	uint64_t max_d = 0;
	for (size_t i = 1; i < n; i++) {
		cr_expect_geq(pt(p, i, 0), pt(p, i - 1, 0), "time goes forward");
		cr_expect_geq(pt(p, i, 1), pt(p, i - 1, 1), "cumulative cpu never drops");
		uint64_t d_cpu = pt(p, i, 1) - pt(p, i - 1, 1);
		if (d_cpu > max_d)
			max_d = d_cpu;
	}
	double mean = (double)(pt(p, n - 2, 1) - pt(p, 0, 1)) / (double)(n - 2);
	cr_expect(mean >= 3.5e6 && mean <= 7e6, "mean interval %.0f ns of CPU, want about 5 ms", mean);
	cr_expect_lt(max_d, 15000000u, "longest interval %lu ns", (unsigned long)max_d);
	/* The last point is the thread's own total, exactly. */
	cr_expect_eq(pt(p, n - 1, 1), t->total.cpu_ns);
	td_jsonr_delete(d);
}

Test(series, topdown_columns_end_at_the_exact_totals)
{
	struct td_collector *c = new_collector(TD_BACKEND_EMULATE, 5);
	cr_assert_geq(c->backend.topdown_level, 1, "emulate gives TopDown: %s", c->backend.reason);
	struct td_thread *t = td_thread_start(c, 0);
	burn_cpu_ms(60);
	td_thread_end(c, t, 0);

	struct td_jsonr_doc *d = series_doc(c, t);
	const struct td_jsonr_value *s = td_jsonr_get(td_jsonr_root(d), "series");
	const struct td_jsonr_value *cols = td_jsonr_get(s, "columns");
	int nodes = c->backend.topdown_level >= 2 ? TD_NODE_COUNT : TD_L1_NODES;
	cr_assert_eq(cols->arr.n, (size_t)(3 + nodes));
	cr_expect_str_eq(cols->arr.items[2].str.s, "slots");
	cr_expect_str_eq(cols->arr.items[3].str.s, "retiring");
	const struct td_jsonr_value *p = td_jsonr_get(s, "points");
	size_t n = p->arr.n;
	cr_assert_geq(n, 5);
	/* Within one counter epoch a node's count is slots x an 8-bit metric
	 * fraction, so a later point can sit a rounding step below an earlier
	 * one: allow 2/255 of the slots, never more. Time and slots are exact. */
	for (size_t i = 1; i < n; i++) {
		cr_expect_geq(pt(p, i, 1), pt(p, i - 1, 1), "cpu cumulative");
		cr_expect_geq(pt(p, i, 2), pt(p, i - 1, 2), "slots cumulative");
		uint64_t slack = 2 * pt(p, i, 2) / 255 + 2;
		for (int k = 0; k < nodes; k++)
			cr_expect_geq(pt(p, i, 3 + k) + slack, pt(p, i - 1, 3 + k),
				      "node %d at point %zu: %lu after %lu", k, i, (unsigned long)pt(p, i, 3 + k),
				      (unsigned long)pt(p, i - 1, 3 + k));
	}
	cr_expect_eq(pt(p, n - 1, 1), t->total.cpu_ns);
	cr_expect_eq(pt(p, n - 1, 2), t->total.slots);
	for (int k = 0; k < nodes; k++)
		cr_expect_eq(pt(p, n - 1, 3 + k), t->total.node[k], "node %d: last point = total", k);
	cr_expect_gt(t->total.node[TD_RETIRING], 0);
	td_jsonr_delete(d);
}

Test(series, decimation_keeps_memory_bounded)
{
	/* Region-boundary points at 1/8 of a 1 ms interval: enough calls over
	 * 300 ms to fill the 512-point buffer several times. */
	struct td_collector *c = new_collector(TD_BACKEND_SOFTWARE, 1);
	struct td_thread *t = td_thread_start(c, 0);
	uint64_t end = td_clock_wall_ns() + 300000000u;
	unsigned calls = 0;
	while (td_clock_wall_ns() < end) {
		t->guard = 1; /* as the region code calls it */
		td_series_sample(c, t);
		t->guard = 0;
		calls++;
	}
	td_thread_end(c, t, 0);
	struct td_jsonr_doc *d = series_doc(c, t);
	const struct td_jsonr_value *s = td_jsonr_get(td_jsonr_root(d), "series");
	const struct td_jsonr_value *p = td_jsonr_get(s, "points");
	uint64_t dropped, cap;
	cr_assert_eq(td_jsonr_u64(td_jsonr_get(s, "dropped"), &dropped), 0);
	cr_assert_eq(td_jsonr_u64(td_jsonr_get(s, "capacity"), &cap), 0);
	cr_expect_leq(p->arr.n, cap, "%zu points in a buffer of %lu", p->arr.n, (unsigned long)cap);
	cr_expect_gt(dropped, 0, "%u boundary calls: some points dropped", calls);
	cr_expect_geq(p->arr.n, cap / 4, "decimation keeps a useful number of points: %zu", p->arr.n);
	/* The whole run stays covered: first point near the start, last at the end. */
	uint64_t first = pt(p, 0, 0), last = pt(p, p->arr.n - 1, 0);
	cr_expect_lt(first, 20000000u, "first point at %lu ns", (unsigned long)first);
	cr_expect_gt(last, 290000000u, "last point at %lu ns", (unsigned long)last);
	for (size_t i = 1; i < p->arr.n; i++)
		cr_expect_gt(pt(p, i, 0), pt(p, i - 1, 0), "points strictly ordered after decimation");
	td_jsonr_delete(d);
}

Test(series, foreign_signal_is_ignored)
{
	struct td_collector *c = new_collector(TD_BACKEND_SOFTWARE, 5);
	struct td_thread *t = td_thread_start(c, 0);
	/* Our signal sent by someone else (SI_QUEUE / SI_USER): no effect, no death. */
	union sigval v = { .sival_int = 1 };
	cr_assert_eq(sigqueue(getpid(), SIGRTMAX - 2, v), 0);
	cr_assert_eq(kill(getpid(), SIGRTMAX - 2), 0);
	burn_cpu_ms(20);
	td_thread_end(c, t, 0);
	cr_expect_eq(t->total.cpu_ns > 0, 1);
}

static volatile sig_atomic_t program_handler_calls;
static void program_handler(int sig)
{
	(void)sig;
	program_handler_calls++;
}

Test(series, program_handler_for_our_signal_is_left_alone)
{
	signal(SIGRTMAX - 2, program_handler);
	struct td_collector *c = new_collector(TD_BACKEND_SOFTWARE, 2);
	struct td_thread *t = td_thread_start(c, 0);
	burn_cpu_ms(30);
	td_thread_end(c, t, 0);
	cr_expect_eq(program_handler_calls, 0, "no timer signal reached the program's handler");
	struct sigaction now;
	sigaction(SIGRTMAX - 2, NULL, &now);
	cr_expect_eq((void *)now.sa_handler, (void *)program_handler, "handler not replaced");
	struct td_jsonr_doc *d = series_doc(c, t);
	const struct td_jsonr_value *s = td_jsonr_get(td_jsonr_root(d), "series");
	cr_expect_not(td_jsonr_get(s, "timer")->b);
	cr_expect_eq(td_jsonr_get(s, "points")->arr.n, 1, "only the end point without the timer");
	td_jsonr_delete(d);
}

Test(series, off_without_interval)
{
	struct td_collector *c = new_collector(TD_BACKEND_SOFTWARE, 0);
	struct td_thread *t = td_thread_start(c, 0);
	cr_expect_null(t->series);
	td_thread_end(c, t, 0);
}
