/* tdprobe-report: reads tdprobe JSON reports, merges them and renders a
 * text table (default), CSV, merged JSON or an HTML page.
 * Exit status: 0 done, 1 bad or unreadable input, 2 usage error. */
#include "td_render.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef TDPROBE_VERSION
#define TDPROBE_VERSION "0"
#endif

static void td_report_usage(FILE *f)
{
	fputs("usage: tdprobe report [options] FILE...\n"
	      "\n"
	      "Renders one or more tdprobe JSON reports. Several files (forked workers,\n"
	      "several hosts) are merged exactly through their slot counts and times;\n"
	      "each process keeps its own rows.\n"
	      "\n"
	      "formats (one):\n"
	      "  (default)          text tables, perf stat style, at most 120 columns\n"
	      "  --csv              one CSV line per row, fixed columns\n"
	      "  --json             the merged view as JSON (schema tdprobe-merged/1)\n"
	      "  --html OUT.html    a self-contained HTML page with bar charts\n"
	      "options:\n"
	      "  --by KIND          thread (threads, then regions), region, callsite, process\n"
	      "  --sort KEY         cpu (default), wall, slots, calls, name, tid, pid, or a\n"
	      "                     TopDown node (retiring, tma_backend_bound, memory_bound, ...)\n"
	      "  --top N            show the first N rows of each table (totals still count all)\n"
	      "  --thread GLOB      only threads whose name matches GLOB (or whose tid is GLOB);\n"
	      "                     repeatable\n"
	      "  -o, --output FILE  write to FILE instead of standard output\n"
	      "  -h, --help         this help\n"
	      "  -V, --version      print the version\n",
	      f);
}

static int td_report_usage_error(const char *fmt, const char *arg)
{
	fputs("tdprobe report: ", stderr);
	fprintf(stderr, fmt, arg);
	fputs(" (see 'tdprobe report --help')\n", stderr);
	return 2;
}

