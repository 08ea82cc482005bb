/* The exit report: a JSON file (schema "tdprobe/1", documented in README)
 * written under a temporary name and renamed into place, plus a short text
 * summary on stderr. Runs once per process image, on whichever exit path
 * comes first. */
#include "td_collector.h"
#include "td_limits.h"
#include "td_log.h"
#include "td_metrics.h"
#include "td_region.h"
#include "td_report_file.h"
#include "td_series.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

/* Optional modules (own files). */
int td_threads_adopt_strays(struct td_collector *c) __attribute__((weak));
void td_regions_json_thread(const struct td_collector *c, const struct td_thread *t,
			    struct td_json *j) __attribute__((weak));
void td_regions_json_process(const struct td_collector *c, struct td_json *j) __attribute__((weak));
void td_regions_summary(const struct td_collector *c, const struct td_thread *t, int n,
			void (*line)(void *arg, const char *s), void *arg) __attribute__((weak));

static const char *td_report_state_name(int state)
{
	return state == TD_THREAD_EXITED ? "exited" : "running at exit";
}

static const char *td_report_ended_by(const struct td_thread *t)
{
	static const char *const how[] = { "return", "pthread_exit", "cancel", NULL, "exit" };
	if (t->how_ended < 0 || t->how_ended > 4)
		return NULL;
	return how[t->how_ended];
}

static void td_report_config_line(void *arg, const char *s)
{
	struct td_json *j = arg;
	const char *eq = strstr(s, " = ");
	if (!eq)
		return;
	char key[96];
	size_t n = (size_t)(eq - s) < sizeof(key) - 1 ? (size_t)(eq - s) : sizeof(key) - 1;
	memcpy(key, s, n);
	key[n] = '\0';
	td_json_kv_string(j, key, eq + 3);
}

/* Why threads fell back, counted by reason, and the fd budget in force. */
static void td_report_fallbacks(struct td_collector *c, struct td_json *j)
{
	const char *why[8];
	int count[8], n = 0;
	for (struct td_thread *t = atomic_load(&c->threads); t; t = t->next) {
		if (!t->ctr.fallback)
			continue;
		const char *r = t->fallback_reason ? t->fallback_reason : "counters could not be opened";
		int k = 0;
		while (k < n && why[k] != r)
			k++;
		if (k == n && n < 8) {
			why[n] = r;
			count[n++] = 0;
		}
		if (k < n)
			count[k]++;
	}
	td_json_key(j, "fallback_reasons");
	td_json_object_begin(j);
	for (int k = 0; k < n; k++)
		td_json_kv_int(j, why[k], count[k]);
	td_json_object_end(j);
	long lim, max_fds, reserve;
	td_limits_budget(&lim, &max_fds, &reserve);
	td_json_key(j, "fd_budget");
	td_json_object_begin(j);
	td_json_kv_int(j, "rlimit_nofile", lim);
	td_json_kv_int(j, "max_counter_fds", max_fds);
	td_json_kv_int(j, "reserve", reserve);
	td_json_object_end(j);
	/* What tdprobe keeps per thread for the report (records are never freed). */
	int nthreads = atomic_load(&c->nr_threads);
	size_t bytes = td_limits_record_bytes();
	td_json_key(j, "memory");
	td_json_object_begin(j);
	td_json_kv_uint(j, "thread_records_bytes", bytes);
	td_json_kv_uint(j, "per_thread_bytes", nthreads > 0 ? bytes / (size_t)nthreads : 0);
	td_json_object_end(j);
}

