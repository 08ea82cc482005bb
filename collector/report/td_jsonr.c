/* td_jsonr: strict recursive-descent JSON parser into an arena-held tree.
 * Recursion depth is bounded by limits.max_depth, checked before descending. */
#include "td_jsonr.h"
#include "td_jsonr_parser.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const struct td_jsonr_limits td_jsonr_default_limits = {
	.max_bytes = 256u << 20,
	.max_depth = 64,
	.max_string = 1u << 20,
	.max_values = 16u << 20,
};

void *td_arena_alloc(struct td_jsonr_doc *doc, size_t n)
{
	struct td_arena_chunk *c = doc->chunks;

	n = (n + 15) & ~(size_t)15;
	if (!c || c->size - c->used < n) {
		size_t size = n > 65536 ? n : 65536;

		c = malloc(sizeof(*c) + size);
		if (!c)
			return NULL;
		c->size = size;
		c->used = 0;
		c->next = doc->chunks;
		doc->chunks = c;
	}
	void *r = c->data + c->used;
	c->used += n;
	return r;
}

void td_jsonr_fail(struct td_jsonr_parser *ps, const char *fmt, ...)
{
	if (ps->failed)
		return;
	ps->failed = true;
	if (!ps->err || !ps->errlen)
		return;
	int n = snprintf(ps->err, ps->errlen, "line %u, column %zu: ", ps->line,
			 (size_t)(ps->p - ps->line_start) + 1);
	if (n < 0 || (size_t)n >= ps->errlen)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(ps->err + n, ps->errlen - n, fmt, ap);
	va_end(ap);
}

void td_jsonr_oom(struct td_jsonr_parser *ps)
{
	td_jsonr_fail(ps, "out of memory");
}

static void td_jsonr_skip_ws(struct td_jsonr_parser *ps)
{
	while (ps->p < ps->end) {
		char ch = *ps->p;

		if (ch == '\n') {
			ps->line++;
			ps->line_start = ps->p + 1;
		} else if (ch != ' ' && ch != '\t' && ch != '\r') {
			return;
		}
		ps->p++;
	}
}

/* Describes the character at p for messages. */
const char *td_jsonr_what(const struct td_jsonr_parser *ps, char *buf, size_t n)
{
	if (ps->p >= ps->end)
		return "end of input";
	unsigned char ch = (unsigned char)*ps->p;
	if (ch >= 0x20 && ch < 0x7f)
		snprintf(buf, n, "'%c'", ch);
	else
		snprintf(buf, n, "byte 0x%02x", ch);
	return buf;
}

static bool td_jsonr_parse_value(struct td_jsonr_parser *ps, struct td_jsonr_value *out);

static bool td_jsonr_literal(struct td_jsonr_parser *ps, const char *word)
{
	size_t n = strlen(word);

	if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, word, n) != 0)
		return false;
	ps->p += n;
	return true;
}

static bool td_jsonr_parse_number(struct td_jsonr_parser *ps, struct td_jsonr_value *out)
{
	const char *s = ps->p, *q = ps->p;
	bool neg = false, integer = true;

	if (q < ps->end && *q == '-') {
		neg = true;
		q++;
	}
	if (q >= ps->end || *q < '0' || *q > '9') {
		ps->p = q;
		td_jsonr_fail(ps, "digit expected in a number");
		return false;
	}
	if (*q == '0' && q + 1 < ps->end && q[1] >= '0' && q[1] <= '9') {
		ps->p = q;
		td_jsonr_fail(ps, "leading zero in a number");
		return false;
	}
	uint64_t mag = 0;
	bool overflow = false;
	while (q < ps->end && *q >= '0' && *q <= '9') {
		unsigned dgt = (unsigned)(*q - '0');
		if (mag > (UINT64_MAX - dgt) / 10)
			overflow = true;
		else
			mag = mag * 10 + dgt;
		q++;
	}
	if (q < ps->end && *q == '.') {
		integer = false;
		q++;
		if (q >= ps->end || *q < '0' || *q > '9') {
			ps->p = q;
			td_jsonr_fail(ps, "digit expected after the decimal point");
			return false;
		}
		while (q < ps->end && *q >= '0' && *q <= '9')
			q++;
	}
	if (q < ps->end && (*q == 'e' || *q == 'E')) {
		integer = false;
		q++;
		if (q < ps->end && (*q == '+' || *q == '-'))
			q++;
		if (q >= ps->end || *q < '0' || *q > '9') {
			ps->p = q;
			td_jsonr_fail(ps, "digit expected in the exponent");
			return false;
		}
		while (q < ps->end && *q >= '0' && *q <= '9')
			q++;
	}
	/* strtod needs a terminated copy: the input need not be terminated. */
	char buf[64];
	size_t n = (size_t)(q - s);
	double d;
	if (n < sizeof(buf)) {
		memcpy(buf, s, n);
		buf[n] = 0;
		d = strtod(buf, NULL);
	} else {
		char *big = malloc(n + 1);
		if (!big) {
			td_jsonr_oom(ps);
			return false;
		}
		memcpy(big, s, n);
		big[n] = 0;
		d = strtod(big, NULL);
		free(big);
	}
	if (!isfinite(d)) {
		td_jsonr_fail(ps, "number out of range");
		return false;
	}
	out->type = TD_JSONR_NUMBER;
	out->num.d = d;
	if (integer && !overflow) {
		if (!neg) {
			out->num.is_uint = true;
			out->num.u = mag;
			out->num.is_int = mag <= (uint64_t)INT64_MAX;
			out->num.i = (int64_t)mag;
		} else if (mag <= (uint64_t)INT64_MAX + 1) {
			out->num.is_int = true;
			out->num.i = mag == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)mag;
			out->num.is_uint = mag == 0;
			out->num.u = 0;
		}
	}
	ps->p = q;
	return true;
}

