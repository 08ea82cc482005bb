/* td_render_text: perf-stat-like tables and CSV.
 *
 * Table layout: label columns (pid when several processes, tid, name or
 * function) then figures, all right-aligned, within TD_RENDER_WIDTH. The
 * level-1 table has one column per tma_* node; level 2 needs more width
 * than a line has, so it comes as two further tables (children of
 * retiring/bad speculation, then of frontend/backend bound). The dominant
 * node of a row is marked with "<" right after its percentage. */
#include "td_render.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#define TD_COL_MAX 12

struct td_col {
	const char *hdr;
	int width;
	int node;       /* TopDown node shown, or -1 */
	int what;       /* enum td_colwhat */
	int unit;       /* time columns: index into td_time_units */
};

/* Time columns switch to a larger unit when their widest value would take
 * more than TD_TIME_WIDTH characters, so long runs keep the line. */
#define TD_TIME_WIDTH 9
static const struct {
	double ns;
	const char *cpu_hdr, *wall_hdr;
} td_time_units[] = {
	{ 1e6, "cpu ms", "wall ms" },
	{ 1e9, "cpu s", "wall s" },
	{ 3600e9, "cpu h", "wall h" },
};
#define TD_TIME_UNITS (int)(sizeof(td_time_units) / sizeof(td_time_units[0]))

enum td_colwhat { TD_COL_PID, TD_COL_TID, TD_COL_NAME, TD_COL_CALLS, TD_COL_CPU, TD_COL_WALL,
		  TD_COL_UTIL, TD_COL_NODE, TD_COL_PERCALL };

void td_render_command(const struct td_rep_proc *p, char *buf, size_t n)
{
	size_t used = 0;

	buf[0] = 0;
	for (size_t i = 0; i < p->argc && used + 1 < n; i++) {
		int w = snprintf(buf + used, n - used, "%s%s", i ? " " : "", p->argv[i]);
		if (w < 0)
			break;
		used += (size_t)w;
	}
	if (used >= n && n > 4)
		strcpy(buf + n - 4, "...");
	for (char *c = buf; *c; c++)
		if ((unsigned char)*c < 0x20)
			*c = '?';
}

void td_render_source_line(const struct td_view *v, char *buf, size_t n)
{
	const struct td_rep_set *set = v->set;
	size_t used = 0;

	buf[0] = 0;
	for (size_t p = 0; p < set->nr; p++) {
		const struct td_rep_backend *b = &set->procs[p]->backend;
		char one[512];

		snprintf(one, sizeof(one), "backend %s, TopDown level %d%s%s%s", b->name ? b->name : "?",
			 b->topdown_level, b->method ? " (" : "", b->method ? b->method : "",
			 b->method ? ")" : "");
		if (b->emulated)
			strncat(one, ", EMULATED PMU: test figures, not this CPU's",
				sizeof(one) - strlen(one) - 1);
		if (strstr(buf, one))
			continue;
		int w = snprintf(buf + used, n - used, "%s%s", used ? "; " : "", one);
		if (w < 0 || (size_t)w >= n - used)
			break;
		used += (size_t)w;
	}
}

static void td_fmt_time(char *b, size_t n, bool has, uint64_t ns, int unit)
{
	if (!has)
		snprintf(b, n, "-");
	else
		snprintf(b, n, "%.2f", (double)ns / td_time_units[unit].ns);
}

/* Fits s into width columns: cut with '~' at the end when too long. */
static void td_put_clipped(FILE *f, const char *s, int width, bool right)
{
	int len = (int)strlen(s);

	if (len > width) {
		fprintf(f, "%.*s~", width - 1, s);
		return;
	}
	if (right)
		fprintf(f, "%*s", width, s);
	else
		fprintf(f, "%-*s", width, s);
}

