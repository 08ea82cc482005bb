/* td_render_html: one self-contained HTML page (inline CSS, no script, no
 * network): per thread and per region a stacked bar of the level-1 TopDown
 * breakdown that unfolds (<details>) into level 2; native tooltips carry
 * the numbers; per-thread time series as inline SVG. Without TopDown the
 * bars show CPU and wall time and the page says why there is no TopDown. */
#include "td_render.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

static const char *const td_html_color[TD_NODE_COUNT] = {
	"#2e9e5b", "#d64541", "#8e6cc9", "#e08a1e", /* L1 */
	"#1f7a44", "#6cc58f", "#a8312e", "#ec8a87", /* retiring, bad speculation children */
	"#6a4ba6", "#b9a3e3", "#b8660c", "#f2b66b", /* frontend, backend children */
};

static void td_html_esc(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default:
			if ((unsigned char)*s < 0x20)
				fputc('?', f);
			else
				fputc(*s, f);
		}
	}
}

static const char td_html_css[] =
	"body{font:14px/1.4 system-ui,sans-serif;margin:20px;color:#222;background:#fff}"
	"h1{font-size:22px;margin:0 0 6px}h2{font-size:17px;margin:22px 0 8px;border-bottom:1px solid #ddd}"
	".meta{color:#555;font-size:13px}.meta td{padding:0 14px 0 0}"
	".why{background:#fff4e0;border:1px solid #e0a040;padding:8px 12px;border-radius:4px}"
	".emu{background:#fde8e8;border:1px solid #d64541;padding:8px 12px;border-radius:4px}"
	".legend span{display:inline-block;margin-right:14px;font-size:12px}"
	".legend i{display:inline-block;width:12px;height:12px;margin-right:4px;vertical-align:-2px}"
	"details.row{margin:2px 0}details.row>summary{list-style:none;cursor:pointer;display:flex;align-items:center}"
	"details.row>summary::-webkit-details-marker{display:none}"
	"summary::before{content:'\\25B8';width:14px;color:#888}details[open]>summary::before{content:'\\25BE'}"
	".lbl{width:300px;flex:none;overflow:hidden;text-overflow:ellipsis;white-space:nowrap;font-family:monospace;font-size:12px}"
	".bar{flex:1;display:flex;height:16px;background:#eee;border-radius:2px;overflow:hidden;min-width:0}"
	".bar span{height:100%}.bar span:hover{filter:brightness(1.2)}"
	".num{width:310px;flex:none;text-align:right;font-family:monospace;font-size:12px;padding-left:8px;"
	"white-space:nowrap;overflow:hidden;text-overflow:ellipsis}"
	".l2{display:flex;align-items:center;margin:2px 0 6px 14px}.l2 .lbl{color:#777}.l2 .small{flex:1}"
	".total>summary .lbl{font-weight:bold}"
	".series{margin:6px 0 14px}.series svg{background:#fafafa;border:1px solid #ddd;max-width:100%;height:auto}"
	".small{font-size:12px;color:#666}";

static void td_html_legend(FILE *f, int level)
{
	fputs("<div class=\"legend\">", f);
	int n = level >= 2 ? TD_NODE_COUNT : TD_L1_NODES;
	for (int k = 0; k < n; k++) {
		if (k == TD_L1_NODES)
			fputs("<br>", f);
		fprintf(f, "<span><i style=\"background:%s\"></i>%s</span>", td_html_color[k],
			td_rep_node_tma[k]);
	}
	fputs("</div>\n", f);
}

static void td_html_label(FILE *f, const struct td_view *v, const struct td_row *r)
{
	if (r->kind == TD_ROW_TOTAL) {
		fprintf(f, "total (%u threads)", r->nr_threads);
		return;
	}
	if (v->set->nr > 1 && r->pid >= 0)
		fprintf(f, "%" PRId64 "/", r->pid);
	if (r->kind == TD_ROW_THREAD)
		fprintf(f, "%" PRId64 " ", r->tid);
	td_html_esc(f, r->name && *r->name ? r->name : "?");
	if (r->kind == TD_ROW_CALLSITE && r->callsite[0]) {
		fputs(" @ ", f);
		td_html_esc(f, r->callsite);
	}
	if (r->kind == TD_ROW_PROCESS)
		fprintf(f, " (%u threads)", r->nr_threads);
}

