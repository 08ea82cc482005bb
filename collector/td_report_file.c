#include "td_report_file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int td_report_path_expand(const char *pattern, pid_t pid, const char *host, uint64_t start_unix_s,
			  const char *cwd, char *out, size_t outlen)
{
	size_t o = 0;
	char tmp[64];
	if (pattern[0] != '/' && cwd && cwd[0]) {
		int n = snprintf(out, outlen, "%s/", cwd);
		if (n < 0 || (size_t)n >= outlen)
			return -ENAMETOOLONG;
		o = (size_t)n;
	}
	for (const char *p = pattern; *p; p++) {
		const char *add = NULL;
		char one[2] = { *p, 0 };
		if (*p == '%' && p[1]) {
			p++;
			switch (*p) {
			case 'p': snprintf(tmp, sizeof(tmp), "%d", (int)pid); add = tmp; break;
			case 'h': add = host; break;
			case 't': snprintf(tmp, sizeof(tmp), "%llu", (unsigned long long)start_unix_s); add = tmp; break;
			case '%': add = "%"; break;
			default: one[0] = '%'; add = one; p--; break;
			}
		} else {
			add = one;
		}
		size_t n = strlen(add);
		if (o + n >= outlen)
			return -ENAMETOOLONG;
		memcpy(out + o, add, n);
		o += n;
	}
	out[o] = '\0';
	return 0;
}

/* Temporary names live next to the final one so rename stays atomic. */
static char td_report_tmp[PATH_MAX + 64];

static FILE *td_report_try_open(const char *final_path, mode_t mode)
{
	for (int attempt = 0; attempt < 16; attempt++) {
		snprintf(td_report_tmp, sizeof(td_report_tmp), "%s.tmp.%d.%d", final_path,
			 (int)getpid(), attempt);
		int fd = open(td_report_tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
		if (fd < 0) {
			if (errno == EEXIST)
				continue; /* planted or stale: never reuse it */
			return NULL;
		}
		/* O_CREAT applies the umask; the configured mode is what the user asked for. */
		fchmod(fd, mode);
		FILE *f = fdopen(fd, "w");
		if (!f) {
			int e = errno;
			close(fd);
			unlink(td_report_tmp);
			errno = e;
		}
		return f;
	}
	errno = EEXIST;
	return NULL;
}

FILE *td_report_file_open(struct td_collector *c, char *final_path, size_t len, char *why,
			  size_t whylen)
{
	char host[256] = "";
	gethostname(host, sizeof(host) - 1);
	why[0] = '\0';
	if (td_report_path_expand(c->cfg.output_path, c->pid, host, c->start_realtime_ns / 1000000000u,
				  c->cwd, final_path, len) != 0) {
		snprintf(why, whylen, "%s: path too long", c->cfg.output_path);
		return NULL;
	}
	mode_t mode = (mode_t)c->cfg.file_mode;
	FILE *f = td_report_try_open(final_path, mode);
	if (f)
		return f;
	int e = errno;
	/* Unwritable directory: keep the file name, change the place. */
	char first[PATH_MAX + 64];
	snprintf(first, sizeof(first), "%s", final_path);
	const char *base = strrchr(first, '/');
	base = base ? base + 1 : first;
	const char *dir = getenv("TMPDIR");
	if (!dir || dir[0] != '/')
		dir = "/tmp";
	if ((size_t)snprintf(final_path, len, "%s/%s", dir, base) >= len)
		return NULL;
	f = td_report_try_open(final_path, mode);
	if (!f) {
		snprintf(why, whylen, "%s: %s; %s: %s", first, strerror(e), final_path, strerror(errno));
		return NULL;
	}
	snprintf(why, whylen, "cannot create %s (%s); writing the report to %s instead", first,
		 strerror(e), final_path);
	return f;
}

/* Does path hold a report written by this pid (an image before exec)? */
static int td_report_same_pid(const char *path)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return 0;
	char buf[1024], key[48];
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	snprintf(key, sizeof(key), "\"pid\": %d,", (int)getpid());
	return strstr(buf, key) != NULL;
}

int td_report_file_commit(FILE *f, char *final_path, char *why, size_t whylen)
{
	int bad = ferror(f);
	if (fclose(f) != 0 || bad) {
		snprintf(why, whylen, "write error: %s", strerror(errno));
		unlink(td_report_tmp);
		return -EIO;
	}
	if (td_report_same_pid(final_path)) {
		char alt[PATH_MAX];
		const char *dot = strrchr(final_path, '.');
		const char *slash = strrchr(final_path, '/');
		size_t stem = (dot && (!slash || dot > slash)) ? (size_t)(dot - final_path) : strlen(final_path);
		for (int k = 1; k < 1000; k++) {
			if ((size_t)snprintf(alt, sizeof(alt), "%.*s.%d%s", (int)stem, final_path, k,
					     final_path + stem) >= sizeof(alt))
				break;
			/* link() fails rather than replace: an earlier image keeps its report. */
			if (link(td_report_tmp, alt) == 0) {
				unlink(td_report_tmp);
				memcpy(final_path, alt, strlen(alt) + 1);
				return 0;
			}
			if (errno != EEXIST)
				break;
		}
	}
	if (rename(td_report_tmp, final_path) != 0) {
		int e = errno;
		snprintf(why, whylen, "rename %s: %s", td_report_tmp, strerror(e));
		unlink(td_report_tmp);
		return -e;
	}
	return 0;
}
