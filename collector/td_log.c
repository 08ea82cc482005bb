#include "td_log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Process-wide verbosity: read once at startup, then only read. */
static enum td_log_level td_log_level_now = TD_LOG_INFO;

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
	if (level > td_log_level_now || td_log_level_now == TD_LOG_QUIET)
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
	ssize_t w = write(STDERR_FILENO, buf, len);
	(void)w;
	errno = saved;
}