static void td_cell(const struct td_col *c, const struct td_row *r, int dom, char *b, size_t n)
{
	const struct td_rep_metrics *m = &r->m;

	switch (c->what) {
	case TD_COL_PID:
		if (r->pid < 0)
			snprintf(b, n, r->kind == TD_ROW_TOTAL ? "" : "*");
		else
			snprintf(b, n, "%" PRId64, r->pid);
		break;
	case TD_COL_TID:
		if (r->tid < 0)
			snprintf(b, n, "%s", "");
		else
			snprintf(b, n, "%" PRId64, r->tid);
		break;
	case TD_COL_NAME:
		if (r->kind == TD_ROW_TOTAL)
			snprintf(b, n, "total (%u thread%s)", r->nr_threads, r->nr_threads == 1 ? "" : "s");
		else if (r->kind == TD_ROW_CALLSITE && r->callsite[0])
			snprintf(b, n, "%s @ %s", r->name, r->callsite);
		else if (r->kind == TD_ROW_PROCESS)
			snprintf(b, n, "%s (%u thread%s)", r->name ? r->name : "?", r->nr_threads,
				 r->nr_threads == 1 ? "" : "s");
		else
			snprintf(b, n, "%s", r->name && *r->name ? r->name : "?");
		for (char *p = b; *p; p++)
			if ((unsigned char)*p < 0x20)
				*p = '?';
		break;
	case TD_COL_CALLS:
		if (r->has_calls)
			snprintf(b, n, "%" PRIu64, r->calls);
		else
			snprintf(b, n, "-");
		break;
	case TD_COL_CPU:
		td_fmt_time(b, n, m->has_cpu, m->cpu_ns, c->unit);
		break;
	case TD_COL_WALL:
		td_fmt_time(b, n, m->has_wall, m->wall_ns, c->unit);
		break;
	case TD_COL_UTIL:
		if (m->has_cpu && m->has_wall && m->wall_ns)
			snprintf(b, n, "%.1f%%", 100.0 * (double)m->cpu_ns / (double)m->wall_ns);
		else
			snprintf(b, n, "-");
		break;
	case TD_COL_PERCALL:
		if (m->has_cpu && r->has_calls && r->calls)
			snprintf(b, n, "%.2f", (double)m->cpu_ns / (double)r->calls / 1e3);
		else
			snprintf(b, n, "-");
		break;
	case TD_COL_NODE:
		if ((m->frac_mask >> c->node) & 1)
			snprintf(b, n, "%.1f%% %c", 100.0 * m->frac[c->node], c->node == dom ? '<' : ' ');
		else
			snprintf(b, n, "-  ");
		break;
	}
}

/* Builds the columns of one table. part: 0 level 1 (or times only), 1 and
 * 2 the level-2 halves. Returns the count; the name column takes what the
 * others leave. */
static int td_columns(const struct td_view *v, const struct td_table *tb, int part,
		      struct td_col *cols)
{
	int n = 0, used = 0;
	bool multi = v->set->nr > 1;

