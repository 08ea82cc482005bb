/* td_config: what the user asked for. Embedded defaults, an optional INI file
 * (TDPROBE_CONFIG) read with inih, then TDPROBE_* environment overrides.
 * Threading: filled once by startup, read-only afterwards. */
#ifndef TD_CONFIG_H
#define TD_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

enum td_backend_kind {
	TD_BACKEND_AUTO,
	TD_BACKEND_RDPMC,
	TD_BACKEND_PERF,
	TD_BACKEND_SOFTWARE,
	TD_BACKEND_EMULATE,
	TD_BACKEND_NONE, /* calls and call sites only: no clock, no counters */
};

enum td_reset_policy { TD_RESET_OUTERMOST, TD_RESET_INTERVAL, TD_RESET_NEVER };

#define TD_CFG_TYPE_BOOL bool
#define TD_CFG_TYPE_UINT unsigned long
#define TD_CFG_TYPE_STR char *
#define TD_CFG_TYPE_LIST char *
#define TD_CFG_TYPE_ENUM_BACKEND enum td_backend_kind
#define TD_CFG_TYPE_ENUM_RESET enum td_reset_policy
#define TD_CFG_TYPE_ENUM_LOG int

struct td_config {
#define TD_CFG(section, key, type, field, def, lo, hi, help) TD_CFG_TYPE_##type field;
#include "td_config.def"
#undef TD_CFG
	bool disabled;        /* TDPROBE_DISABLE=1 */
	char *mode;           /* TDPROBE_MODE: NULL, "check" or "list" */
	char *source;         /* file the config came from, or "built-in defaults" */
	char seen[64];        /* keys set by the file, for duplicate detection */
};

/* Fills cfg with the embedded defaults. Returns 0 or -ENOMEM. */
int td_config_init(struct td_config *cfg);
/* Frees the strings cfg owns. cfg may be zeroed or initialised. */
void td_config_exit(struct td_config *cfg);

/* Reads an INI file over cfg. On error returns -1 and writes one line
 * "<file>:<line>: <what is wrong>" (or "<file>: <strerror>") into err. */
int td_config_load_file(struct td_config *cfg, const char *path, char *err, size_t errlen);

/* Reads an INI text held in memory (for tests and the embedded default). */
int td_config_load_string(struct td_config *cfg, const char *name, const char *text, char *err,
			  size_t errlen);

/* Applies TDPROBE_* overrides read through getenv_fn (getenv in the
 * preload, a table in tests). Same error contract as td_config_load_file. */
int td_config_apply_env(struct td_config *cfg, const char *(*getenv_fn)(const char *name),
			char *err, size_t errlen);

/* Iterates a LIST value: returns the next trimmed item copied into item, or
 * NULL at the end. *pos starts at the list string. */
const char *td_config_list_next(const char **pos, char *item, size_t itemlen);

/* Writes "section.key = value" lines (the configuration actually used). */
void td_config_dump(const struct td_config *cfg, void (*line)(void *arg, const char *s),
		    void *arg);

const char *td_config_backend_name(enum td_backend_kind kind);
const char *td_config_reset_name(enum td_reset_policy policy);

#endif
