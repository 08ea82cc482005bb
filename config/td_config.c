#include "td_config.h"

#include "../collector/td_log.h"

#include <errno.h>
#include <ini.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum td_cfg_type { T_BOOL, T_UINT, T_STR, T_LIST, T_ENUM_BACKEND, T_ENUM_RESET, T_ENUM_LOG };

struct td_cfg_key {
	const char *section;
	const char *key;
	enum td_cfg_type type;
	size_t offset;
	const char *def;
	unsigned long lo, hi;
};

static const struct td_cfg_key td_cfg_keys[] = {
#define TD_CFG(section, key, type, field, def, lo, hi, help)                                    \
	{ #section, #key, T_##type, offsetof(struct td_config, field), def, lo, hi },
#include "td_config.def"
#undef TD_CFG
};
#define TD_CFG_NKEYS (sizeof(td_cfg_keys) / sizeof(td_cfg_keys[0]))
_Static_assert(TD_CFG_NKEYS <= sizeof(((struct td_config *)0)->seen), "seen[] too small");

static const char *const td_backend_names[] = { "auto", "rdpmc", "perf", "software", "emulate", "none" };
static const char *const td_reset_names[] = { "outermost", "interval", "never" };
static const char *const td_log_names[] = { "quiet", "error", "info", "debug" };

const char *td_config_backend_name(enum td_backend_kind kind) { return td_backend_names[kind]; }
const char *td_config_reset_name(enum td_reset_policy policy) { return td_reset_names[policy]; }

static int td_cfg_enum(const char *const *names, size_t n, const char *value)
{
	for (size_t i = 0; i < n; i++)
		if (strcasecmp(value, names[i]) == 0)
			return (int)i;
	return -1;
}

/* Parses value into the field k describes. On error returns -1 and puts the
 * reason (without location) into why. */
static int td_cfg_set(struct td_config *cfg, const struct td_cfg_key *k, const char *value,
		      char *why, size_t whylen)
{
	void *field = (char *)cfg + k->offset;
	switch (k->type) {
	case T_BOOL: {
		static const char *const yes[] = { "yes", "true", "on", "1" };
		static const char *const no[] = { "no", "false", "off", "0" };
		int y = td_cfg_enum(yes, 4, value), n = td_cfg_enum(no, 4, value);
		if (y < 0 && n < 0) {
			snprintf(why, whylen, "%s: expected yes or no, got '%s'", k->key, value);
			return -1;
		}
		*(bool *)field = y >= 0;
		return 0;
	}
	case T_UINT: {
		char *end;
		errno = 0;
		if (value[0] == '-' || value[0] == '\0') {
			snprintf(why, whylen, "%s: expected a number, got '%s'", k->key, value);
			return -1;
		}
		unsigned long v = strtoul(value, &end, 0);
		if (errno || *end != '\0') {
			snprintf(why, whylen, "%s: expected a number, got '%s'", k->key, value);
			return -1;
		}
		if (k->lo != k->hi && (v < k->lo || v > k->hi)) {
			snprintf(why, whylen, "%s: %lu is out of range %lu..%lu", k->key, v, k->lo,
				 k->hi);
			return -1;
		}
		*(unsigned long *)field = v;
		return 0;
	}
	case T_STR:
	case T_LIST: {
		char *copy = strdup(value);
		if (!copy) {
			snprintf(why, whylen, "%s: out of memory", k->key);
			return -1;
		}
		free(*(char **)field);
		*(char **)field = copy;
		return 0;
	}
	case T_ENUM_BACKEND:
	case T_ENUM_RESET:
	case T_ENUM_LOG: {
		const char *const *names = k->type == T_ENUM_BACKEND ? td_backend_names
					   : k->type == T_ENUM_RESET ? td_reset_names
								     : td_log_names;
		size_t n = k->type == T_ENUM_BACKEND ? 6 : k->type == T_ENUM_RESET ? 3 : 4;
		int v = td_cfg_enum(names, n, value);
		if (v < 0) {
			int off = snprintf(why, whylen, "%s: '%s' is not one of", k->key, value);
			for (size_t i = 0; i < n && off > 0 && (size_t)off < whylen; i++)
				off += snprintf(why + off, whylen - off, "%s %s", i ? "," : "",
						names[i]);
			return -1;
		}
		*(int *)field = v;
		return 0;
	}
	}
	return -1;
}

int td_config_init(struct td_config *cfg)
{
	char why[128];
	memset(cfg, 0, sizeof(*cfg));
	for (size_t i = 0; i < TD_CFG_NKEYS; i++)
		if (td_cfg_set(cfg, &td_cfg_keys[i], td_cfg_keys[i].def, why, sizeof(why)) < 0) {
			td_config_exit(cfg);
			return -ENOMEM;
		}
	cfg->source = strdup("built-in defaults");
	if (!cfg->source) {
		td_config_exit(cfg);
		return -ENOMEM;
	}
	return 0;
}

void td_config_exit(struct td_config *cfg)
{
	for (size_t i = 0; i < TD_CFG_NKEYS; i++) {
		if (td_cfg_keys[i].type == T_STR || td_cfg_keys[i].type == T_LIST) {
			char **p = (char **)((char *)cfg + td_cfg_keys[i].offset);
			free(*p);
			*p = NULL;
		}
	}
	free(cfg->mode);
	free(cfg->source);
	cfg->mode = cfg->source = NULL;
}

/* inih handler state. inih reports the first bad line but not why; our
 * reader counts lines so the handler can record where its error was. */
struct td_cfg_parse {
	struct td_config *cfg;
	FILE *f;          /* file input, or */
	const char *text; /* in-memory input */
	int line;         /* lines read so far */
	int failed_line;  /* line of the handler's first error, 0 if none */
	char why[256];
	int failed;
};

static char *td_cfg_reader(char *str, int num, void *stream)
{
	struct td_cfg_parse *p = stream;
	char *r = NULL;
	if (p->f) {
		r = fgets(str, num, p->f);
	} else if (p->text && *p->text) {
		int n = 0;
		while (n < num - 1 && p->text[n] && p->text[n] != '\n')
			n++;
		if (p->text[n] == '\n' && n < num - 1)
			n++;
		memcpy(str, p->text, (size_t)n);
		str[n] = '\0';
		p->text += n;
		r = str;
	}
	if (r)
		p->line++;
	return r;
}

static int td_cfg_handler(void *user, const char *section, const char *name, const char *value)
{
	struct td_cfg_parse *p = user;
	bool section_known = false;
	for (size_t i = 0; i < TD_CFG_NKEYS; i++) {
		const struct td_cfg_key *k = &td_cfg_keys[i];
		if (strcmp(section, k->section) != 0)
			continue;
		section_known = true;
		if (strcmp(name, k->key) != 0)
			continue;
		if (p->cfg->seen[i]) {
			if (!p->failed) {
				p->failed_line = p->line;
				snprintf(p->why, sizeof(p->why), "%s: duplicate key in [%s]", name,
					 section);
			}
			p->failed = 1;
			return 0; /* inih: zero means error */
		}
		p->cfg->seen[i] = 1;
		char why[200];
		if (td_cfg_set(p->cfg, k, value, why, sizeof(why)) < 0) {
			if (!p->failed) {
				p->failed_line = p->line;
				snprintf(p->why, sizeof(p->why), "%s", why);
			}
			p->failed = 1;
			return 0;
		}
		return 1;
	}
	if (!p->failed) {
		p->failed_line = p->line;
		if (!section_known)
			snprintf(p->why, sizeof(p->why), "unknown section [%s]",
				 section[0] ? section : "(none)");
		else
			snprintf(p->why, sizeof(p->why), "unknown key '%s' in [%s]", name, section);
	}
	p->failed = 1;
	return 0;
}

static int td_cfg_finish(struct td_config *cfg, const char *name, int rc,
			 struct td_cfg_parse *p, char *err, size_t errlen)
{
	if (rc == -1) {
		snprintf(err, errlen, "%s: %s", name, strerror(errno ? errno : ENOENT));
		return -1;
	}
	if (rc == -2) {
		snprintf(err, errlen, "%s: out of memory", name);
		return -1;
	}
	if (rc > 0) {
		/* A handler error carries its reason; otherwise inih found bad syntax. */
		if (p->failed && p->failed_line == rc)
			snprintf(err, errlen, "%s:%d: %s", name, rc, p->why);
		else
			snprintf(err, errlen, "%s:%d: syntax error (expected [section] or key = value)",
				 name, rc);
		return -1;
	}
	char *src = strdup(name);
	if (src) {
		free(cfg->source);
		cfg->source = src;
	}
	return 0;
}

int td_config_load_file(struct td_config *cfg, const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "re");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	struct td_cfg_parse p = { .cfg = cfg, .f = f };
	int rc = ini_parse_stream(td_cfg_reader, &p, td_cfg_handler, &p);
	fclose(f);
	return td_cfg_finish(cfg, path, rc, &p, err, errlen);
}