static void td_html_seg(FILE *f, const struct td_rep_metrics *m, int n)
{
	if (!((m->frac_mask >> n) & 1))
		return;
	fprintf(f, "<span style=\"width:%.3f%%;background:%s\" title=\"%s %.1f%%", 100.0 * m->frac[n],
		td_html_color[n], td_rep_node_tma[n], 100.0 * m->frac[n]);
	if ((m->count_mask >> n) & 1)
		fprintf(f, " (%" PRIu64 " slots)", m->count[n]);
	fputs("\"></span>", f);
}

static void td_html_nums(FILE *f, const struct td_row *r)
{
	const struct td_rep_metrics *m = &r->m;

	fputs("<span class=\"num\">", f);
	if (r->has_calls && r->kind != TD_ROW_TOTAL)
		fprintf(f, "%" PRIu64 " calls, ", r->calls);
	if (m->has_cpu)
		fprintf(f, "%.2f ms cpu", (double)m->cpu_ns / 1e6);
	int dom = td_rep_metrics_dominant(m, 1);
	if (dom >= 0)
		fprintf(f, ", %s", td_rep_node_json[dom]);
	fputs("</span>", f);
}

static void td_html_row(FILE *f, const struct td_view *v, const struct td_row *r, uint64_t max_ns)
{
	const struct td_rep_metrics *m = &r->m;
	int level = td_rep_metrics_level(m);
	char tip[256];

	fprintf(f, "<details class=\"row%s\"><summary><span class=\"lbl\" title=\"",
		r->kind == TD_ROW_TOTAL ? " total" : "");
	td_html_label(f, v, r);
	fputs("\">", f);
	td_html_label(f, v, r);
	fputs("</span><span class=\"bar\">", f);
	if (level >= 1) {
		for (int n = 0; n < TD_L1_NODES; n++)
			td_html_seg(f, m, n);
	} else if (m->has_cpu && max_ns) {
		/* No TopDown: CPU time against the largest in the table, and the
		 * share of wall time spent off CPU in grey. */
		double cpu = 100.0 * (double)m->cpu_ns / (double)max_ns;
		snprintf(tip, sizeof(tip), "cpu %.3f ms", (double)m->cpu_ns / 1e6);
		fprintf(f, "<span style=\"width:%.3f%%;background:#4a7fc1\" title=\"%s\"></span>", cpu, tip);
		if (m->has_wall && m->wall_ns > m->cpu_ns) {
			double off = 100.0 * (double)(m->wall_ns - m->cpu_ns) / (double)max_ns;
			if (cpu + off > 100)
				off = 100 - cpu;
			fprintf(f,
				"<span style=\"width:%.3f%%;background:#c9d6e8\" title=\"off cpu %.3f ms of "
				"%.3f ms wall\"></span>",
				off, (double)(m->wall_ns - m->cpu_ns) / 1e6, (double)m->wall_ns / 1e6);
		}
	}
	fputs("</span>", f);
	td_html_nums(f, r);
	fputs("</summary>", f);
	/* Unfolded: level 2 when present, else the figures in words. */
	fputs("<div class=\"l2\"><span class=\"lbl\">", f);
	if (level >= 2) {
		fputs("level 2</span><span class=\"bar\">", f);
		for (int n = TD_L1_NODES; n < TD_NODE_COUNT; n++)
			td_html_seg(f, m, n);
		fputs("</span>", f);
	} else {
		fputs("figures</span><span class=\"small\">", f);
		if (m->has_cpu)
			fprintf(f, "cpu %.3f ms", (double)m->cpu_ns / 1e6);
		if (m->has_wall)
			fprintf(f, ", wall %.3f ms", (double)m->wall_ns / 1e6);
		if (m->has_cpu && m->has_wall && m->wall_ns)
			fprintf(f, ", cpu/wall %.1f%%", 100.0 * (double)m->cpu_ns / (double)m->wall_ns);
		for (int n = 0; n < TD_L1_NODES; n++)
			if ((m->frac_mask >> n) & 1)
				fprintf(f, ", %s %.1f%%", td_rep_node_tma[n], 100.0 * m->frac[n]);
		if (level < 2 && v->level >= 2)
			fputs(" (no level-2 figures for this entry)", f);
		fputs("</span>", f);
	}
	fputs("<span class=\"num\">", f);
	if (m->has_err)
		fprintf(f, "&plusmn;%.2f pp ", m->error_pp);
	if (r->thread && r->thread->state)
		td_html_esc(f, r->thread->state);
	fputs("</span></div></details>\n", f);
}

