/* td_jsonr: a small strict JSON reader building a read-only tree (DOM).
 *
 * Strict RFC 8259: no comments, no trailing commas, no leading zeros, no
 * NaN/Infinity, valid escapes and UTF-8 only, no duplicate keys, nothing
 * after the top-level value. Input size, nesting depth, string length and
 * value count are bounded by td_jsonr_limits, so hostile files fail with a
 * message instead of exhausting memory or the stack (the parser recurses
 * once per nesting level). All values of a document live in one arena
 * freed by td_jsonr_delete. Not thread-safe per document; documents are
 * independent. */
#ifndef TD_JSONR_H
#define TD_JSONR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum td_jsonr_type {
	TD_JSONR_NULL,
	TD_JSONR_BOOL,
	TD_JSONR_NUMBER,
	TD_JSONR_STRING,
	TD_JSONR_ARRAY,
	TD_JSONR_OBJECT,
};

struct td_jsonr_member;

struct td_jsonr_value {
	enum td_jsonr_type type;
	unsigned line;              /* where the value starts, for messages */
	union {
		bool b;
		struct {
			double d;       /* always set */
			uint64_t u;     /* exact value when is_uint */
			int64_t i;      /* exact value when is_int */
			bool is_uint;   /* integer literal in [0, 2^64) */
			bool is_int;    /* integer literal in [-2^63, 2^63) */
		} num;
		struct {
			const char *s;  /* NUL-terminated UTF-8 (may hold \u0000 as NUL) */
			size_t len;
		} str;
		struct {
			struct td_jsonr_value *items;
			size_t n;
		} arr;
		struct {
			struct td_jsonr_member *members; /* in file order */
			size_t n;
		} obj;
	};
};

struct td_jsonr_member {
	const char *key;
	size_t key_len;
	struct td_jsonr_value value;
};

struct td_jsonr_limits {
	size_t max_bytes;   /* input size */
	unsigned max_depth; /* nesting of arrays/objects */
	size_t max_string;  /* bytes of one decoded string */
	size_t max_values;  /* values in the document */
};

/* Defaults: 256 MiB, depth 64, strings 1 MiB, 16 M values. */
extern const struct td_jsonr_limits td_jsonr_default_limits;

struct td_jsonr_doc;

/* Parses len bytes of text. Returns the document, or NULL with one line
 * "line L, column C: what is wrong" in err (or "out of memory"). lim NULL
 * means the defaults. */
struct td_jsonr_doc *td_jsonr_parse(const char *text, size_t len,
				    const struct td_jsonr_limits *lim, char *err, size_t errlen);

/* Reads and parses a file. NULL with "PATH: ..." in err on failure. */
struct td_jsonr_doc *td_jsonr_load(const char *path, const struct td_jsonr_limits *lim,
				   char *err, size_t errlen);

void td_jsonr_delete(struct td_jsonr_doc *doc);

const struct td_jsonr_value *td_jsonr_root(const struct td_jsonr_doc *doc);

/* Object member by key, or NULL (also when v is NULL or not an object). */
const struct td_jsonr_value *td_jsonr_get(const struct td_jsonr_value *v, const char *key);

/* Typed accessors: 0 on success, -EINVAL when v is absent or of another
 * type (or, for u64/i64, not an exact integer in range). */
int td_jsonr_u64(const struct td_jsonr_value *v, uint64_t *out);
int td_jsonr_i64(const struct td_jsonr_value *v, int64_t *out);
int td_jsonr_num(const struct td_jsonr_value *v, double *out);
const char *td_jsonr_str(const struct td_jsonr_value *v); /* NULL if not a string */

/* Name of a type, for messages. */
const char *td_jsonr_type_name(enum td_jsonr_type t);

#endif
