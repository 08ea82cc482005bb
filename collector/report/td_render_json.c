/* td_render_json: the merged view as JSON ("tdprobe-merged/1"): the
 * sources with their headers (per-process detail kept), the grand total and
 * the tables, each metrics object in the same shape as tdprobe/1. */
#include "td_render.h"
#include "../td_json.h"

#include <errno.h>

static void td_rjson_metrics(struct td_json *j, const struct td_rep_metrics *m)
{
	td_json_object_begin(j);
	if (m->has_cpu)
		td_json_kv_uint(j, "cpu_ns", m->cpu_ns);
	if (m->has_wall)
		td_json_kv_uint(j, "wall_ns", m->wall_ns);
	if (m->has_slots)
		td_json_kv_uint(j, "slots", m->slots);
	for (int n = 0; n < TD_NODE_COUNT; n++)
		if ((m->frac_mask >> n) & 1)
			td_json_kv_double(j, td_rep_node_json[n], m->frac[n]);
	if (m->count_mask) {
		td_json_key(j, "slot_counts");
		td_json_object_begin(j);
		for (int n = 0; n < TD_NODE_COUNT; n++)
			if ((m->count_mask >> n) & 1)
				td_json_kv_uint(j, td_rep_node_json[n], m->count[n]);
		td_json_object_end(j);
	}
	if (m->has_err)
		td_json_kv_double(j, "error_pp", m->error_pp);
	if (m->nr_events) {
		td_json_key(j, "events");
		td_json_object_begin(j);
		for (int i = 0; i < m->nr_events; i++)
			td_json_kv_uint(j, m->event_name[i], m->event[i]);
		td_json_object_end(j);
	}
	if (m->has_ipc)
		td_json_kv_double(j, "ipc", m->ipc);
	td_json_object_end(j);
}

static void td_rjson_row(struct td_json *j, const struct td_row *r)
{
	static const char *const kinds[] = { "thread", "region", "callsite", "process", "total" };

	td_json_object_begin(j);
	td_json_kv_string(j, "kind", kinds[r->kind]);
	if (r->pid >= 0)
		td_json_kv_int(j, "pid", r->pid);
	if (r->tid >= 0)
		td_json_kv_int(j, "tid", r->tid);
	if (r->name)
		td_json_kv_string(j, "name", r->name);
	if (r->callsite[0])
		td_json_kv_string(j, "callsite", r->callsite);
	if (r->has_calls)
		td_json_kv_uint(j, "calls", r->calls);
	if (r->kind == TD_ROW_PROCESS || r->kind == TD_ROW_TOTAL)
		td_json_kv_uint(j, "threads", r->nr_threads);
	if (r->thread && r->thread->state)
		td_json_kv_string(j, "state", r->thread->state);
	td_json_key(j, "metrics");
	td_rjson_metrics(j, &r->m);
	td_json_object_end(j);
}

int td_render_json(FILE *f, const struct td_view *v, const char *by)
{
	struct td_json j;
	const struct td_rep_set *set = v->set;

	td_json_init(&j, f, 1);
	td_json_object_begin(&j);
	td_json_kv_string(&j, "schema", "tdprobe-merged/1");
	td_json_kv_string(&j, "by", by);
	td_json_kv_int(&j, "topdown_level", v->level);
	td_json_key(&j, "sources");
	td_json_array_begin(&j);
	for (size_t i = 0; i < set->nr; i++) {
		const struct td_rep_proc *p = set->procs[i];

		td_json_object_begin(&j);
		td_json_kv_string(&j, "file", p->file);
		td_json_kv_int(&j, "pid", p->pid);
		td_json_kv_int(&j, "ppid", p->ppid);
		td_json_key(&j, "command");
		td_json_array_begin(&j);
		for (size_t a = 0; a < p->argc; a++)
			td_json_string(&j, p->argv[a]);
		td_json_array_end(&j);
		if (p->host)
			td_json_kv_string(&j, "host", p->host);
		if (p->kernel)
			td_json_kv_string(&j, "kernel", p->kernel);
		if (p->cpu_model)
			td_json_kv_string(&j, "cpu_model", p->cpu_model);
		if (p->ncpus)
			td_json_kv_int(&j, "ncpus", p->ncpus);
		td_json_key(&j, "backend");
		td_json_object_begin(&j);
		if (p->backend.name)
			td_json_kv_string(&j, "name", p->backend.name);
		if (p->backend.reason)
			td_json_kv_string(&j, "reason", p->backend.reason);
		td_json_kv_int(&j, "topdown_level", p->backend.topdown_level);
		if (p->backend.method)
			td_json_kv_string(&j, "method", p->backend.method);
		td_json_kv_bool(&j, "emulated", p->backend.emulated);
		td_json_object_end(&j);
		td_json_kv_uint(&j, "threads", p->nr_threads);
		td_json_object_end(&j);
	}
	td_json_array_end(&j);
	td_json_key(&j, "total");
	td_rjson_row(&j, &v->total);
	td_json_key(&j, "tables");
	td_json_array_begin(&j);
	for (int k = 0; k < v->nr_tables; k++) {
		const struct td_table *tb = &v->tables[k];

		td_json_object_begin(&j);
		td_json_kv_string(&j, "title", tb->title);
		td_json_kv_uint(&j, "rows_total", tb->nr_all);
		td_json_key(&j, "rows");
		td_json_array_begin(&j);
		for (size_t r = 0; r < tb->nr; r++)
			td_rjson_row(&j, &tb->rows[r]);
		td_json_array_end(&j);
		if (tb->has_total) {
			td_json_key(&j, "total");
			td_rjson_row(&j, &tb->total);
		}
		td_json_object_end(&j);
	}
	td_json_array_end(&j);
	td_json_object_end(&j);
	fputc('\n', f);
	if (fflush(f) != 0 || ferror(f))
		return -EIO;
	return 0;
}
