/* Replays the committed fuzz corpora (tests/fuzz/corpus-*) through the two
 * fuzz targets: the config parser and the report reader. In ./scripts/test
 * this runs in the normal and the ASan+UBSan builds; scripts/fuzz grows the
 * corpora with libFuzzer. */
#include "../fuzz/fuzz_config.c"
#include "../fuzz/fuzz_report.c"

#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>

static int replay(const char *dir, int (*one)(const uint8_t *, size_t))
{
	DIR *d = opendir(dir);
	cr_assert(d, "%s: corpus directory missing", dir);
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char path[512];
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		FILE *f = fopen(path, "rb");
		cr_assert(f, "%s", path);
		static uint8_t buf[1 << 20];
		size_t len = fread(buf, 1, sizeof(buf), f);
		fclose(f);
		one(buf, len);
		n++;
	}
	closedir(d);
	return n;
}

Test(fuzz_replay, config_corpus)
{
	int n = replay("../fuzz/corpus-config", td_fuzz_config_one);
	cr_expect_geq(n, 20, "only %d inputs", n);
}

Test(fuzz_replay, report_corpus)
{
	int n = replay("../fuzz/corpus-report", td_fuzz_report_one);
	cr_expect_geq(n, 20, "only %d inputs", n);
}