	if (multi && tb->kind != TD_ROW_PROCESS)
		cols[n++] = (struct td_col){ "pid", 7, -1, TD_COL_PID, 0 };
	if (tb->kind == TD_ROW_THREAD)
		cols[n++] = (struct td_col){ "tid", 7, -1, TD_COL_TID, 0 };
	if (tb->kind == TD_ROW_PROCESS)
		cols[n++] = (struct td_col){ "pid", 7, -1, TD_COL_PID, 0 };
	int name_col = n;
	cols[n++] = (struct td_col){ tb->kind == TD_ROW_THREAD	  ? "thread"
				     : tb->kind == TD_ROW_PROCESS ? "command"
				     : tb->kind == TD_ROW_CALLSITE ? "function @ call site"
								   : "function",
				     0, -1, TD_COL_NAME, 0 };
	if (part == 0) {
		if (tb->kind == TD_ROW_REGION || tb->kind == TD_ROW_CALLSITE)
			cols[n++] = (struct td_col){ "calls", 9, -1, TD_COL_CALLS, 0 };
		cols[n++] = (struct td_col){ "cpu ms", 10, -1, TD_COL_CPU, 0 };
		cols[n++] = (struct td_col){ "wall ms", 10, -1, TD_COL_WALL, 0 };
		if (v->level == 0) {
			cols[n++] = (struct td_col){ "cpu/wall", 8, -1, TD_COL_UTIL, 0 };
			if (tb->kind == TD_ROW_REGION || tb->kind == TD_ROW_CALLSITE)
				cols[n++] = (struct td_col){ "cpu us/call", 11, -1, TD_COL_PERCALL, 0 };
		} else {
			for (int k = 0; k < TD_L1_NODES; k++)
				cols[n++] = (struct td_col){ td_rep_node_tma[k], 0, k, TD_COL_NODE, 0 };
		}
	} else {
		int first = part == 1 ? TD_HEAVY_OPERATIONS : TD_FETCH_LATENCY;
		for (int k = first; k < first + 4; k++)
			cols[n++] = (struct td_col){ td_rep_node_tma[k], 0, k, TD_COL_NODE, 0 };
	}
	/* Figures are never clipped: each column is as wide as its header or
	 * its widest cell, whichever is wider. */
	for (int i = 0; i < n; i++) {
		if (i == name_col)
			continue;
		char b[128];
		if (cols[i].what == TD_COL_CPU || cols[i].what == TD_COL_WALL) {
			for (cols[i].unit = 0; cols[i].unit < TD_TIME_UNITS - 1; cols[i].unit++) {
				int widest = 0;
				for (size_t r = 0; r <= tb->nr; r++) {
					const struct td_row *row = r < tb->nr ? &tb->rows[r] : tb->has_total ? &tb->total : NULL;
					if (!row)
						break;
					td_cell(&cols[i], row, 0, b, sizeof(b));
					if ((int)strlen(b) > widest)
						widest = (int)strlen(b);
				}
				if (widest <= TD_TIME_WIDTH)
					break;
			}
			cols[i].hdr = cols[i].what == TD_COL_CPU ? td_time_units[cols[i].unit].cpu_hdr
								 : td_time_units[cols[i].unit].wall_hdr;
		}
		int w = (int)strlen(cols[i].hdr);
		for (size_t r = 0; r <= tb->nr; r++) {
			const struct td_row *row = r < tb->nr ? &tb->rows[r] : tb->has_total ? &tb->total : NULL;
			if (!row)
				break;
			td_cell(&cols[i], row, 0, b, sizeof(b));
			if ((int)strlen(b) > w)
				w = (int)strlen(b);
		}
		cols[i].width = w;
		used += cols[i].width + 1;
	}
	/* The name column: as wide as its longest entry, within the line. */
	int want = (int)strlen(cols[name_col].hdr);
	for (size_t r = 0; r < tb->nr; r++) {
		char b[512];
		td_cell(&cols[name_col], &tb->rows[r], -1, b, sizeof(b));
		if ((int)strlen(b) > want)
			want = (int)strlen(b);
	}
	if (tb->has_total) {
		/* The total's label spans the id columns before the name. */
		char b[512];
		int ids = 0;
		for (int i = 0; i < name_col; i++)
			ids += cols[i].width + 1;
		td_cell(&cols[name_col], &tb->total, -1, b, sizeof(b));
		if ((int)strlen(b) - ids > want)
			want = (int)strlen(b) - ids;
	}
	int room = TD_RENDER_WIDTH - used;
	cols[name_col].width = want < room ? want : room;
	if (cols[name_col].width < 4)
		cols[name_col].width = 4;
	return n;
}

static void td_print_row(FILE *f, const struct td_col *cols, int n, const struct td_row *r, int part)
{
	int dom = td_rep_metrics_dominant(&r->m, part == 0 ? 1 : 2);
	char b[512];
	int i = 0;

	if (r->kind == TD_ROW_TOTAL) {
		/* The total has no pid or tid: its label spans those columns. */
		int span = -1;
		for (; i < n; i++) {
			span += cols[i].width + 1;
			if (cols[i].what == TD_COL_NAME)
				break;
		}
		td_cell(&cols[i], r, dom, b, sizeof(b));
		td_put_clipped(f, b, span, false);
		i++;
	}
	for (; i < n; i++) {
		td_cell(&cols[i], r, dom, b, sizeof(b));
		if (i)
			fputc(' ', f);
		if (cols[i].what == TD_COL_NAME && i == n - 1)
			fputs(b, f);
		else
			td_put_clipped(f, b, cols[i].width, cols[i].what != TD_COL_NAME);
	}
	fputc('\n', f);
}

