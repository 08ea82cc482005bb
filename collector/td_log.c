#include "td_log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Process-wide verbosity: read once at startup, then only read. */
static enum td_log_level td_log_level_now = TD_LOG_INFO;

/* Where messages go, and what that fd was when we chose it. */
static int td_log_fd = STDERR_FILENO;
static bool td_log_known; /* identity recorded */
static dev_t td_log_dev;
static ino_t td_log_ino;

void td_log_init(const char *log_fd_env)
{
	struct stat st;
	int fd = STDERR_FILENO;
	if (log_fd_env && log_fd_env[0]) {
		char *end;
		long v = strtol(log_fd_env, &end, 10);
		if (*end == '\0' && v >= 0 && v < 65536 && fstat((int)v, &st) == 0)
			fd = (int)v;
	}
	td_log_fd = fd;
	td_log_known = fstat(fd, &st) == 0;
	if (td_log_known) {
		td_log_dev = st.st_dev;
		td_log_ino = st.st_ino;
	} else {
		td_log_fd = -1; /* no stderr at startup: stay silent */
	}
}

/* Is the log fd still the file it was at startup? */
static bool td_log_fd_same(void)
{
	struct stat st;
	if (td_log_fd < 0)
		return false;
	if (!td_log_known)
		return true; /* td_log_init not called (unit tests): plain stderr */
	return fstat(td_log_fd, &st) == 0 && st.st_dev == td_log_dev && st.st_ino == td_log_ino;
}

void td_log_set_level(enum td_log_level level) { td_log_level_now = level; }
enum td_log_level td_log_get_level(void) { return td_log_level_now; }

int td_log_parse_level(const char *s, enum td_log_level *out)
{
	static const struct { const char *name; enum td_log_level level; } names[] = {
		{ "quiet", TD_LOG_QUIET }, { "error", TD_LOG_ERROR },
		{ "info", TD_LOG_INFO },   { "debug", TD_LOG_DEBUG },
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (strcmp(s, names[i].name) == 0) {
			*out = names[i].level;
			return 0;
		}
	}
	return -EINVAL;
}

void td_log(enum td_log_level level, const char *fmt, ...)
{
	char buf[1024];
	int saved = errno;
	if (level > td_log_level_now || td_log_level_now == TD_LOG_QUIET || !td_log_fd_same())
		return;
	memcpy(buf, "tdprobe: ", 9);
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf + 9, sizeof(buf) - 10, fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	size_t len = 9 + ((size_t)n < sizeof(buf) - 10 ? (size_t)n : sizeof(buf) - 11);
	buf[len++] = '\n';
	ssize_t w = write(td_log_fd, buf, len);
	(void)w;
	errno = saved;
}
