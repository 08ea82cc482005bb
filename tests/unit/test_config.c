/* config/td_config: defaults, every error path with its line number, env
 * overrides, list iteration, dump. Inputs are the .ini files in tests/unit/config. */
#include "td_config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct td_config cfg;
static char err[512];

static void setup(void) { cr_assert_eq(td_config_init(&cfg), 0); err[0] = 0; }
static void teardown(void) { td_config_exit(&cfg); }
TestSuite(config, .init = setup, .fini = teardown);

Test(config, defaults)
{
	cr_expect_eq(cfg.backend, TD_BACKEND_AUTO);
	cr_expect(cfg.exclude_kernel);
	cr_expect_eq(cfg.topdown_level, 2);
	cr_expect_eq(cfg.reset_policy, TD_RESET_OUTERMOST);
	cr_expect_eq(cfg.callsite_depth, 1);
	cr_expect_str_eq(cfg.output_path, "tdprobe-%p.json");
	cr_expect_eq(cfg.file_mode, 0600);
	cr_expect(cfg.summary);
	cr_expect_str_eq(cfg.functions, "");
	cr_expect_str_eq(cfg.source, "built-in defaults");
}

Test(config, good_file)
{
	cr_assert_eq(td_config_load_file(&cfg, "config/good.ini", err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(cfg.backend, TD_BACKEND_PERF);
	cr_expect_str_eq(cfg.events, "instructions, cycles");
	cr_expect_str_eq(cfg.functions, "SSL_read, deflate");
	cr_expect_eq(cfg.callsite_depth, 3);
	cr_expect_str_eq(cfg.output_path, "/tmp/r-%p.json");
	cr_expect(!cfg.summary);
	cr_expect_eq(cfg.file_mode, 0640);
	cr_expect_str_eq(cfg.source, "config/good.ini");
}

struct bad_case {
	const char *file;
	const char *message;
};

static const struct bad_case bad_cases[] = {
	{ "bad_section.ini", "config/bad_section.ini:4: unknown section [bogus]" },
	{ "unknown_key.ini", "config/unknown_key.ini:4: unknown key 'frobnicate' in [counters]" },
	{ "bad_number.ini", "config/bad_number.ini:2: callsite_depth: expected a number, got 'lots'" },
	{ "out_of_range.ini", "config/out_of_range.ini:2: callsite_depth: 99 is out of range 0..16" },
	{ "bad_enum.ini",
	  "config/bad_enum.ini:2: backend: 'gpu' is not one of auto, rdpmc, perf, software, emulate, "
	  "none" },
	{ "bad_bool.ini", "config/bad_bool.ini:2: summary: expected yes or no, got 'maybe'" },
	{ "duplicate.ini", "config/duplicate.ini:3: summary: duplicate key in [output]" },
	{ "bad_syntax.ini",
	  "config/bad_syntax.ini:1: syntax error (expected [section] or key = value)" },
	{ "no_section.ini", "config/no_section.ini:1: unknown section [(none)]" },
	{ "negative.ini", "config/negative.ini:2: level: expected a number, got '-1'" },
};

Test(config, every_error_names_file_line_and_reason)
{
	for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		struct td_config c;
		char path[128], e[512] = "";
		cr_assert_eq(td_config_init(&c), 0);
		snprintf(path, sizeof(path), "config/%s", bad_cases[i].file);
		cr_expect_eq(td_config_load_file(&c, path, e, sizeof(e)), -1, "%s accepted", path);
		cr_expect_str_eq(e, bad_cases[i].message);
		td_config_exit(&c);
	}
}

Test(config, unreadable_file_names_file_and_errno)
{
	cr_expect_eq(td_config_load_file(&cfg, "config/missing.ini", err, sizeof(err)), -1);
	cr_expect_str_eq(err, "config/missing.ini: No such file or directory");
}

Test(config, bom_is_accepted)
{
	cr_expect_eq(td_config_load_file(&cfg, "config/bom.ini", err, sizeof(err)), 0, "%s", err);
	cr_expect(!cfg.summary);
}

Test(config, strict_is_known_even_after_an_error)
{
	cr_expect_eq(td_config_load_file(&cfg, "config/strict_bad.ini", err, sizeof(err)), -1);
	cr_expect(cfg.strict);
	cr_expect_str_eq(err, "config/strict_bad.ini:4: backend: 'nope' is not one of auto, rdpmc, "
			      "perf, software, emulate, none");
}

Test(config, load_string)
{
	cr_expect_eq(td_config_load_string(&cfg, "<inline>", "[topdown]\nreset = never\n", err,
					   sizeof(err)), 0);
	cr_expect_eq(cfg.reset_policy, TD_RESET_NEVER);
	cr_expect_eq(td_config_load_string(&cfg, "<inline>", "[topdown]\nlevel = 3\n", err,
					   sizeof(err)), -1);
	cr_expect_str_eq(err, "<inline>:2: level: 3 is out of range 1..2");
}

/* A fake environment for td_config_apply_env. */
static const char *const *fake_env;
static const char *fake_getenv(const char *name)
{
	for (const char *const *p = fake_env; *p; p += 2)
		if (strcmp(p[0], name) == 0)
			return p[1];
	return NULL;
}

Test(config, env_overrides)
{
	static const char *const env[] = { "TDPROBE_OUTPUT", "out-%h.json", "TDPROBE_BACKEND",
					   "emulate", "TDPROBE_REGIONS", "a,b*",
					   "TDPROBE_DISABLE", "1", "TDPROBE_MODE", "check", NULL };
	fake_env = env;
	cr_assert_eq(td_config_apply_env(&cfg, fake_getenv, err, sizeof(err)), 0, "%s", err);
	cr_expect_str_eq(cfg.output_path, "out-%h.json");
	cr_expect_eq(cfg.backend, TD_BACKEND_EMULATE);
	cr_expect_str_eq(cfg.functions, "a,b*");
	cr_expect(cfg.disabled);
	cr_expect_str_eq(cfg.mode, "check");
}

Test(config, env_errors_name_the_variable)
{
	static const char *const env1[] = { "TDPROBE_BACKEND", "magic", NULL };
	fake_env = env1;
	cr_expect_eq(td_config_apply_env(&cfg, fake_getenv, err, sizeof(err)), -1);
	cr_expect_str_eq(err, "TDPROBE_BACKEND: backend: 'magic' is not one of auto, rdpmc, perf, "
			      "software, emulate, none");
	static const char *const env2[] = { "TDPROBE_MODE", "dance", NULL };
	fake_env = env2;
	cr_expect_eq(td_config_apply_env(&cfg, fake_getenv, err, sizeof(err)), -1);
	cr_expect_str_eq(err, "TDPROBE_MODE: 'dance' is not one of run, check, list");
	static const char *const env3[] = { "TDPROBE_DISABLE", "0", NULL };
	fake_env = env3;
	cr_expect_eq(td_config_apply_env(&cfg, fake_getenv, err, sizeof(err)), 0);
	cr_expect(!cfg.disabled);
}

Test(config, list_iteration_trims_and_skips_empty_items)
{
	const char *pos = " SSL_read ,, deflate,\tlzma_* ,";
	char item[64];
	cr_expect_str_eq(td_config_list_next(&pos, item, sizeof(item)), "SSL_read");
	cr_expect_str_eq(td_config_list_next(&pos, item, sizeof(item)), "deflate");
	cr_expect_str_eq(td_config_list_next(&pos, item, sizeof(item)), "lzma_*");
	cr_expect_null(td_config_list_next(&pos, item, sizeof(item)));
}

static void collect(void *arg, const char *s)
{
	char *buf = arg;
	strcat(buf, s);
	strcat(buf, "\n");
}

Test(config, dump_round_trips_values)
{
	static char buf[8192];
	buf[0] = 0;
	cr_assert_eq(td_config_load_file(&cfg, "config/good.ini", err, sizeof(err)), 0);
	td_config_dump(&cfg, collect, buf);
	cr_expect(strstr(buf, "counters.backend = perf\n"));
	cr_expect(strstr(buf, "output.mode = 0640\n"));
	cr_expect(strstr(buf, "regions.callsite_depth = 3\n"));
	cr_expect(strstr(buf, "topdown.reset = outermost\n"));
}

/* The commented sample documents every key with its default: loading it
 * must give exactly the built-in defaults. */
Test(config, sample_ini_documents_every_key_with_its_default)
{
	static char want[8192], got[8192];
	want[0] = got[0] = 0;
	td_config_dump(&cfg, collect, want);
	struct td_config c;
	cr_assert_eq(td_config_init(&c), 0);
	cr_assert_eq(td_config_load_file(&c, "../../tdprobe.ini", err, sizeof(err)), 0, "%s", err);
	td_config_dump(&c, collect, got);
	cr_expect_str_eq(got, want);
	int keys = 0;
	for (char *p = want; (p = strchr(p, '\n')); p++)
		keys++;
	int seen = 0;
	for (size_t i = 0; i < sizeof(c.seen); i++)
		seen += c.seen[i];
	cr_expect_eq(seen, keys, "tdprobe.ini sets %d of %d keys", seen, keys);
	td_config_exit(&c);
}