static bool td_jsonr_descend(struct td_jsonr_parser *ps)
{
	if (ps->depth >= ps->lim->max_depth) {
		td_jsonr_fail(ps, "nesting deeper than the limit of %u", ps->lim->max_depth);
		return false;
	}
	ps->depth++;
	return true;
}

/* Makes room for element n of a temporary array being parsed. */
static bool td_jsonr_grow(struct td_jsonr_parser *ps, void **tmp, size_t *cap, size_t n,
			  size_t elem)
{
	if (n < *cap)
		return true;
	size_t ncap = *cap ? *cap * 2 : 8;
	void *nt = realloc(*tmp, ncap * elem);
	if (!nt) {
		td_jsonr_oom(ps);
		return false;
	}
	*tmp = nt;
	*cap = ncap;
	return true;
}

/* After an element of an array or object: 1 when a ',' says another one
 * follows, 0 when `close` ends the container, -1 on a syntax error. */
static int td_jsonr_after_element(struct td_jsonr_parser *ps, char close, const char *kind)
{
	char what[16];
	td_jsonr_skip_ws(ps);
	if (ps->p < ps->end && *ps->p == ',') {
		ps->p++;
		td_jsonr_skip_ws(ps);
		if (ps->p < ps->end && *ps->p == close) {
			td_jsonr_fail(ps, "trailing comma in an %s", kind);
			return -1;
		}
		return 1;
	}
	if (ps->p < ps->end && *ps->p == close) {
		ps->p++;
		return 0;
	}
	td_jsonr_fail(ps, "',' or '%c' expected in an %s, found %s", close, kind,
		      td_jsonr_what(ps, what, sizeof(what)));
	return -1;
}

/* Ends a container: moves its n parsed elements into the document's arena
 * (NULL when n is 0), frees the temporary array and climbs back a level. */
static bool td_jsonr_close(struct td_jsonr_parser *ps, void *tmp, size_t n, size_t elem,
			   void **out)
{
	*out = NULL;
	if (n) {
		*out = td_arena_alloc(ps->doc, n * elem);
		if (!*out) {
			td_jsonr_oom(ps);
			free(tmp);
			return false;
		}
		memcpy(*out, tmp, n * elem);
	}
	free(tmp);
	ps->depth--;
	return true;
}

static bool td_jsonr_parse_array(struct td_jsonr_parser *ps, struct td_jsonr_value *out)
{
	struct td_jsonr_value *tmp = NULL;
	size_t n = 0, cap = 0;

	if (!td_jsonr_descend(ps))
		return false;
	ps->p++; /* [ */
	td_jsonr_skip_ws(ps);
	if (ps->p < ps->end && *ps->p == ']') {
		ps->p++;
		goto done;
	}
	for (;;) {
		if (!td_jsonr_grow(ps, (void **)&tmp, &cap, n, sizeof(*tmp)))
			goto fail;
		if (!td_jsonr_parse_value(ps, &tmp[n]))
			goto fail;
		n++;
		int more = td_jsonr_after_element(ps, ']', "array");
		if (more < 0)
			goto fail;
		if (!more)
			break;
	}
done:
	out->type = TD_JSONR_ARRAY;
	out->arr.n = n;
	return td_jsonr_close(ps, tmp, n, sizeof(*tmp), (void **)&out->arr.items);
fail:
	free(tmp);
	return false;
}

