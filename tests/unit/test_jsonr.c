/* td_jsonr: the strict JSON reader — valid input, each rejection with its
 * message, and the limits. */
#include <criterion/criterion.h>

#include "td_jsonr.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char err[256];

static struct td_jsonr_doc *parse(const char *s)
{
	return td_jsonr_parse(s, strlen(s), NULL, err, sizeof(err));
}

/* Parses s, expects failure with a message containing want. */
static void reject(const char *s, const char *want)
{
	struct td_jsonr_doc *d = parse(s);
	cr_expect_null(d, "accepted invalid JSON: %s", s);
	cr_expect(strstr(err, want) != NULL, "input %s: message '%s' lacks '%s'", s, err, want);
	td_jsonr_delete(d);
}

Test(jsonr, object_members_in_order_and_nested)
{
	struct td_jsonr_doc *d = parse(" {\"a\": [1, 2, {\"b\": null}], \"c\": true, \"d\": \"x\"}\n");
	cr_assert_not_null(d, "%s", err);
	const struct td_jsonr_value *r = td_jsonr_root(d);
	cr_assert_eq(r->type, TD_JSONR_OBJECT);
	cr_assert_eq(r->obj.n, 3);
	cr_expect_str_eq(r->obj.members[0].key, "a");
	cr_expect_str_eq(r->obj.members[2].key, "d");
	const struct td_jsonr_value *a = td_jsonr_get(r, "a");
	cr_assert_eq(a->type, TD_JSONR_ARRAY);
	cr_assert_eq(a->arr.n, 3);
	cr_expect_eq(td_jsonr_get(&a->arr.items[2], "b")->type, TD_JSONR_NULL);
	cr_expect(td_jsonr_get(r, "c")->b);
	cr_expect_str_eq(td_jsonr_str(td_jsonr_get(r, "d")), "x");
	cr_expect_null(td_jsonr_get(r, "missing"));
	cr_expect_null(td_jsonr_get(a, "a"), "get on an array");
	td_jsonr_delete(d);
}

Test(jsonr, integers_are_exact_to_64_bits)
{
	struct td_jsonr_doc *d =
		parse("[18446744073709551615, -9223372036854775808, 0, -0, 9007199254740993, 1.5, 2e3, 18446744073709551616]");
	cr_assert_not_null(d, "%s", err);
	const struct td_jsonr_value *a = td_jsonr_root(d);
	uint64_t u;
	int64_t i;
	double x;
	cr_assert_eq(td_jsonr_u64(&a->arr.items[0], &u), 0);
	cr_expect_eq(u, UINT64_MAX);
	cr_expect_neq(td_jsonr_i64(&a->arr.items[0], &i), 0, "2^64-1 is no int64");
	cr_assert_eq(td_jsonr_i64(&a->arr.items[1], &i), 0);
	cr_expect_eq(i, INT64_MIN);
	cr_expect_neq(td_jsonr_u64(&a->arr.items[1], &u), 0, "negative is no uint64");
	cr_assert_eq(td_jsonr_u64(&a->arr.items[3], &u), 0);
	cr_expect_eq(u, 0);
	cr_assert_eq(td_jsonr_u64(&a->arr.items[4], &u), 0);
	cr_expect_eq(u, 9007199254740993ull, "beyond double precision, still exact");
	cr_expect_neq(td_jsonr_u64(&a->arr.items[5], &u), 0, "1.5 is not an integer");
	cr_assert_eq(td_jsonr_num(&a->arr.items[5], &x), 0);
	cr_expect_eq(x, 1.5);
	cr_expect_neq(td_jsonr_u64(&a->arr.items[6], &u), 0, "2e3 is written as a float");
	cr_expect_neq(td_jsonr_u64(&a->arr.items[7], &u), 0, "2^64 overflows");
	cr_assert_eq(td_jsonr_num(&a->arr.items[7], &x), 0);
	cr_expect(x > 1.8e19);
	td_jsonr_delete(d);
}

