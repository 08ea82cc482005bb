/* td_report_file: where the report goes and how it gets there safely.
 * The path pattern is expanded (%p pid, %h host, %t start time, %% a '%'),
 * the file is created under a temporary name with O_EXCL|O_NOFOLLOW (a
 * symlink planted at either name is never followed) and renamed into place.
 * An unwritable directory falls back to $TMPDIR or /tmp, said in `why`. */
#ifndef TD_REPORT_FILE_H
#define TD_REPORT_FILE_H

#include "td_collector.h"

#include <stddef.h>
#include <stdio.h>

/* Expands pattern into out. Returns 0, or -ENAMETOOLONG. */
int td_report_path_expand(const char *pattern, pid_t pid, const char *host, uint64_t start_unix_s,
			  const char *cwd, char *out, size_t outlen);

/* Opens the temporary file for c's report; final_path receives the final
 * name. why receives a one-line note (fallback location) or "". */
FILE *td_report_file_open(struct td_collector *c, char *final_path, size_t len, char *why,
			  size_t whylen);

/* Flushes and closes f and renames its temporary name to final_path. If
 * final_path holds a report of this same pid (an earlier image before
 * exec), the new one takes the next free ".N" name instead; final_path is
 * updated. 0 or -errno with why. */
int td_report_file_commit(FILE *f, char *final_path, char *why, size_t whylen);

#endif