static void td_report_process(struct td_collector *c, struct td_json *j, uint64_t end_real_ns)
{
	struct utsname u;
	char host[256] = "";
	gethostname(host, sizeof(host) - 1);
	td_json_key(j, "process");
	td_json_object_begin(j);
	td_json_kv_int(j, "pid", c->pid);
	td_json_kv_int(j, "ppid", getppid());
	td_json_key(j, "command");
	td_json_array_begin(j);
	for (int i = 0; i < c->argc; i++)
		td_json_string(j, c->argv[i]);
	td_json_array_end(j);
	td_json_kv_uint(j, "start_unix_ns", c->start_realtime_ns);
	td_json_kv_uint(j, "end_unix_ns", end_real_ns);
	td_json_kv_uint(j, "wall_ns", td_clock_wall_ns() - c->start_wall_ns);
	td_json_kv_string(j, "ended_by", c->exit_how);
	td_json_kv_string(j, "host", host);
	if (uname(&u) == 0) {
		char kernel[200];
		snprintf(kernel, sizeof(kernel), "%s %s %s", u.sysname, u.release, u.machine);
		td_json_kv_string(j, "kernel", kernel);
	}
	td_json_object_end(j);

	const struct td_machine *m = &c->machine;
	td_json_key(j, "machine");
	td_json_object_begin(j);
	td_json_kv_string(j, "arch", m->arch);
	td_json_kv_string(j, "vendor", m->vendor);
	td_json_kv_int(j, "family", m->family);
	td_json_kv_int(j, "model", m->model);
	td_json_kv_string(j, "cpu_model", m->model_name);
	td_json_kv_int(j, "ncpus", m->ncpus);
	td_json_kv_bool(j, "hypervisor", m->hypervisor);
	td_json_kv_int(j, "perf_event_paranoid", m->paranoid);
	td_json_key(j, "pmus");
	td_json_array_begin(j);
	for (int i = 0; i < m->nr_pmus; i++)
		td_json_string(j, m->pmus[i].name);
	td_json_array_end(j);
	td_json_object_end(j);

	td_json_key(j, "config");
	td_json_object_begin(j);
	td_json_kv_string(j, "source", c->cfg.source);
	td_config_dump(&c->cfg, td_report_config_line, j);
	td_json_object_end(j);

	const struct td_backend *be = &c->backend;
	td_json_key(j, "backend");
	td_json_object_begin(j);
	td_json_kv_string(j, "name", be->ops->name);
	td_json_kv_string(j, "reason", be->reason);
	td_json_kv_int(j, "topdown_level", be->topdown_level);
	td_json_kv_string(j, "method", be->method);
	td_json_kv_bool(j, "emulated", be->emulated);
	td_json_kv_int(j, "fallback_threads", atomic_load(&c->nr_fallback_threads));
	td_report_fallbacks(c, j);
	td_json_object_end(j);
	if (c->report_hooks)
		c->report_hooks(j);
}

static void td_report_thread(const struct td_collector *c, const struct td_thread *t,
			     struct td_json *j)
{
	int state = atomic_load(&t->state);
	td_json_object_begin(j);
	td_json_kv_int(j, "tid", t->tid);
	td_json_kv_string(j, "name", t->name);
	td_json_kv_int(j, "parent_tid", t->parent_tid);
	td_json_kv_string(j, "state", td_report_state_name(state));
	td_json_kv_string(j, "ended_by", state == TD_THREAD_EXITED ? td_report_ended_by(t) : NULL);
	td_json_kv_uint(j, "start_ns", t->start_wall_ns - c->start_wall_ns);
	td_json_kv_uint(j, "end_ns", t->end_wall_ns ? t->end_wall_ns - c->start_wall_ns : 0);
	if (t->ctr.fallback)
		td_json_kv_string(j, "fallback", t->fallback_reason ? t->fallback_reason
						 : "software: counters could not be opened for this thread");
	td_json_key(j, "metrics");
	td_metrics_json(&c->backend, &t->total, j);
	if (t->regions && td_regions_json_thread)
		td_regions_json_thread(c, t, j);
	if (t->series && td_series_json)
		td_series_json(c, t, j);
	td_json_object_end(j);
}