Test(jsonr, string_escapes_and_utf8)
{
	struct td_jsonr_doc *d = parse("[\"a\\\"b\\\\c\\/\\b\\f\\n\\r\\t\", \"\\u00e9\\u20ac\\ud83d\\ude00\", \"caf\xc3\xa9\", \"\\u0000x\"]");
	cr_assert_not_null(d, "%s", err);
	const struct td_jsonr_value *a = td_jsonr_root(d);
	cr_expect_str_eq(a->arr.items[0].str.s, "a\"b\\c/\b\f\n\r\t");
	cr_expect_str_eq(a->arr.items[1].str.s, "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
	cr_expect_str_eq(a->arr.items[2].str.s, "caf\xc3\xa9");
	cr_expect_eq(a->arr.items[3].str.len, 2);
	cr_expect_eq(a->arr.items[3].str.s[1], 'x');
	td_jsonr_delete(d);
}

Test(jsonr, scalars_at_top_level)
{
	struct td_jsonr_doc *d = parse("  42  ");
	cr_assert_not_null(d, "%s", err);
	cr_expect_eq(td_jsonr_root(d)->type, TD_JSONR_NUMBER);
	td_jsonr_delete(d);
	d = parse("\"s\"");
	cr_assert_not_null(d);
	td_jsonr_delete(d);
}

Test(jsonr, rejects_what_rfc8259_rejects)
{
	reject("", "value expected, found end of input");
	reject("   ", "value expected");
	reject("[1,]", "trailing comma in an array");
	reject("{\"a\":1,}", "trailing comma in an object");
	reject("[01]", "leading zero");
	reject("[-]", "digit expected");
	reject("[1.]", "digit expected after the decimal point");
	reject("[1e]", "digit expected in the exponent");
	reject("[.5]", "value expected, found '.'");
	reject("[+1]", "value expected, found '+'");
	reject("[NaN]", "value expected, found 'N'");
	reject("[Infinity]", "value expected");
	reject("[1e999]", "number out of range");
	reject("[tru]", "value expected, found 't'");
	reject("{'a':1}", "member name (a string) expected");
	reject("{\"a\" 1}", "':' expected after member name \"a\"");
	reject("{\"a\":1 \"b\":2}", "',' or '}' expected in an object, found '\"'");
	reject("[1 2]", "',' or ']' expected in an array, found '2'");
	reject("[\"abc", "unterminated string");
	reject("[\"a\tb\"]", "control character 0x09");
	reject("[\"\\x\"]", "invalid escape '\\x'");
	reject("[\"\\u12g4\"]", "bad \\u escape");
	reject("[\"\\udc00\"]", "lone low surrogate");
	reject("[\"\\ud800x\"]", "high surrogate \\ud800 not followed");
	reject("[\"\xc3\"]", "invalid UTF-8");
	reject("[\"\xc0\xaf\"]", "invalid UTF-8");      /* overlong */
	reject("[\"\xed\xa0\x80\"]", "invalid UTF-8");  /* encoded surrogate */
	reject("[\"\xff\"]", "invalid UTF-8");
	reject("{\"a\":1,\"a\":2}", "duplicate member \"a\"");
	reject("{} {}", "unexpected '{' after the JSON value");
	reject("[1] x", "unexpected 'x'");
	reject("\xef\xbb\xbf[]", "byte order mark");
	reject("/* c */ []", "value expected, found '/'");
	reject("[1]\x01", "unexpected byte 0x01");
}

Test(jsonr, error_position_is_line_and_column)
{
	reject("{\n  \"a\": 1,\n  \"b\": [1, 2,, 3]\n}", "line 3, column 14:");
}

Test(jsonr, depth_limit)
{
	struct td_jsonr_limits lim = td_jsonr_default_limits;
	lim.max_depth = 4;
	const char *ok = "[[[[1]]]]", *deep = "[[[[[1]]]]]";
	struct td_jsonr_doc *d = td_jsonr_parse(ok, strlen(ok), &lim, err, sizeof(err));
	cr_expect_not_null(d, "depth 4 within a limit of 4: %s", err);
	td_jsonr_delete(d);
	d = td_jsonr_parse(deep, strlen(deep), &lim, err, sizeof(err));
	cr_expect_null(d);
	cr_expect(strstr(err, "nesting deeper than the limit of 4"), "%s", err);
	td_jsonr_delete(d);
}

Test(jsonr, deep_nesting_fails_cleanly_with_default_limits)
{
	/* 100000 brackets would overflow a naive recursive parser's stack. */
	size_t n = 100000;
	char *s = malloc(n + 1);
	memset(s, '[', n);
	s[n] = 0;
	struct td_jsonr_doc *d = td_jsonr_parse(s, n, NULL, err, sizeof(err));
	cr_expect_null(d);
	cr_expect(strstr(err, "nesting deeper than the limit of 64"), "%s", err);
	free(s);
}

Test(jsonr, size_string_and_value_limits)
{
	struct td_jsonr_limits lim = td_jsonr_default_limits;
	lim.max_bytes = 8;
	const char *s = "[1,2,3,4,5]";
	cr_expect_null(td_jsonr_parse(s, strlen(s), &lim, err, sizeof(err)));
	cr_expect(strstr(err, "input of 11 bytes is larger than the limit of 8"), "%s", err);

	lim = td_jsonr_default_limits;
	lim.max_string = 3;
	s = "[\"abc\", \"abcd\"]";
	cr_expect_null(td_jsonr_parse(s, strlen(s), &lim, err, sizeof(err)));
	cr_expect(strstr(err, "string longer than the limit of 3 bytes"), "%s", err);
	cr_expect(strstr(err, "column 9"), "points into the long string: %s", err);

	lim = td_jsonr_default_limits;
	lim.max_values = 5;
	s = "[1,2,3,4]";
	struct td_jsonr_doc *d = td_jsonr_parse(s, strlen(s), &lim, err, sizeof(err));
	cr_expect_not_null(d, "5 values (array + 4) within 5: %s", err);
	td_jsonr_delete(d);
	s = "[1,2,3,4,5]";
	cr_expect_null(td_jsonr_parse(s, strlen(s), &lim, err, sizeof(err)));
	cr_expect(strstr(err, "more values than the limit of 5"), "%s", err);
}

Test(jsonr, input_need_not_be_terminated)
{
	/* The length bounds the input: a number at the very end must not be
	 * read past it (strtod on an unterminated buffer would). */
	char buf[3] = { '1', '2', '3' };
	struct td_jsonr_doc *d = td_jsonr_parse(buf, 2, NULL, err, sizeof(err));
	cr_assert_not_null(d, "%s", err);
	uint64_t u;
	cr_assert_eq(td_jsonr_u64(td_jsonr_root(d), &u), 0);
	cr_expect_eq(u, 12);
	td_jsonr_delete(d);
}

Test(jsonr, load_names_the_file)
{
	char path[] = "/tmp/td_jsonr_XXXXXX";
	int fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	FILE *f = fdopen(fd, "w");
	fputs("{\"a\": [1, 2}\n", f);
	fclose(f);
	struct td_jsonr_doc *d = td_jsonr_load(path, NULL, err, sizeof(err));
	cr_expect_null(d);
	cr_expect(strncmp(err, path, strlen(path)) == 0, "%s", err);
	cr_expect(strstr(err, "line 1, column 12: ',' or ']' expected in an array, found '}'"), "%s", err);
	f = fopen(path, "w");
	fclose(f);
	cr_expect_null(td_jsonr_load(path, NULL, err, sizeof(err)));
	cr_expect(strstr(err, "empty file"), "%s", err);
	unlink(path);
	cr_expect_null(td_jsonr_load(path, NULL, err, sizeof(err)));
	cr_expect(strstr(err, "No such file or directory"), "%s", err);
}

Test(jsonr, many_values_round_trip)
{
	/* 200000 numbers: arrays grow past several reallocations and arena chunks. */
	size_t n = 200000, cap = n * 8 + 16, len = 0;
	char *s = malloc(cap);
	s[len++] = '[';
	for (size_t i = 0; i < n; i++)
		len += (size_t)snprintf(s + len, cap - len, "%s%zu", i ? "," : "", i * 3);
	s[len++] = ']';
	struct td_jsonr_doc *d = td_jsonr_parse(s, len, NULL, err, sizeof(err));
	cr_assert_not_null(d, "%s", err);
	const struct td_jsonr_value *a = td_jsonr_root(d);
	cr_assert_eq(a->arr.n, n);
	uint64_t sum = 0, u;
	for (size_t i = 0; i < n; i++) {
		cr_assert_eq(td_jsonr_u64(&a->arr.items[i], &u), 0);
		sum += u;
	}
	cr_expect_eq(sum, 3ull * (n - 1) * n / 2);
	td_jsonr_delete(d);
	free(s);
}