int td_config_load_string(struct td_config *cfg, const char *name, const char *text, char *err,
			  size_t errlen)
{
	struct td_cfg_parse p = { .cfg = cfg, .text = text };
	int rc = ini_parse_stream(td_cfg_reader, &p, td_cfg_handler, &p);
	return td_cfg_finish(cfg, name, rc, &p, err, errlen);
}

static const struct td_cfg_key *td_cfg_find(const char *section, const char *key)
{
	for (size_t i = 0; i < TD_CFG_NKEYS; i++)
		if (!strcmp(td_cfg_keys[i].section, section) && !strcmp(td_cfg_keys[i].key, key))
			return &td_cfg_keys[i];
	return NULL;
}

int td_config_apply_env(struct td_config *cfg, const char *(*getenv_fn)(const char *name),
			char *err, size_t errlen)
{
	/* Environment variable -> config key it overrides. */
	static const struct { const char *var, *section, *key; } env_keys[] = {
		{ "TDPROBE_OUTPUT", "output", "path" },
		{ "TDPROBE_BACKEND", "counters", "backend" },
		{ "TDPROBE_EVENTS", "counters", "events" },
		{ "TDPROBE_REGIONS", "regions", "functions" },
		{ "TDPROBE_DEPTH", "regions", "callsite_depth" },
		{ "TDPROBE_LEVEL", "topdown", "level" },
		{ "TDPROBE_INTERVAL", "output", "interval_ms" },
		{ "TDPROBE_SUMMARY", "output", "summary" },
		{ "TDPROBE_EMULATE", "emulate", "fractions" },
		{ "TDPROBE_LOG", "general", "log" },
		{ "TDPROBE_STRICT", "general", "strict" },
		{ "TDPROBE_ON_SIGNAL", "output", "on_signal" },
	};
	for (size_t i = 0; i < sizeof(env_keys) / sizeof(env_keys[0]); i++) {
		const char *v = getenv_fn(env_keys[i].var);
		if (!v)
			continue;
		const struct td_cfg_key *k = td_cfg_find(env_keys[i].section, env_keys[i].key);
		char why[200];
		if (td_cfg_set(cfg, k, v, why, sizeof(why)) < 0) {
			snprintf(err, errlen, "%s: %s", env_keys[i].var, why);
			return -1;
		}
	}
	const char *d = getenv_fn("TDPROBE_DISABLE");
	if (d && d[0] && strcmp(d, "0") != 0)
		cfg->disabled = true;
	const char *m = getenv_fn("TDPROBE_MODE");
	if (m && m[0]) {
		if (strcmp(m, "check") && strcmp(m, "list") && strcmp(m, "run")) {
			snprintf(err, errlen, "TDPROBE_MODE: '%s' is not one of run, check, list", m);
			return -1;
		}
		free(cfg->mode);
		cfg->mode = strcmp(m, "run") ? strdup(m) : NULL;
	}
	return 0;
}