static void td_print_table(FILE *f, const struct td_view *v, const struct td_table *tb, int part)
{
	struct td_col cols[TD_COL_MAX];
	int n = td_columns(v, tb, part, cols);
	int total_w = 0;

	if (part == 0)
		fprintf(f, "\n%s", tb->title);
	else
		fprintf(f, "\n%s, level 2 (%s)", tb->title,
			part == 1 ? "retiring and bad speculation" : "frontend and backend bound");
	if (tb->nr < tb->nr_all)
		fprintf(f, ": top %zu of %zu", tb->nr, tb->nr_all);
	if (part == 0 && v->level > 0)
		fputs(", % of pipeline slots, < marks the largest", f);
	fputc('\n', f);
	for (int i = 0; i < n; i++) {
		if (i)
			fputc(' ', f);
		td_put_clipped(f, cols[i].hdr, cols[i].width, cols[i].what != TD_COL_NAME);
		total_w += cols[i].width + (i ? 1 : 0);
	}
	fputc('\n', f);
	for (size_t r = 0; r < tb->nr; r++)
		td_print_row(f, cols, n, &tb->rows[r], part);
	if (tb->has_total) {
		for (int i = 0; i < total_w; i++)
			fputc('-', f);
		fputc('\n', f);
		td_print_row(f, cols, n, &tb->total, part);
	}
}

int td_render_text(FILE *f, const struct td_view *v)
{
	const struct td_rep_set *set = v->set;
	char line[1024], cmd[256];

	if (set->nr == 1) {
		const struct td_rep_proc *p = set->procs[0];
		td_render_command(p, cmd, 80);
		snprintf(line, sizeof(line), "tdprobe report %s: pid %" PRId64 " %s", p->file, p->pid,
			 cmd);
	} else {
		snprintf(line, sizeof(line), "tdprobe report: %zu processes merged (%u threads)", set->nr,
			 v->total.nr_threads);
	}
	fprintf(f, "%.*s\n", TD_RENDER_WIDTH, line);
	if (set->nr == 1) {
		const struct td_rep_proc *p = set->procs[0];
		snprintf(line, sizeof(line), "host %s, kernel %s, %s, %" PRId64 " cpus",
			 p->host ? p->host : "?", p->kernel ? p->kernel : "?",
			 p->cpu_model ? p->cpu_model : "CPU model unknown", p->ncpus);
		fprintf(f, "%.*s\n", TD_RENDER_WIDTH, line);
	} else {
		for (size_t i = 0; i < set->nr; i++) {
			const struct td_rep_proc *p = set->procs[i];
			td_render_command(p, cmd, 60);
			snprintf(line, sizeof(line), "  pid %" PRId64 " (ppid %" PRId64 ") on %s: %s  [%s]",
				 p->pid, p->ppid, p->host ? p->host : "?", cmd, p->file);
			fprintf(f, "%.*s\n", TD_RENDER_WIDTH, line);
		}
	}
	td_render_source_line(v, line, sizeof(line));
	fprintf(f, "%.*s\n", TD_RENDER_WIDTH, line);
	if (v->level == 0) {
		snprintf(line, sizeof(line), "no TopDown figures: %s", v->why_no_topdown);
		/* The reason matters more than the width: wrap it. */
		for (const char *s = line; *s;) {
			size_t len = strlen(s);
			size_t take = len;
			if (len > TD_RENDER_WIDTH) {
				take = TD_RENDER_WIDTH;
				while (take > 40 && s[take] != ' ')
					take--;
			}
			fprintf(f, "%s%.*s\n", s == line ? "" : "  ", (int)take, s);
			s += take;
			while (*s == ' ')
				s++;
		}
	} else if (v->total.m.has_err) {
		fprintf(f, "fractions within +/-%.2f percentage points\n", v->total.m.error_pp);
	}
	for (int k = 0; k < v->nr_tables; k++) {
		const struct td_table *tb = &v->tables[k];
		if (!tb->nr_all) {
			fprintf(f, "\n%s: none recorded\n", tb->title);
			continue;
		}
		td_print_table(f, v, tb, 0);
		if (v->level >= 2) {
			td_print_table(f, v, tb, 1);
			td_print_table(f, v, tb, 2);
		}
	}
	if (fflush(f) != 0 || ferror(f))
		return -EIO;
	return 0;
}

