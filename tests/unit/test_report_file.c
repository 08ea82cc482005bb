/* collector/td_report_file: path patterns, atomic creation under a temporary
 * name, symlinks never followed, same-pid reports never overwritten, the
 * fallback directory. */
#include "td_report_file.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[64];
static struct td_collector coll;

static void setup(void)
{
	strcpy(dir, "/tmp/td-rf-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	memset(&coll, 0, sizeof(coll));
	cr_assert_eq(td_config_init(&coll.cfg), 0);
	coll.pid = getpid();
	coll.start_realtime_ns = 1700000000ull * 1000000000ull;
	snprintf(coll.cwd, sizeof(coll.cwd), "%s", dir);
}

static void teardown(void)
{
	td_config_exit(&coll.cfg);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	cr_expect_eq(system(cmd), 0);
}

TestSuite(report_file, .init = setup, .fini = teardown);

static void set_pattern(const char *p)
{
	free(coll.cfg.output_path);
	coll.cfg.output_path = strdup(p);
}

static char *slurp(const char *path)
{
	static char buf[4096];
	FILE *f = fopen(path, "r");
	cr_assert_not_null(f, "%s: %s", path, strerror(errno));
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = 0;
	fclose(f);
	return buf;
}

Test(report_file, pattern_expansion)
{
	char out[256];
	cr_expect_eq(td_report_path_expand("r-%p-%h-%t-%%-%x.json", 42, "box", 17, "/w", out, sizeof(out)), 0);
	cr_expect_str_eq(out, "/w/r-42-box-17-%-%x.json");
	cr_expect_eq(td_report_path_expand("/abs/%p", 7, "h", 0, "/w", out, sizeof(out)), 0);
	cr_expect_str_eq(out, "/abs/7");
	cr_expect_eq(td_report_path_expand("%h%h%h", 1, "0123456789", 0, NULL, out, 16), -ENAMETOOLONG);
}

Test(report_file, written_atomically_with_mode)
{
	char final[4096], why[256];
	set_pattern("rep-%p.json");
	coll.cfg.file_mode = 0640;
	FILE *f = td_report_file_open(&coll, final, sizeof(final), why, sizeof(why));
	cr_assert_not_null(f, "%s", why);
	fputs("{\"pid\": 1}\n", f);
	/* Not visible under the final name until committed. */
	cr_expect_eq(access(final, F_OK), -1);
	cr_assert_eq(td_report_file_commit(f, final, why, sizeof(why)), 0, "%s", why);
	cr_expect_str_eq(slurp(final), "{\"pid\": 1}\n");
	struct stat st;
	cr_assert_eq(stat(final, &st), 0);
	cr_expect_eq(st.st_mode & 0777, 0640);
	char expect[4096];
	snprintf(expect, sizeof(expect), "%s/rep-%d.json", dir, (int)getpid());
	cr_expect_str_eq(final, expect);
}

Test(report_file, planted_symlink_at_final_name_is_replaced_not_followed)
{
	char final[4096], why[256], victim[128], link_path[4096];
	snprintf(victim, sizeof(victim), "%s/victim", dir);
	int fd = open(victim, O_CREAT | O_WRONLY, 0600);
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, "precious\n", 9), 9);
	close(fd);
	set_pattern("planted.json");
	snprintf(link_path, sizeof(link_path), "%s/planted.json", dir);
	cr_assert_eq(symlink(victim, link_path), 0);
	FILE *f = td_report_file_open(&coll, final, sizeof(final), why, sizeof(why));
	cr_assert_not_null(f);
	fputs("{}\n", f);
	cr_assert_eq(td_report_file_commit(f, final, why, sizeof(why)), 0, "%s", why);
	cr_expect_str_eq(slurp(victim), "precious\n");
	struct stat st;
	cr_assert_eq(lstat(final, &st), 0);
	cr_expect(S_ISREG(st.st_mode), "the final name is still a symlink");
}

Test(report_file, planted_symlink_at_temporary_name_is_skipped)
{
	char final[4096], why[256], victim[128], tmp[4096];
	snprintf(victim, sizeof(victim), "%s/victim2", dir);
	set_pattern("t.json");
	snprintf(tmp, sizeof(tmp), "%s/t.json.tmp.%d.0", dir, (int)getpid());
	cr_assert_eq(symlink(victim, tmp), 0);
	FILE *f = td_report_file_open(&coll, final, sizeof(final), why, sizeof(why));
	cr_assert_not_null(f);
	fputs("{}\n", f);
	cr_assert_eq(td_report_file_commit(f, final, why, sizeof(why)), 0, "%s", why);
	cr_expect_eq(access(victim, F_OK), -1, "the symlink's target was created");
}

Test(report_file, earlier_image_of_same_pid_keeps_its_report)
{
	char final[4096], why[256], first[4096];
	char body[64];
	snprintf(body, sizeof(body), "{\n  \"pid\": %d,\n}\n", (int)getpid());
	set_pattern("img.json");
	for (int k = 0; k < 3; k++) {
		FILE *f = td_report_file_open(&coll, final, sizeof(final), why, sizeof(why));
		cr_assert_not_null(f);
		fputs(body, f);
		fprintf(f, "image %d\n", k);
		cr_assert_eq(td_report_file_commit(f, final, why, sizeof(why)), 0, "%s", why);
		if (k == 0)
			strcpy(first, final);
	}
	cr_expect(strstr(slurp(first), "image 0"));
	char p[4096];
	snprintf(p, sizeof(p), "%s/img.1.json", dir);
	cr_expect(strstr(slurp(p), "image 1"));
	snprintf(p, sizeof(p), "%s/img.2.json", dir);
	cr_expect(strstr(slurp(p), "image 2"));
	cr_expect_str_eq(final, p);
}

Test(report_file, unwritable_directory_falls_back_to_tmpdir)
{
	char final[4096], why[512], tmpdir[128];
	set_pattern("/nonexistent-dir/x-%p.json");
	snprintf(tmpdir, sizeof(tmpdir), "%s", dir);
	setenv("TMPDIR", tmpdir, 1);
	FILE *f = td_report_file_open(&coll, final, sizeof(final), why, sizeof(why));
	cr_assert_not_null(f, "%s", why);
	cr_expect(strstr(why, "cannot create /nonexistent-dir/x-"), "%s", why);
	cr_expect(strstr(why, "writing the report to "), "%s", why);
	fputs("{}\n", f);
	cr_assert_eq(td_report_file_commit(f, final, why, sizeof(why)), 0, "%s", why);
	cr_expect_eq(strncmp(final, dir, strlen(dir)), 0, "%s", final);
	unsetenv("TMPDIR");
}