const char *td_config_list_next(const char **pos, char *item, size_t itemlen)
{
	const char *p = *pos;
	if (!p)
		return NULL;
	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == ',')
			p++;
		if (*p == '\0') {
			*pos = p;
			return NULL;
		}
		const char *end = p;
		while (*end && *end != ',')
			end++;
		const char *last = end;
		while (last > p && (last[-1] == ' ' || last[-1] == '\t'))
			last--;
		size_t n = (size_t)(last - p);
		if (n >= itemlen)
			n = itemlen - 1;
		memcpy(item, p, n);
		item[n] = '\0';
		*pos = end;
		return item;
	}
}

void td_config_dump(const struct td_config *cfg, void (*line)(void *arg, const char *s),
		    void *arg)
{
	char buf[512];
	for (size_t i = 0; i < TD_CFG_NKEYS; i++) {
		const struct td_cfg_key *k = &td_cfg_keys[i];
		const void *field = (const char *)cfg + k->offset;
		int n = snprintf(buf, sizeof(buf), "%s.%s = ", k->section, k->key);
		char *v = buf + n;
		size_t left = sizeof(buf) - (size_t)n;
		switch (k->type) {
		case T_BOOL: snprintf(v, left, "%s", *(const bool *)field ? "yes" : "no"); break;
		case T_UINT:
			snprintf(v, left, k->offset == offsetof(struct td_config, file_mode) ? "0%lo" : "%lu",
				 *(const unsigned long *)field);
			break;
		case T_STR:
		case T_LIST: snprintf(v, left, "%s", *(char *const *)field ? *(char *const *)field : ""); break;
		case T_ENUM_BACKEND: snprintf(v, left, "%s", td_backend_names[*(const int *)field]); break;
		case T_ENUM_RESET: snprintf(v, left, "%s", td_reset_names[*(const int *)field]); break;
		case T_ENUM_LOG: snprintf(v, left, "%s", td_log_names[*(const int *)field]); break;
		}
		line(arg, buf);
	}
}
