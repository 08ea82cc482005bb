/* td_render: the report formats. Each writes a whole document for one view
 * to f and returns 0, or -errno when writing failed. */
#ifndef TD_RENDER_H
#define TD_RENDER_H

#include "td_merge.h"

#include <stdio.h>

#define TD_RENDER_WIDTH 120 /* the text table never exceeds this */

int td_render_text(FILE *f, const struct td_view *v);
int td_render_csv(FILE *f, const struct td_view *v);
int td_render_json(FILE *f, const struct td_view *v, const char *by);
int td_render_html(FILE *f, const struct td_view *v);

/* Shared helpers. */
/* Human command line of a process ("xz -T2 -k f"), clipped to n bytes. */
void td_render_command(const struct td_rep_proc *p, char *buf, size_t n);
/* The one-line description of the figures' source for v ("backend perf ..."). */
void td_render_source_line(const struct td_view *v, char *buf, size_t n);

#endif
