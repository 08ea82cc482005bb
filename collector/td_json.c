#include "td_json.h"

#include <inttypes.h>
#include <math.h>

void td_json_init(struct td_json *j, FILE *f, int pretty)
{
	j->f = f;
	j->depth = 0;
	j->first[0] = true;
	j->after_key = false;
	j->pretty = pretty;
}

static void td_json_indent(struct td_json *j)
{
	if (!j->pretty)
		return;
	fputc('\n', j->f);
	for (int i = 0; i < j->depth; i++)
		fputs("  ", j->f);
}

/* Writes the separator a new value needs at the current level. */
static void td_json_sep(struct td_json *j)
{
	if (j->after_key) {
		j->after_key = false;
		return;
	}
	if (!j->first[j->depth])
		fputc(',', j->f);
	j->first[j->depth] = false;
	if (j->depth > 0)
		td_json_indent(j);
}

static void td_json_open(struct td_json *j, char c)
{
	td_json_sep(j);
	fputc(c, j->f);
	if (j->depth < TD_JSON_MAX_DEPTH - 1)
		j->depth++;
	j->first[j->depth] = true;
}

static void td_json_close(struct td_json *j, char c)
{
	bool empty = j->first[j->depth];
	if (j->depth > 0)
		j->depth--;
	if (!empty)
		td_json_indent(j);
	fputc(c, j->f);
}

void td_json_object_begin(struct td_json *j) { td_json_open(j, '{'); }
void td_json_object_end(struct td_json *j) { td_json_close(j, '}'); }
void td_json_array_begin(struct td_json *j) { td_json_open(j, '['); }
void td_json_array_end(struct td_json *j) { td_json_close(j, ']'); }

static void td_json_raw_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"': fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\n': fputs("\\n", f); break;
		case '\r': fputs("\\r", f); break;
		case '\t': fputs("\\t", f); break;
		default:
			if (*p < 0x20 || *p == 0x7f)
				fprintf(f, "\\u%04x", *p);
			else
				fputc(*p, f);
		}
	}
	fputc('"', f);
}

void td_json_key(struct td_json *j, const char *key)
{
	td_json_sep(j);
	td_json_raw_string(j->f, key);
	fputs(j->pretty ? ": " : ":", j->f);
	j->after_key = true;
}

void td_json_string(struct td_json *j, const char *s)
{
	td_json_sep(j);
	if (s)
		td_json_raw_string(j->f, s);
	else
		fputs("null", j->f);
}

void td_json_uint(struct td_json *j, uint64_t v)
{
	td_json_sep(j);
	fprintf(j->f, "%" PRIu64, v);
}

void td_json_int(struct td_json *j, int64_t v)
{
	td_json_sep(j);
	fprintf(j->f, "%" PRId64, v);
}

void td_json_double(struct td_json *j, double v)
{
	td_json_sep(j);
	if (isfinite(v))
		fprintf(j->f, "%.6g", v);
	else
		fputs("null", j->f);
}

void td_json_bool(struct td_json *j, bool v)
{
	td_json_sep(j);
	fputs(v ? "true" : "false", j->f);
}

void td_json_null(struct td_json *j)
{
	td_json_sep(j);
	fputs("null", j->f);
}

void td_json_kv_string(struct td_json *j, const char *key, const char *s)
{
	td_json_key(j, key);
	td_json_string(j, s);
}

void td_json_kv_uint(struct td_json *j, const char *key, uint64_t v)
{
	td_json_key(j, key);
	td_json_uint(j, v);
}

void td_json_kv_int(struct td_json *j, const char *key, int64_t v)
{
	td_json_key(j, key);
	td_json_int(j, v);
}

void td_json_kv_double(struct td_json *j, const char *key, double v)
{
	td_json_key(j, key);
	td_json_double(j, v);
}

void td_json_kv_bool(struct td_json *j, const char *key, bool v)
{
	td_json_key(j, key);
	td_json_bool(j, v);
}