/* Two files that are the same process image would double every figure. */
static int td_report_check_duplicates(const struct td_rep_set *set)
{
	for (size_t i = 0; i < set->nr; i++) {
		for (size_t k = 0; k < i; k++) {
			const struct td_rep_proc *a = set->procs[i], *b = set->procs[k];
			if (a->pid != b->pid)
				continue;
			const char *ha = a->host ? a->host : "", *hb = b->host ? b->host : "";
			const struct td_jsonr_value *sa = a->start_time, *sb = b->start_time;
			bool same_start = (!sa && !sb) ||
					  (sa && sb && sa->type == sb->type &&
					   ((sa->type == TD_JSONR_STRING && !strcmp(sa->str.s, sb->str.s)) ||
					    (sa->type == TD_JSONR_NUMBER && sa->num.d == sb->num.d)));
			if (!strcmp(ha, hb) && same_start) {
				fprintf(stderr,
					"tdprobe report: %s and %s are the same process (pid %" PRId64
					", same host and start time): merging would count it twice\n",
					b->file, a->file, a->pid);
				return -1;
			}
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	enum { OPT_CSV = 256, OPT_JSON, OPT_HTML, OPT_BY, OPT_SORT, OPT_TOP, OPT_THREAD };
	static const struct option opts[] = {
		{ "csv", no_argument, NULL, OPT_CSV },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "html", required_argument, NULL, OPT_HTML },
		{ "by", required_argument, NULL, OPT_BY },
		{ "sort", required_argument, NULL, OPT_SORT },
		{ "top", required_argument, NULL, OPT_TOP },
		{ "thread", required_argument, NULL, OPT_THREAD },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct td_merge_opts mo = { .by = TD_BY_THREAD };
	const char *by_name = "thread", *html = NULL, *out_path = NULL;
	const char **globs = calloc((size_t)argc + 1, sizeof(char *));
	int format = 0, nformats = 0, c, rc = 1;
	char err[1024];
	struct td_rep_set set = { 0 };
	struct td_view view;
	bool have_view = false;
	FILE *out = stdout;

	if (!globs)
		return 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":ho:V", opts, NULL)) != -1) {
		switch (c) {
		case OPT_CSV:
		case OPT_JSON:
			format = c;
			nformats++;
			break;
		case OPT_HTML:
			format = c;
			html = optarg;
			nformats++;
			break;
		case OPT_BY:
			if (td_merge_parse_by(optarg, &mo.by) < 0) {
				rc = td_report_usage_error(
					"--by: '%s' is not one of thread, region, callsite, process", optarg);
				goto out;
			}
			by_name = optarg;
			break;
		case OPT_SORT:
			if (td_merge_check_sort(optarg) < 0) {
				rc = td_report_usage_error("--sort: unknown key '%s'", optarg);
				goto out;
			}
			mo.sort = optarg;
			break;
		case OPT_TOP: {
			char *end;
			errno = 0;
			unsigned long long n = strtoull(optarg, &end, 10);
			if (errno || end == optarg || *end || optarg[0] == '-' || n == 0) {
				rc = td_report_usage_error("--top: '%s' is not a positive integer", optarg);
				goto out;
			}
			mo.top = (size_t)n;
			break;
		}
		case OPT_THREAD:
			globs[mo.nr_globs++] = optarg;
			break;
		case 'o':
			out_path = optarg;
			break;
		case 'h':
			td_report_usage(stdout);
			rc = 0;
			goto out;
		case 'V':
			printf("tdprobe report %s\n", TDPROBE_VERSION);
			rc = 0;
			goto out;
		case ':':
			rc = td_report_usage_error("%s: missing value", argv[optind - 1]);
			goto out;
		default:
			rc = td_report_usage_error("unknown option '%s'", argv[optind - 1]);
			goto out;
		}
	}
	mo.globs = globs;
	if (nformats > 1) {
		rc = td_report_usage_error("%s", "choose one of --csv, --json, --html");
		goto out;
	}
	if (html && out_path) {
		rc = td_report_usage_error("%s", "--html names its output file: -o is for the other formats");
		goto out;
	}
	if (optind >= argc) {
		rc = td_report_usage_error("%s", "no report file given");
		goto out;
	}
	for (int i = optind; i < argc; i++) {
		if (td_rep_load(&set, argv[i], err, sizeof(err)) < 0) {
			fprintf(stderr, "tdprobe report: %s\n", err);
			goto out;
		}
	}
	if (td_report_check_duplicates(&set) < 0)
		goto out;
	if (td_merge_view(&set, &mo, &view, err, sizeof(err)) < 0) {
		fprintf(stderr, "tdprobe report: %s\n", err);
		goto out;
	}
	have_view = true;
	const char *dest = html ? html : out_path;
	if (dest) {
		out = fopen(dest, "w");
		if (!out) {
			fprintf(stderr, "tdprobe report: %s: %s\n", dest, strerror(errno));
			out = stdout;
			goto out;
		}
	}
	int w;
	switch (format) {
	case OPT_CSV: w = td_render_csv(out, &view); break;
	case OPT_JSON: w = td_render_json(out, &view, by_name); break;
	case OPT_HTML: w = td_render_html(out, &view); break;
	default: w = td_render_text(out, &view); break;
	}
	if (out != stdout && fclose(out) != 0 && !w)
		w = -errno;
	out = stdout;
	if (w < 0) {
		fprintf(stderr, "tdprobe report: writing %s: %s\n", dest ? dest : "standard output",
			strerror(-w));
		goto out;
	}
	if (html)
		fprintf(stderr, "tdprobe report: wrote %s\n", html);
	rc = 0;
out:
	if (out != stdout)
		fclose(out);
	if (have_view)
		td_merge_view_exit(&view);
	td_rep_set_exit(&set);
	free(globs);
	return rc;
}
