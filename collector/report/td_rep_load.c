/* td_rep_load: checks a parsed "tdprobe/1" document and copies it into
 * td_rep structs. Strings stay in the document's arena. Unknown members
 * are ignored (newer writers may add some); known members of the wrong
 * type are errors naming the file and the member path. */
#include "td_rep.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct td_rep_loader {
	struct td_rep_proc *p;
	char *err;
	size_t errlen;
	bool failed;
};

static bool td_rep_fail(struct td_rep_loader *ld, const char *where, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static bool td_rep_fail(struct td_rep_loader *ld, const char *where, const char *fmt, ...)
{
	if (ld->failed)
		return false;
	ld->failed = true;
	int n = snprintf(ld->err, ld->errlen, "%s: %s%s", ld->p->file, where, *where ? ": " : "");
	if (n >= 0 && (size_t)n < ld->errlen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(ld->err + n, ld->errlen - n, fmt, ap);
		va_end(ap);
	}
	return false;
}

static void *td_rep_alloc(struct td_rep_loader *ld, size_t nmemb, size_t size)
{
	struct td_rep_proc *p = ld->p;

	if (p->nr_allocs == p->cap_allocs) {
		size_t cap = p->cap_allocs ? p->cap_allocs * 2 : 16;
		void **na = realloc(p->allocs, cap * sizeof(*na));
		if (!na)
			goto oom;
		p->allocs = na;
		p->cap_allocs = cap;
	}
	void *r = calloc(nmemb ? nmemb : 1, size);
	if (!r)
		goto oom;
	p->allocs[p->nr_allocs++] = r;
	return r;
oom:
	td_rep_fail(ld, "", "out of memory");
	return NULL;
}

static const char *td_rep_found(const struct td_jsonr_value *v)
{
	return td_jsonr_type_name(v->type);
}

static bool td_rep_is_null(const struct td_jsonr_value *v)
{
	return !v || v->type == TD_JSONR_NULL;
}

/* Optional unsigned integer member; absent or null leaves *has false. */
static bool td_rep_opt_u64(struct td_rep_loader *ld, const struct td_jsonr_value *obj,
			   const char *where, const char *key, bool *has, uint64_t *out)
{
	const struct td_jsonr_value *v = td_jsonr_get(obj, key);

	*has = false;
	if (td_rep_is_null(v))
		return true;
	if (td_jsonr_u64(v, out) < 0) {
		char w[256];
		snprintf(w, sizeof(w), "%s%s%s", where, *where ? "." : "", key);
		if (v->type == TD_JSONR_NUMBER)
			return td_rep_fail(ld, w, "%g is not a non-negative integer", v->num.d);
		return td_rep_fail(ld, w, "expected a non-negative integer, found %s", td_rep_found(v));
	}
	*has = true;
	return true;
}

static bool td_rep_opt_i64(struct td_rep_loader *ld, const struct td_jsonr_value *obj,
			   const char *where, const char *key, bool required, int64_t *out)
{
	const struct td_jsonr_value *v = td_jsonr_get(obj, key);
	char w[256];

	snprintf(w, sizeof(w), "%s%s%s", where, *where ? "." : "", key);
	if (td_rep_is_null(v)) {
		if (required)
			return td_rep_fail(ld, w, "missing (an integer is required)");
		return true;
	}
	if (td_jsonr_i64(v, out) < 0)
		return td_rep_fail(ld, w, "expected an integer, found %s",
				   v->type == TD_JSONR_NUMBER ? "a fractional number" : td_rep_found(v));
	return true;
}

static bool td_rep_opt_num(struct td_rep_loader *ld, const struct td_jsonr_value *obj,
			   const char *where, const char *key, bool *has, double *out)
{
	const struct td_jsonr_value *v = td_jsonr_get(obj, key);

	*has = false;
	if (td_rep_is_null(v))
		return true;
	if (td_jsonr_num(v, out) < 0) {
		char w[256];
		snprintf(w, sizeof(w), "%s%s%s", where, *where ? "." : "", key);
		return td_rep_fail(ld, w, "expected a number, found %s", td_rep_found(v));
	}
	*has = true;
	return true;
}

static bool td_rep_opt_str(struct td_rep_loader *ld, const struct td_jsonr_value *obj,
			   const char *where, const char *key, const char **out)
{
	const struct td_jsonr_value *v = td_jsonr_get(obj, key);

	*out = NULL;
	if (td_rep_is_null(v))
		return true;
	if (v->type != TD_JSONR_STRING) {
		char w[256];
		snprintf(w, sizeof(w), "%s%s%s", where, *where ? "." : "", key);
		return td_rep_fail(ld, w, "expected a string, found %s", td_rep_found(v));
	}
	*out = v->str.s;
	return true;
}

static bool td_rep_load_metrics(struct td_rep_loader *ld, const struct td_jsonr_value *v,
				const char *where, struct td_rep_metrics *m)
{
	char w[256];

	td_rep_metrics_zero(m);
	m->parts = 1;
	if (td_rep_is_null(v))
		return true;
	if (v->type != TD_JSONR_OBJECT)
		return td_rep_fail(ld, where, "expected an object, found %s", td_rep_found(v));
	if (!td_rep_opt_u64(ld, v, where, "cpu_ns", &m->has_cpu, &m->cpu_ns) ||
	    !td_rep_opt_u64(ld, v, where, "wall_ns", &m->has_wall, &m->wall_ns) ||
	    !td_rep_opt_u64(ld, v, where, "slots", &m->has_slots, &m->slots) ||
	    !td_rep_opt_u64(ld, v, where, "error_slots", &m->has_err_slots, &m->err_slots) ||
	    !td_rep_opt_num(ld, v, where, "error_pp", &m->has_err, &m->error_pp) ||
	    !td_rep_opt_num(ld, v, where, "ipc", &m->has_ipc, &m->ipc))
		return false;
	for (int n = 0; n < TD_NODE_COUNT; n++) {
		bool has;
		double f;

		if (!td_rep_opt_num(ld, v, where, td_rep_node_json[n], &has, &f))
			return false;
		if (!has)
			continue;
		/* Rounded writers may land a hair outside [0, 1]. */
		if (!(f >= -1e-9 && f <= 1 + 1e-9)) {
			snprintf(w, sizeof(w), "%s.%s", where, td_rep_node_json[n]);
			return td_rep_fail(ld, w, "fraction %g is outside [0, 1]", f);
		}
		m->frac[n] = f;
		m->frac_mask |= 1u << n;
	}
	const struct td_jsonr_value *sc = td_jsonr_get(v, "slot_counts");
	if (!td_rep_is_null(sc)) {
		snprintf(w, sizeof(w), "%s.slot_counts", where);
		if (sc->type != TD_JSONR_OBJECT)
			return td_rep_fail(ld, w, "expected an object, found %s", td_rep_found(sc));
		for (int n = 0; n < TD_NODE_COUNT; n++) {
			bool has;
			if (!td_rep_opt_u64(ld, sc, w, td_rep_node_json[n], &has, &m->count[n]))
				return false;
			if (has)
				m->count_mask |= 1u << n;
		}
	}
	/* The fractions must be what the counts say: a report whose two
	 * views disagree would merge to figures nobody measured. */
	uint64_t sum = td_rep_metrics_l1_sum(m);
	if (sum) {
		for (int n = 0; n < TD_NODE_COUNT; n++) {
			if (!((m->frac_mask & m->count_mask) >> n & 1))
				continue;
			double want = (double)m->count[n] / (double)sum;
			if (fabs(want - m->frac[n]) > 1e-4) {
				snprintf(w, sizeof(w), "%s.%s", where, td_rep_node_json[n]);
				return td_rep_fail(ld, w,
						   "fraction %g disagrees with slot_counts (%llu of %llu = %g)",
						   m->frac[n], (unsigned long long)m->count[n],
						   (unsigned long long)sum, want);
			}
		}
	}
	const struct td_jsonr_value *ev = td_jsonr_get(v, "events");
	if (!td_rep_is_null(ev)) {
		snprintf(w, sizeof(w), "%s.events", where);
		if (ev->type != TD_JSONR_OBJECT)
			return td_rep_fail(ld, w, "expected an object, found %s", td_rep_found(ev));
		for (size_t i = 0; i < ev->obj.n; i++) {
			const struct td_jsonr_member *mb = &ev->obj.members[i];
			uint64_t c;

			if (mb->value.type == TD_JSONR_NULL)
				continue; /* not counted */
			if (m->nr_events == TD_REP_MAX_EVENTS)
				return td_rep_fail(ld, w, "more than %d events", TD_REP_MAX_EVENTS);
			if (td_jsonr_u64(&mb->value, &c) < 0)
				return td_rep_fail(ld, w, "%s: expected a non-negative integer, found %s",
						   mb->key, td_rep_found(&mb->value));
			m->event_name[m->nr_events] = mb->key;
			m->event[m->nr_events++] = c;
		}
	}
	return true;
}

static bool td_rep_load_u64_or_hex(struct td_rep_loader *ld, const struct td_jsonr_value *obj,
				   const char *where, const char *key, uint64_t *out)
{
	const struct td_jsonr_value *v = td_jsonr_get(obj, key);

	*out = 0;
	if (td_rep_is_null(v))
		return true;
	if (v->type == TD_JSONR_STRING) {
		char *end;
		errno = 0;
		*out = strtoull(v->str.s, &end, 0);
		if (!errno && end != v->str.s && !*end)
			return true;
	} else if (td_jsonr_u64(v, out) == 0) {
		return true;
	}
	char w[256];
	snprintf(w, sizeof(w), "%s.%s", where, key);
	return td_rep_fail(ld, w, "expected an integer or a hex string");
}

static bool td_rep_load_regions(struct td_rep_loader *ld, const struct td_jsonr_value *arr,
				const char *where, struct td_rep_region **out, size_t *nr)
{
	char w[256], fw[300];

	*out = NULL;
	*nr = 0;
	if (td_rep_is_null(arr))
		return true;
	if (arr->type != TD_JSONR_ARRAY)
		return td_rep_fail(ld, where, "expected an array, found %s", td_rep_found(arr));
	struct td_rep_region *r = td_rep_alloc(ld, arr->arr.n, sizeof(*r));
	if (!r)
		return false;
	for (size_t i = 0; i < arr->arr.n; i++) {
		const struct td_jsonr_value *v = &arr->arr.items[i];

		snprintf(w, sizeof(w), "%s[%zu]", where, i);
		if (v->type != TD_JSONR_OBJECT)
			return td_rep_fail(ld, w, "expected an object, found %s", td_rep_found(v));
		if (!td_rep_opt_str(ld, v, w, "function", &r[i].function))
			return false;
		if (!r[i].function)
			return td_rep_fail(ld, w, "no \"function\" name");
		if (!td_rep_opt_u64(ld, v, w, "calls", &r[i].has_calls, &r[i].calls))
			return false;
		const struct td_jsonr_value *oth = td_jsonr_get(v, "other");
		r[i].other = oth && oth->type == TD_JSONR_BOOL && oth->b;
		snprintf(fw, sizeof(fw), "%s.metrics", w);
		if (!td_rep_load_metrics(ld, td_jsonr_get(v, "metrics"), fw, &r[i].m))
			return false;
		const struct td_jsonr_value *ex = td_jsonr_get(v, "exclusive");
		if (!td_rep_is_null(ex)) {
			snprintf(fw, sizeof(fw), "%s.exclusive", w);
			if (!td_rep_load_metrics(ld, ex, fw, &r[i].excl))
				return false;
			r[i].has_excl = true;
		}
		const struct td_jsonr_value *cs = td_jsonr_get(v, "callsite");
		if (td_rep_is_null(cs))
			continue;
		snprintf(fw, sizeof(fw), "%s.callsite", w);
		if (cs->type != TD_JSONR_ARRAY)
			return td_rep_fail(ld, fw, "expected an array, found %s", td_rep_found(cs));
		r[i].callsite = td_rep_alloc(ld, cs->arr.n, sizeof(*r[i].callsite));
		if (!r[i].callsite)
			return false;
		r[i].nr_frames = cs->arr.n;
		for (size_t k = 0; k < cs->arr.n; k++) {
			const struct td_jsonr_value *f = &cs->arr.items[k];
			struct td_rep_frame *fr = &r[i].callsite[k];
			char kw[400];

			snprintf(kw, sizeof(kw), "%s[%zu]", fw, k);
			if (f->type != TD_JSONR_OBJECT)
				return td_rep_fail(ld, kw, "expected an object, found %s", td_rep_found(f));
			if (!td_rep_opt_str(ld, f, kw, "module", &fr->module) ||
			    !td_rep_opt_str(ld, f, kw, "symbol", &fr->symbol) ||
			    !td_rep_load_u64_or_hex(ld, f, kw, "offset", &fr->offset) ||
			    !td_rep_load_u64_or_hex(ld, f, kw, "address", &fr->address))
				return false;
		}
	}
	*out = r;
	*nr = arr->arr.n;
	return true;
}

/* Column names of series points when the writer gave none. */
static const char *const td_rep_series_default_cols[] = {
	"t_ns", "cpu_ns", "slots", "retiring", "bad_speculation", "frontend_bound",
	"backend_bound", "heavy_operations", "light_operations", "branch_mispredicts",
	"machine_clears", "fetch_latency", "fetch_bandwidth", "memory_bound", "core_bound",
};
#define TD_REP_SERIES_MAX_COLS (sizeof(td_rep_series_default_cols) / sizeof(char *))

static bool td_rep_load_series(struct td_rep_loader *ld, const struct td_jsonr_value *v,
			       const char *where, struct td_rep_series **out)
{
	char w[256];
	bool has;

	*out = NULL;
	if (td_rep_is_null(v))
		return true;
	if (v->type != TD_JSONR_OBJECT)
		return td_rep_fail(ld, where, "expected an object, found %s", td_rep_found(v));
	struct td_rep_series *s = td_rep_alloc(ld, 1, sizeof(*s));
	if (!s)
		return false;
	if (!td_rep_opt_num(ld, v, where, "interval_ms", &has, &s->interval_ms) ||
	    !td_rep_opt_u64(ld, v, where, "dropped", &has, &s->dropped))
		return false;
	const struct td_jsonr_value *cols = td_jsonr_get(v, "columns");
	const struct td_jsonr_value *pts = td_jsonr_get(v, "points");
	snprintf(w, sizeof(w), "%s.points", where);
	if (td_rep_is_null(pts))
		return td_rep_fail(ld, w, "missing");
	if (pts->type != TD_JSONR_ARRAY)
		return td_rep_fail(ld, w, "expected an array, found %s", td_rep_found(pts));
	if (!td_rep_is_null(cols)) {
		char cw[280];
		snprintf(cw, sizeof(cw), "%s.columns", where);
		if (cols->type != TD_JSONR_ARRAY || cols->arr.n < 2)
			return td_rep_fail(ld, cw, "expected an array of at least 2 column names");
		s->cols = td_rep_alloc(ld, cols->arr.n, sizeof(char *));
		if (!s->cols)
			return false;
		for (size_t i = 0; i < cols->arr.n; i++) {
			s->cols[i] = td_jsonr_str(&cols->arr.items[i]);
			if (!s->cols[i])
				return td_rep_fail(ld, cw, "column %zu is not a string", i);
		}
		s->nr_cols = cols->arr.n;
	} else {
		s->nr_cols = pts->arr.n && pts->arr.items[0].type == TD_JSONR_ARRAY
				     ? pts->arr.items[0].arr.n
				     : 2;
		if (s->nr_cols < 2 || s->nr_cols > TD_REP_SERIES_MAX_COLS)
			return td_rep_fail(ld, w, "points of %zu numbers (2 to %zu expected)",
					   s->nr_cols, TD_REP_SERIES_MAX_COLS);
		s->cols = (const char **)td_rep_series_default_cols;
	}
	s->v = td_rep_alloc(ld, pts->arr.n * s->nr_cols, sizeof(double));
	if (!s->v)
		return false;
	for (size_t i = 0; i < pts->arr.n; i++) {
		const struct td_jsonr_value *p = &pts->arr.items[i];

		if (p->type != TD_JSONR_ARRAY || p->arr.n != s->nr_cols)
			return td_rep_fail(ld, w, "point %zu: expected an array of %zu numbers", i,
					   s->nr_cols);
		for (size_t k = 0; k < s->nr_cols; k++) {
			const struct td_jsonr_value *x = &p->arr.items[k];
			if (x->type == TD_JSONR_NULL)
				s->v[i * s->nr_cols + k] = NAN;
			else if (td_jsonr_num(x, &s->v[i * s->nr_cols + k]) < 0)
				return td_rep_fail(ld, w, "point %zu: item %zu is %s, not a number", i, k,
						   td_rep_found(x));
		}
	}
	s->nr_points = pts->arr.n;
	*out = s;
	return true;
}

static bool td_rep_load_threads(struct td_rep_loader *ld, const struct td_jsonr_value *arr)
{
	struct td_rep_proc *p = ld->p;
	char w[64], fw[96];

	if (td_rep_is_null(arr))
		return td_rep_fail(ld, "threads", "missing (an array is required)");
	if (arr->type != TD_JSONR_ARRAY)
		return td_rep_fail(ld, "threads", "expected an array, found %s", td_rep_found(arr));
	p->threads = td_rep_alloc(ld, arr->arr.n, sizeof(*p->threads));
	if (!p->threads)
		return false;
	for (size_t i = 0; i < arr->arr.n; i++) {
		const struct td_jsonr_value *v = &arr->arr.items[i];
		struct td_rep_thread *t = &p->threads[i];

		snprintf(w, sizeof(w), "threads[%zu]", i);
		if (v->type != TD_JSONR_OBJECT)
			return td_rep_fail(ld, w, "expected an object, found %s", td_rep_found(v));
		t->proc = p;
		if (!td_rep_opt_i64(ld, v, w, "tid", true, &t->tid) ||
		    !td_rep_opt_i64(ld, v, w, "parent_tid", false, &t->parent_tid) ||
		    !td_rep_opt_str(ld, v, w, "name", &t->name) ||
		    !td_rep_opt_str(ld, v, w, "state", &t->state))
			return false;
		if (!t->name)
			t->name = "";
		snprintf(fw, sizeof(fw), "%s.metrics", w);
		if (!td_rep_load_metrics(ld, td_jsonr_get(v, "metrics"), fw, &t->m))
			return false;
		snprintf(fw, sizeof(fw), "%s.regions", w);
		if (!td_rep_load_regions(ld, td_jsonr_get(v, "regions"), fw, &t->regions,
					 &t->nr_regions))
			return false;
		snprintf(fw, sizeof(fw), "%s.series", w);
		if (!td_rep_load_series(ld, td_jsonr_get(v, "series"), fw, &t->series))
			return false;
	}
	p->nr_threads = arr->arr.n;
	return true;
}

static bool td_rep_load_process(struct td_rep_loader *ld, const struct td_jsonr_value *v)
{
	struct td_rep_proc *p = ld->p;
	bool has;
	uint64_t n;

	if (td_rep_is_null(v))
		return td_rep_fail(ld, "process", "missing (an object is required)");
	if (v->type != TD_JSONR_OBJECT)
		return td_rep_fail(ld, "process", "expected an object, found %s", td_rep_found(v));
	if (!td_rep_opt_i64(ld, v, "process", "pid", true, &p->pid) ||
	    !td_rep_opt_i64(ld, v, "process", "ppid", false, &p->ppid) ||
	    !td_rep_opt_str(ld, v, "process", "host", &p->host) ||
	    !td_rep_opt_str(ld, v, "process", "kernel", &p->kernel) ||
	    !td_rep_opt_str(ld, v, "process", "cpu_model", &p->cpu_model) ||
	    !td_rep_opt_u64(ld, v, "process", "ncpus", &has, &n))
		return false;
	p->ncpus = has ? (int64_t)n : 0;
	p->start_time = td_jsonr_get(v, "start_unix_ns");
	if (!p->start_time)
		p->start_time = td_jsonr_get(v, "start_time");
	p->end_time = td_jsonr_get(v, "end_unix_ns");
	if (!p->end_time)
		p->end_time = td_jsonr_get(v, "end_time");
	const struct td_jsonr_value *cmd = td_jsonr_get(v, "command");
	if (td_rep_is_null(cmd))
		return true;
	if (cmd->type == TD_JSONR_STRING) {
		p->argv = td_rep_alloc(ld, 1, sizeof(char *));
		if (!p->argv)
			return false;
		p->argv[0] = cmd->str.s;
		p->argc = 1;
		return true;
	}
	if (cmd->type != TD_JSONR_ARRAY)
		return td_rep_fail(ld, "process.command", "expected an array of strings, found %s",
				   td_rep_found(cmd));
	p->argv = td_rep_alloc(ld, cmd->arr.n, sizeof(char *));
	if (!p->argv)
		return false;
	for (size_t i = 0; i < cmd->arr.n; i++) {
		p->argv[i] = td_jsonr_str(&cmd->arr.items[i]);
		if (!p->argv[i])
			return td_rep_fail(ld, "process.command", "item %zu is %s, not a string", i,
					   td_rep_found(&cmd->arr.items[i]));
	}
	p->argc = cmd->arr.n;
	return true;
}

static bool td_rep_load_backend(struct td_rep_loader *ld, const struct td_jsonr_value *v)
{
	struct td_rep_backend *b = &ld->p->backend;
	int64_t level = 0;

	if (td_rep_is_null(v))
		return true;
	if (v->type != TD_JSONR_OBJECT)
		return td_rep_fail(ld, "backend", "expected an object, found %s", td_rep_found(v));
	if (!td_rep_opt_str(ld, v, "backend", "name", &b->name) ||
	    !td_rep_opt_str(ld, v, "backend", "reason", &b->reason) ||
	    !td_rep_opt_str(ld, v, "backend", "method", &b->method) ||
	    !td_rep_opt_i64(ld, v, "backend", "topdown_level", false, &level))
		return false;
	if (level < 0 || level > 2)
		return td_rep_fail(ld, "backend.topdown_level", "%lld is not 0, 1 or 2",
				   (long long)level);
	b->topdown_level = (int)level;
	const struct td_jsonr_value *em = td_jsonr_get(v, "emulated");
	if (!td_rep_is_null(em)) {
		if (em->type != TD_JSONR_BOOL)
			return td_rep_fail(ld, "backend.emulated", "expected a boolean, found %s",
					   td_rep_found(em));
		b->emulated = em->b;
	}
	return true;
}

/* The writer puts CPU facts in "machine"; older samples had them in
 * "process". Either is fine, "process" wins. */
static bool td_rep_load_machine(struct td_rep_loader *ld, const struct td_jsonr_value *v)
{
	struct td_rep_proc *p = ld->p;
	const char *model;
	bool has;
	uint64_t n;

	if (td_rep_is_null(v))
		return true;
	if (v->type != TD_JSONR_OBJECT)
		return td_rep_fail(ld, "machine", "expected an object, found %s", td_rep_found(v));
	if (!td_rep_opt_str(ld, v, "machine", "cpu_model", &model) ||
	    !td_rep_opt_u64(ld, v, "machine", "ncpus", &has, &n))
		return false;
	if (!p->cpu_model)
		p->cpu_model = model;
	if (!p->ncpus && has)
		p->ncpus = (int64_t)n;
	return true;
}

static void td_rep_proc_delete(struct td_rep_proc *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nr_allocs; i++)
		free(p->allocs[i]);
	free(p->allocs);
	td_jsonr_delete(p->doc);
	free((char *)p->file);
	free(p);
}

