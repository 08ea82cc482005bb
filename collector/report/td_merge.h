/* td_merge: turns a set of loaded reports into the tables a renderer
 * prints: rows per thread, region, call site or process, each with exact
 * summed metrics, plus total rows. Filtering (thread-name globs), sorting
 * and --top happen here so every renderer shows the same rows. */
#ifndef TD_MERGE_H
#define TD_MERGE_H

#include "td_rep.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum td_merge_by { TD_BY_THREAD, TD_BY_REGION, TD_BY_CALLSITE, TD_BY_PROCESS };
enum td_row_kind { TD_ROW_THREAD, TD_ROW_REGION, TD_ROW_CALLSITE, TD_ROW_PROCESS, TD_ROW_TOTAL };

struct td_row {
	enum td_row_kind kind;
	int64_t pid, tid;              /* -1 when the row spans several */
	const char *name;              /* thread name, function, command */
	char callsite[256];            /* call-site chain (callsite rows) */
	bool has_calls;
	uint64_t calls;
	unsigned nr_threads;           /* threads summed into the row */
	unsigned nr_procs;             /* processes summed into the row */
	struct td_rep_metrics m;
	const struct td_rep_thread *thread; /* thread rows: the source */
};

struct td_table {
	const char *title;
	enum td_row_kind kind;
	struct td_row *rows;
	size_t nr, nr_all;             /* shown, and before --top */
	bool has_total;
	struct td_row total;           /* over all nr_all rows */
};

struct td_merge_opts {
	enum td_merge_by by;
	const char *sort;              /* NULL: cpu */
	size_t top;                    /* 0: all */
	const char *const *globs;      /* thread-name filters (fnmatch), any may match */
	size_t nr_globs;
};

struct td_view {
	const struct td_rep_set *set;
	struct td_table tables[2];
	int nr_tables;
	int level;                     /* highest TopDown level any row has */
	struct td_row total;           /* every shown thread of every process */
	char why_no_topdown[512];      /* backends' reasons when level is 0 */
};

int td_merge_parse_by(const char *s, enum td_merge_by *out);
/* 0 if key is a known sort key, else -EINVAL. */
int td_merge_check_sort(const char *key);
/* Builds v. 0, or -1 with a message in err (out of memory). */
int td_merge_view(const struct td_rep_set *set, const struct td_merge_opts *o, struct td_view *v,
		  char *err, size_t errlen);
void td_merge_view_exit(struct td_view *v);

/* The call-site chain of r as "sym+0x1a (module) < ..." into buf. */
void td_merge_callsite_str(const struct td_rep_region *r, char *buf, size_t n);

#endif