static bool td_jsonr_parse_object(struct td_jsonr_parser *ps, struct td_jsonr_value *out)
{
	struct td_jsonr_member *tmp = NULL;
	size_t n = 0, cap = 0;
	char what[16];

	if (!td_jsonr_descend(ps))
		return false;
	ps->p++; /* { */
	td_jsonr_skip_ws(ps);
	if (ps->p < ps->end && *ps->p == '}') {
		ps->p++;
		goto done;
	}
	for (;;) {
		if (ps->p >= ps->end || *ps->p != '"') {
			td_jsonr_fail(ps, "member name (a string) expected in an object, found %s",
				      td_jsonr_what(ps, what, sizeof(what)));
			goto fail;
		}
		if (!td_jsonr_grow(ps, (void **)&tmp, &cap, n, sizeof(*tmp)))
			goto fail;
		const char *key_pos = ps->p;
		if (!td_jsonr_parse_string(ps, &tmp[n].key, &tmp[n].key_len))
			goto fail;
		/* Duplicate keys make "which one counts" ambiguous: reject. Objects
		 * in reports are small, so a linear scan is fine, but bound it
		 * against hostile input with many members. */
		for (size_t i = 0; i < n; i++) {
			if (tmp[i].key_len == tmp[n].key_len &&
			    memcmp(tmp[i].key, tmp[n].key, tmp[n].key_len) == 0) {
				ps->p = key_pos;
				td_jsonr_fail(ps, "duplicate member \"%s\"", tmp[n].key);
				goto fail;
			}
		}
		td_jsonr_skip_ws(ps);
		if (ps->p >= ps->end || *ps->p != ':') {
			td_jsonr_fail(ps, "':' expected after member name \"%s\", found %s", tmp[n].key,
				      td_jsonr_what(ps, what, sizeof(what)));
			goto fail;
		}
		ps->p++;
		if (!td_jsonr_parse_value(ps, &tmp[n].value))
			goto fail;
		n++;
		int more = td_jsonr_after_element(ps, '}', "object");
		if (more < 0)
			goto fail;
		if (!more)
			break;
	}
done:
	out->type = TD_JSONR_OBJECT;
	out->obj.n = n;
	return td_jsonr_close(ps, tmp, n, sizeof(*tmp), (void **)&out->obj.members);
fail:
	free(tmp);
	return false;
}

static bool td_jsonr_parse_value(struct td_jsonr_parser *ps, struct td_jsonr_value *out)
{
	char what[16];

	memset(out, 0, sizeof(*out));
	td_jsonr_skip_ws(ps);
	out->line = ps->line;
	if (++ps->values > ps->lim->max_values) {
		td_jsonr_fail(ps, "more values than the limit of %zu", ps->lim->max_values);
		return false;
	}
	if (ps->p >= ps->end) {
		td_jsonr_fail(ps, "value expected, found end of input");
		return false;
	}
	switch (*ps->p) {
	case '{':
		return td_jsonr_parse_object(ps, out);
	case '[':
		return td_jsonr_parse_array(ps, out);
	case '"':
		out->type = TD_JSONR_STRING;
		return td_jsonr_parse_string(ps, &out->str.s, &out->str.len);
	case 't':
		if (td_jsonr_literal(ps, "true")) {
			out->type = TD_JSONR_BOOL;
			out->b = true;
			return true;
		}
		break;
	case 'f':
		if (td_jsonr_literal(ps, "false")) {
			out->type = TD_JSONR_BOOL;
			out->b = false;
			return true;
		}
		break;
	case 'n':
		if (td_jsonr_literal(ps, "null")) {
			out->type = TD_JSONR_NULL;
			return true;
		}
		break;
	default:
		if (*ps->p == '-' || (*ps->p >= '0' && *ps->p <= '9'))
			return td_jsonr_parse_number(ps, out);
		break;
	}
	td_jsonr_fail(ps, "value expected, found %s", td_jsonr_what(ps, what, sizeof(what)));
	return false;
}

