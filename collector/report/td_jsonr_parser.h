/* td_jsonr_parser: the parser state shared by td_jsonr.c (structure,
 * numbers, the document) and td_jsonr_string.c (string decoding). Not a
 * public header: td_jsonr.h is the reader's interface. */
#ifndef TD_JSONR_PARSER_H
#define TD_JSONR_PARSER_H

#include "td_jsonr.h"

#include <stdbool.h>
#include <stddef.h>

/* Arena: chunks chained for freeing; allocations never move. */
struct td_arena_chunk {
	struct td_arena_chunk *next;
	size_t used, size;
	_Alignas(16) unsigned char data[];
};

struct td_jsonr_doc {
	struct td_arena_chunk *chunks;
	struct td_jsonr_value root;
};

struct td_jsonr_parser {
	const char *p, *end, *line_start;
	unsigned line;
	unsigned depth;
	size_t values;
	const struct td_jsonr_limits *lim;
	struct td_jsonr_doc *doc;
	char *err;
	size_t errlen;
	bool failed;
	const char *str_start; /* opening quote of the string being read */
	char *sbuf;         /* scratch for decoding strings */
	size_t sbuf_size;
};

/* Allocates n bytes (16-aligned) that live as long as doc. NULL on ENOMEM. */
void *td_arena_alloc(struct td_jsonr_doc *doc, size_t n);
/* Records the first error with its line and column; later ones are dropped. */
void td_jsonr_fail(struct td_jsonr_parser *ps, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void td_jsonr_oom(struct td_jsonr_parser *ps);
/* Describes the character at the parse position for messages. */
const char *td_jsonr_what(const struct td_jsonr_parser *ps, char *buf, size_t n);
/* Reads a JSON string at ps->p (its opening quote) into the arena. */
bool td_jsonr_parse_string(struct td_jsonr_parser *ps, const char **out, size_t *out_len);

#endif
