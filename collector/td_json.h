/* td_json: a small streaming JSON writer over a FILE*, with the comma and
 * nesting bookkeeping done here. Not for hot paths (stdio). */
#ifndef TD_JSON_H
#define TD_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define TD_JSON_MAX_DEPTH 32

struct td_json {
	FILE *f;
	int depth;
	bool first[TD_JSON_MAX_DEPTH]; /* no member written yet at this level */
	bool after_key;                /* a key was written, its value comes next */
	int pretty;                    /* indent with newlines */
};

void td_json_init(struct td_json *j, FILE *f, int pretty);
void td_json_object_begin(struct td_json *j);
void td_json_object_end(struct td_json *j);
void td_json_array_begin(struct td_json *j);
void td_json_array_end(struct td_json *j);
void td_json_key(struct td_json *j, const char *key);
void td_json_string(struct td_json *j, const char *s);
void td_json_uint(struct td_json *j, uint64_t v);
void td_json_int(struct td_json *j, int64_t v);
void td_json_double(struct td_json *j, double v); /* non-finite -> null */
void td_json_bool(struct td_json *j, bool v);
void td_json_null(struct td_json *j);

/* Shorthands for "key": value members. */
void td_json_kv_string(struct td_json *j, const char *key, const char *s);
void td_json_kv_uint(struct td_json *j, const char *key, uint64_t v);
void td_json_kv_int(struct td_json *j, const char *key, int64_t v);
void td_json_kv_double(struct td_json *j, const char *key, double v);
void td_json_kv_bool(struct td_json *j, const char *key, bool v);

#endif