static int td_html_col(const struct td_rep_series *s, const char *name)
{
	for (size_t i = 0; i < s->nr_cols; i++)
		if (strcmp(s->cols[i], name) == 0)
			return (int)i;
	return -1;
}

/* One SVG per thread: per interval, the level-1 shares stacked (when the
 * series has slot counts) or CPU utilisation (cpu time / wall time). */
static void td_html_series(FILE *f, const struct td_view *v, const struct td_rep_thread *t)
{
	const struct td_rep_series *s = t->series;
	const int W = 900, H = 90;
	int ct = td_html_col(s, "t_ns"), cc = td_html_col(s, "cpu_ns");
	int cn[TD_L1_NODES];
	bool td = true;

	if (ct < 0 || s->nr_points < 2)
		return;
	for (int n = 0; n < TD_L1_NODES; n++) {
		cn[n] = td_html_col(s, td_rep_node_json[n]);
		if (cn[n] < 0)
			td = false;
	}
	double t0 = s->v[ct], t1 = s->v[(s->nr_points - 1) * s->nr_cols + ct];
	if (!(t1 > t0))
		return;
	fputs("<div class=\"series\"><div class=\"small\">", f);
	if (v->set->nr > 1)
		fprintf(f, "%" PRId64 "/", t->proc->pid);
	fprintf(f, "%" PRId64 " ", t->tid);
	td_html_esc(f, t->name);
	fprintf(f, ": %zu samples over %.1f ms (every %g ms of CPU time%s", s->nr_points,
		(t1 - t0) / 1e6, s->interval_ms, s->dropped ? ", thinned: " : "");
	if (s->dropped)
		fprintf(f, "%" PRIu64 " dropped", s->dropped);
	fprintf(f, "), %s</div>", td ? "TopDown level 1 per interval" : "CPU utilisation per interval");
	fprintf(f, "<svg width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" xmlns=\"http://www.w3.org/2000/svg\">",
		W, H, W, H);
	/* At most W/3 intervals drawn: merge neighbours (values are cumulative,
	 * so skipping points merges intervals exactly). */
	size_t step = (s->nr_points - 1) / (size_t)(W / 3) + 1;
	size_t prev = 0;
	for (size_t i = step; prev < s->nr_points - 1; i += step) {
		if (i > s->nr_points - 1)
			i = s->nr_points - 1;
		const double *a = &s->v[prev * s->nr_cols], *b = &s->v[i * s->nr_cols];
		double x0 = (a[ct] - t0) / (t1 - t0) * W, x1 = (b[ct] - t0) / (t1 - t0) * W;
		double w = x1 - x0 < 0.5 ? 0.5 : x1 - x0;
		if (td) {
			double d[TD_L1_NODES], sum = 0;
			for (int n = 0; n < TD_L1_NODES; n++) {
				d[n] = b[cn[n]] - a[cn[n]];
				if (!(d[n] > 0))
					d[n] = 0;
				sum += d[n];
			}
			if (sum > 0) {
				double y = 0;
				fprintf(f, "<g><title>%.1f-%.1f ms:", (a[ct] - t0) / 1e6, (b[ct] - t0) / 1e6);
				for (int n = 0; n < TD_L1_NODES; n++)
					fprintf(f, " %s %.1f%%", td_rep_node_json[n], 100 * d[n] / sum);
				fputs("</title>", f);
				for (int n = 0; n < TD_L1_NODES; n++) {
					double h = d[n] / sum * H;
					fprintf(f, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\"/>",
						x0, y, w, h, td_html_color[n]);
					y += h;
				}
				fputs("</g>", f);
			}
		} else if (cc >= 0) {
			double dc = b[cc] - a[cc], dt = b[ct] - a[ct];
			double u = dt > 0 ? dc / dt : 0;
			if (u > 1)
				u = 1;
			if (u < 0)
				u = 0;
			fprintf(f,
				"<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"#4a7fc1\">"
				"<title>%.1f-%.1f ms: cpu %.1f%%</title></rect>",
				x0, H - u * H, w, u * H, (a[ct] - t0) / 1e6, (b[ct] - t0) / 1e6, 100 * u);
		}
		prev = i;
	}
	fputs("</svg></div>\n", f);
}