struct td_jsonr_doc *td_jsonr_parse(const char *text, size_t len,
				    const struct td_jsonr_limits *lim, char *err, size_t errlen)
{
	struct td_jsonr_parser ps = {
		.p = text, .end = text + len, .line_start = text, .line = 1,
		.lim = lim ? lim : &td_jsonr_default_limits, .err = err, .errlen = errlen,
	};
	char what[16];

	if (err && errlen)
		err[0] = 0;
	if (len > ps.lim->max_bytes) {
		if (err && errlen)
			snprintf(err, errlen, "input of %zu bytes is larger than the limit of %zu",
				 len, ps.lim->max_bytes);
		return NULL;
	}
	ps.doc = calloc(1, sizeof(*ps.doc));
	if (!ps.doc) {
		if (err && errlen)
			snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0) {
		td_jsonr_fail(&ps, "byte order mark at the start (not allowed in JSON)");
		goto fail;
	}
	if (!td_jsonr_parse_value(&ps, &ps.doc->root))
		goto fail;
	td_jsonr_skip_ws(&ps);
	if (ps.p < ps.end) {
		td_jsonr_fail(&ps, "unexpected %s after the JSON value",
			      td_jsonr_what(&ps, what, sizeof(what)));
		goto fail;
	}
	free(ps.sbuf);
	return ps.doc;
fail:
	free(ps.sbuf);
	td_jsonr_delete(ps.doc);
	return NULL;
}

struct td_jsonr_doc *td_jsonr_load(const char *path, const struct td_jsonr_limits *lim,
				   char *err, size_t errlen)
{
	const struct td_jsonr_limits *l = lim ? lim : &td_jsonr_default_limits;
	char *buf = NULL;
	size_t len = 0, cap = 0;
	char perr[256];
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	for (;;) {
		if (len == cap) {
			if (cap > l->max_bytes) {
				snprintf(err, errlen, "%s: larger than the limit of %zu bytes", path,
					 l->max_bytes);
				goto fail;
			}
			size_t ncap = cap ? cap * 2 : 65536;
			char *nb = realloc(buf, ncap);
			if (!nb) {
				snprintf(err, errlen, "%s: out of memory", path);
				goto fail;
			}
			buf = nb;
			cap = ncap;
		}
		ssize_t r = read(fd, buf + len, cap - len);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			goto fail;
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	close(fd);
	fd = -1;
	if (len == 0) {
		snprintf(err, errlen, "%s: empty file (no JSON value)", path);
		free(buf);
		return NULL;
	}
	struct td_jsonr_doc *doc = td_jsonr_parse(buf, len, l, perr, sizeof(perr));
	if (!doc)
		snprintf(err, errlen, "%s: %s", path, perr);
	free(buf);
	return doc;
fail:
	if (fd >= 0)
		close(fd);
	free(buf);
	return NULL;
}

void td_jsonr_delete(struct td_jsonr_doc *doc)
{
	if (!doc)
		return;
	struct td_arena_chunk *c = doc->chunks;
	while (c) {
		struct td_arena_chunk *next = c->next;
		free(c);
		c = next;
	}
	free(doc);
}

const struct td_jsonr_value *td_jsonr_root(const struct td_jsonr_doc *doc)
{
	return doc ? &doc->root : NULL;
}

const struct td_jsonr_value *td_jsonr_get(const struct td_jsonr_value *v, const char *key)
{
	if (!v || v->type != TD_JSONR_OBJECT)
		return NULL;
	for (size_t i = 0; i < v->obj.n; i++)
		if (strcmp(v->obj.members[i].key, key) == 0)
			return &v->obj.members[i].value;
	return NULL;
}

int td_jsonr_u64(const struct td_jsonr_value *v, uint64_t *out)
{
	if (!v || v->type != TD_JSONR_NUMBER || !v->num.is_uint)
		return -EINVAL;
	*out = v->num.u;
	return 0;
}

int td_jsonr_i64(const struct td_jsonr_value *v, int64_t *out)
{
	if (!v || v->type != TD_JSONR_NUMBER || !v->num.is_int)
		return -EINVAL;
	*out = v->num.i;
	return 0;
}

int td_jsonr_num(const struct td_jsonr_value *v, double *out)
{
	if (!v || v->type != TD_JSONR_NUMBER)
		return -EINVAL;
	*out = v->num.d;
	return 0;
}

const char *td_jsonr_str(const struct td_jsonr_value *v)
{
	return v && v->type == TD_JSONR_STRING ? v->str.s : NULL;
}

const char *td_jsonr_type_name(enum td_jsonr_type t)
{
	static const char *const names[] = { "null", "boolean", "number", "string", "array", "object" };
	return (unsigned)t < sizeof(names) / sizeof(names[0]) ? names[t] : "?";
}