int td_rep_load_doc(struct td_rep_set *set, const char *name, struct td_jsonr_doc *doc,
		    char *err, size_t errlen)
{
	struct td_rep_proc *p = calloc(1, sizeof(*p));
	struct td_rep_loader ld = { .p = p, .err = err, .errlen = errlen };
	char *file = strdup(name);

	if (!p || !file) {
		snprintf(err, errlen, "%s: out of memory", name);
		free(p);
		free(file);
		td_jsonr_delete(doc);
		return -1;
	}
	p->file = file;
	p->doc = doc;
	const struct td_jsonr_value *root = td_jsonr_root(doc);
	if (root->type != TD_JSONR_OBJECT) {
		td_rep_fail(&ld, "", "the top-level value is %s, not a tdprobe report object",
			    td_rep_found(root));
		goto fail;
	}
	const char *schema = td_jsonr_str(td_jsonr_get(root, "schema"));
	if (!schema) {
		td_rep_fail(&ld, "schema", "missing: not a tdprobe report");
		goto fail;
	}
	if (strcmp(schema, TD_REP_SCHEMA) != 0) {
		td_rep_fail(&ld, "schema", "\"%s\" is not supported (this tool reads \"%s\")", schema,
			    TD_REP_SCHEMA);
		goto fail;
	}
	p->config = td_jsonr_get(root, "config");
	if (!td_rep_load_process(&ld, td_jsonr_get(root, "process")) ||
	    !td_rep_load_machine(&ld, td_jsonr_get(root, "machine")) ||
	    !td_rep_load_backend(&ld, td_jsonr_get(root, "backend")) ||
	    !td_rep_load_threads(&ld, td_jsonr_get(root, "threads")) ||
	    !td_rep_load_regions(&ld, td_jsonr_get(root, "regions"), "regions", &p->regions,
				 &p->nr_regions))
		goto fail;

	struct td_rep_proc **np = realloc(set->procs, (set->nr + 1) * sizeof(*np));
	if (!np) {
		td_rep_fail(&ld, "", "out of memory");
		goto fail;
	}
	set->procs = np;
	set->procs[set->nr++] = p;
	return 0;
fail:
	td_rep_proc_delete(p);
	return -1;
}

int td_rep_load(struct td_rep_set *set, const char *path, char *err, size_t errlen)
{
	struct td_jsonr_doc *doc = td_jsonr_load(path, NULL, err, errlen);

	if (!doc)
		return -1;
	return td_rep_load_doc(set, path, doc, err, errlen);
}

void td_rep_set_exit(struct td_rep_set *set)
{
	for (size_t i = 0; i < set->nr; i++)
		td_rep_proc_delete(set->procs[i]);
	free(set->procs);
	set->procs = NULL;
	set->nr = 0;
}