static void td_html_table(FILE *f, const struct td_view *v, const struct td_table *tb)
{
	uint64_t max_ns = 0;

	for (size_t r = 0; r < tb->nr; r++)
		if (tb->rows[r].m.has_cpu && tb->rows[r].m.cpu_ns > max_ns)
			max_ns = tb->rows[r].m.cpu_ns;
	fprintf(f, "<h2>%c%s", tb->title[0] - 32 * (tb->title[0] >= 'a' && tb->title[0] <= 'z'),
		tb->title + 1);
	if (tb->nr < tb->nr_all)
		fprintf(f, " <span class=\"small\">(top %zu of %zu)</span>", tb->nr, tb->nr_all);
	fputs("</h2>\n", f);
	if (!tb->nr_all) {
		fputs("<p class=\"small\">none recorded</p>\n", f);
		return;
	}
	for (size_t r = 0; r < tb->nr; r++)
		td_html_row(f, v, &tb->rows[r], max_ns);
	if (tb->has_total) {
		/* The total's bar is scaled against itself (it is the largest). */
		uint64_t tmax = tb->total.m.cpu_ns > max_ns ? tb->total.m.cpu_ns : max_ns;
		td_html_row(f, v, &tb->total, tmax);
	}
}

int td_render_html(FILE *f, const struct td_view *v)
{
	const struct td_rep_set *set = v->set;
	char line[1024], cmd[512];

	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n", f);
	/* Nothing may load from anywhere: forbid it outright. */
	fputs("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
	      "style-src 'unsafe-inline'; img-src data:\">\n",
	      f);
	fputs("<title>tdprobe report</title>\n<style>", f);
	fputs(td_html_css, f);
	fputs("</style></head><body>\n<h1>tdprobe report</h1>\n<table class=\"meta\">\n", f);
	for (size_t i = 0; i < set->nr; i++) {
		const struct td_rep_proc *p = set->procs[i];
		td_render_command(p, cmd, sizeof(cmd));
		fprintf(f, "<tr><td>pid %" PRId64 "</td><td>ppid %" PRId64 "</td><td>", p->pid, p->ppid);
		td_html_esc(f, p->host ? p->host : "?");
		fputs("</td><td>", f);
		td_html_esc(f, cmd);
		fputs("</td><td>", f);
		td_html_esc(f, p->cpu_model ? p->cpu_model : "");
		if (p->ncpus)
			fprintf(f, ", %" PRId64 " cpus", p->ncpus);
		fputs("</td><td>", f);
		td_html_esc(f, p->file);
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n<p class=\"small\">", f);
	td_render_source_line(v, line, sizeof(line));
	td_html_esc(f, line);
	if (v->level > 0 && v->total.m.has_err)
		fprintf(f, "; fractions within &plusmn;%.2f percentage points", v->total.m.error_pp);
	fputs("</p>\n", f);
	for (size_t i = 0; i < set->nr; i++)
		if (set->procs[i]->backend.emulated) {
			fputs("<p class=\"emu\">These figures come from the emulated PMU (a test "
			      "backend), not from this CPU.</p>\n",
			      f);
			break;
		}
	if (v->level == 0) {
		fputs("<p class=\"why\"><b>No TopDown breakdown.</b> ", f);
		td_html_esc(f, v->why_no_topdown);
		fputs(". The bars show CPU time (blue) and time off CPU within the "
		      "thread's or region's wall time (light blue), scaled to the largest row.</p>\n",
		      f);
	} else {
		td_html_legend(f, v->level);
		fputs("<p class=\"small\">Share of pipeline slots; click a row for level 2. "
		      "Hover for the numbers.</p>\n",
		      f);
	}
	for (int k = 0; k < v->nr_tables; k++)
		td_html_table(f, v, &v->tables[k]);
	/* Time series of the threads shown. */
	bool any = false;
	for (int k = 0; k < v->nr_tables; k++) {
		const struct td_table *tb = &v->tables[k];
		if (tb->kind != TD_ROW_THREAD)
			continue;
		for (size_t r = 0; r < tb->nr; r++) {
			const struct td_rep_thread *t = tb->rows[r].thread;
			if (!t || !t->series || t->series->nr_points < 2)
				continue;
			if (!any)
				fputs("<h2>Time series</h2>\n", f);
			any = true;
			td_html_series(f, v, t);
		}
	}
	fputs("</body></html>\n", f);
	if (fflush(f) != 0 || ferror(f))
		return -EIO;
	return 0;
}