/* CSV: one header, one line per row of every table and per total. Fixed
 * columns whatever the data; an absent figure is an empty cell. */
static void td_csv_str(FILE *f, const char *s)
{
	bool quote = strpbrk(s, ",\"\n\r") != NULL;

	if (!quote) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static const char *td_kind_name(enum td_row_kind k)
{
	switch (k) {
	case TD_ROW_THREAD: return "thread";
	case TD_ROW_REGION: return "region";
	case TD_ROW_CALLSITE: return "callsite";
	case TD_ROW_PROCESS: return "process";
	case TD_ROW_TOTAL: return "total";
	}
	return "?";
}

static void td_csv_row(FILE *f, const struct td_row *r, const char *table)
{
	const struct td_rep_metrics *m = &r->m;

	fprintf(f, "%s,%s,", td_kind_name(r->kind), table);
	if (r->pid >= 0)
		fprintf(f, "%" PRId64, r->pid);
	fputc(',', f);
	if (r->tid >= 0)
		fprintf(f, "%" PRId64, r->tid);
	fputc(',', f);
	td_csv_str(f, r->name ? r->name : "");
	fputc(',', f);
	td_csv_str(f, r->callsite);
	fputc(',', f);
	if (r->has_calls)
		fprintf(f, "%" PRIu64, r->calls);
	fprintf(f, ",%u,", r->nr_threads);
	if (m->has_cpu)
		fprintf(f, "%" PRIu64, m->cpu_ns);
	fputc(',', f);
	if (m->has_wall)
		fprintf(f, "%" PRIu64, m->wall_ns);
	fputc(',', f);
	if (m->has_slots)
		fprintf(f, "%" PRIu64, m->slots);
	for (int n = 0; n < TD_NODE_COUNT; n++) {
		fputc(',', f);
		if ((m->count_mask >> n) & 1)
			fprintf(f, "%" PRIu64, m->count[n]);
	}
	for (int n = 0; n < TD_NODE_COUNT; n++) {
		fputc(',', f);
		if ((m->frac_mask >> n) & 1)
			fprintf(f, "%.6f", m->frac[n]);
	}
	fputc(',', f);
	int dom = td_rep_metrics_dominant(m, 1);
	if (dom >= 0)
		fputs(td_rep_node_tma[dom], f);
	fputc(',', f);
	if (m->has_err)
		fprintf(f, "%.4f", m->error_pp);
	fputc(',', f);
	if (m->has_ipc)
		fprintf(f, "%.4f", m->ipc);
	fputc(',', f);
	char ev[1024];
	size_t used = 0;
	ev[0] = 0;
	for (int i = 0; i < m->nr_events && used < sizeof(ev); i++) {
		int w = snprintf(ev + used, sizeof(ev) - used, "%s%s=%" PRIu64, i ? ";" : "",
				 m->event_name[i], m->event[i]);
		if (w < 0)
			break;
		used += (size_t)w;
	}
	td_csv_str(f, ev);
	fputc('\n', f);
}

int td_render_csv(FILE *f, const struct td_view *v)
{
	fputs("kind,table,pid,tid,name,callsite,calls,threads,cpu_ns,wall_ns,slots", f);
	for (int n = 0; n < TD_NODE_COUNT; n++)
		fprintf(f, ",slots_%s", td_rep_node_json[n]);
	for (int n = 0; n < TD_NODE_COUNT; n++)
		fprintf(f, ",%s", td_rep_node_tma[n]);
	fputs(",dominant,error_pp,ipc,events\n", f);
	for (int k = 0; k < v->nr_tables; k++) {
		const struct td_table *tb = &v->tables[k];
		for (size_t r = 0; r < tb->nr; r++)
			td_csv_row(f, &tb->rows[r], tb->title);
		if (tb->has_total)
			td_csv_row(f, &tb->total, tb->title);
	}
	if (fflush(f) != 0 || ferror(f))
		return -EIO;
	return 0;
}