/* Threads in creation order (the registry is a LIFO list). */
static int td_report_threads_in_order(struct td_collector *c, struct td_thread ***out)
{
	int n = 0;
	for (struct td_thread *t = atomic_load(&c->threads); t; t = t->next)
		n++;
	struct td_thread **v = calloc((size_t)n + 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	int i = n;
	for (struct td_thread *t = atomic_load(&c->threads); t && i > 0; t = t->next)
		v[--i] = t;
	*out = v;
	return n;
}

static void td_report_json(struct td_collector *c, FILE *f, struct td_thread **v, int n)
{
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	struct td_json j;
	td_json_init(&j, f, 1);
	td_json_object_begin(&j);
	td_json_kv_string(&j, "schema", "tdprobe/1");
	td_json_kv_string(&j, "tdprobe_version", TDPROBE_VERSION);
	td_report_process(c, &j, (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec);
	td_json_key(&j, "threads");
	td_json_array_begin(&j);
	for (int i = 0; i < n; i++)
		td_report_thread(c, v[i], &j);
	td_json_array_end(&j);
	/* Regions exist when functions were hooked or markers were used. */
	if (td_regions_json_process && atomic_load(&c->nr_regions) > 0)
		td_regions_json_process(c, &j);
	td_json_object_end(&j);
	fputc('\n', f);
}

static void td_report_summary_line(void *arg, const char *s)
{
	(void)arg;
	td_info("    %s", s);
}

static void td_report_summary(struct td_collector *c, struct td_thread **v, int n)
{
	const struct td_backend *be = &c->backend;
	td_info("report %s: %d thread%s, backend %s%s", c->report_path, n, n == 1 ? "" : "s",
		be->ops->name, be->emulated ? " (emulated PMU)" : "");
	if (be->topdown_level == 0)
		td_info("no TopDown with backend %s: %s", be->ops->name, be->reason);
	if (be->topdown_level > 0)
		td_info("%7s %-16s %10s %10s %6s %6s %6s %6s %7s", "tid", "name", "cpu ms", "wall ms",
			"ret%", "bad%", "fe%", "be%", "+/-pp");
	else
		td_info("%7s %-16s %10s %10s %-16s", "tid", "name", "cpu ms", "wall ms", "state");
	for (int i = 0; i < n; i++) {
		const struct td_thread *t = v[i];
		struct td_counts tc = t->total;
		if (be->topdown_level > 0) {
			char pct[4][16];
			for (int k = 0; k < 4; k++) {
				double fr = td_metrics_fraction(&tc, k);
				if (fr == fr)
					snprintf(pct[k], sizeof(pct[k]), "%.1f", 100.0 * fr);
				else
					snprintf(pct[k], sizeof(pct[k]), "-");
			}
			double e = td_metrics_error_pp(&tc);
			td_info("%7d %-16s %10.1f %10.1f %6s %6s %6s %6s %7.2f", (int)t->tid, t->name,
				tc.cpu_ns / 1e6, tc.wall_ns / 1e6, pct[0], pct[1], pct[2], pct[3],
				e == e ? e : 0.0);
		} else {
			td_info("%7d %-16s %10.1f %10.1f %-16s", (int)t->tid, t->name, tc.cpu_ns / 1e6,
				tc.wall_ns / 1e6, td_report_state_name(atomic_load(&t->state)));
		}
		if (t->regions && td_regions_summary && c->cfg.summary_top > 0)
			td_regions_summary(c, t, (int)c->cfg.summary_top, td_report_summary_line, NULL);
	}
}

int td_report_write(struct td_collector *c, const char *how)
{
	int expect = 0;
	if (!atomic_compare_exchange_strong(&c->report_state, &expect, 1))
		return -EALREADY;
	snprintf(c->exit_how, sizeof(c->exit_how), "%s", how);

	/* Threads we did not see start are found now (td_stray.c). */
	if (td_threads_adopt_strays)
		td_threads_adopt_strays(c);
	/* Threads still running keep running: take what they have so far. A
	 * thread in the middle of ending is given a moment to finish. */
	for (struct td_thread *t = atomic_load(&c->threads); t; t = t->next) {
		td_thread_settle_foreign(c, t);
		for (int spin = 0; spin < 1000 && atomic_load(&t->state) == TD_THREAD_ENDING; spin++)
			sched_yield();
	}

	struct td_thread **v = NULL;
	int n = td_report_threads_in_order(c, &v);
	if (n < 0)
		goto fail;
	char why[512];
	FILE *f = td_report_file_open(c, c->report_path, sizeof(c->report_path), why, sizeof(why));
	if (!f) {
		td_err("cannot write the report: %s", why);
		free(v);
		goto fail;
	}
	if (why[0])
		td_err("%s", why);
	td_report_json(c, f, v, n);
	int rc = td_report_file_commit(f, c->report_path, why, sizeof(why));
	if (rc != 0) {
		td_err("cannot write the report %s: %s", c->report_path, why);
		free(v);
		goto fail;
	}
	if (c->cfg.summary)
		td_report_summary(c, v, n);
	free(v);
	atomic_store(&c->report_state, 2);
	return 0;
fail:
	atomic_store(&c->report_state, 2);
	return -EIO;
}
