/* collector/td_json: separators, nesting, escaping, non-finite numbers. */
#include "td_json.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static char *buf;
static size_t len;
static FILE *f;
static struct td_json j;

static void setup(void)
{
	f = open_memstream(&buf, &len);
	td_json_init(&j, f, 0);
}
static void teardown(void) { free(buf); }
TestSuite(json, .init = setup, .fini = teardown);

static const char *done(void)
{
	fflush(f);
	fclose(f);
	return buf;
}

Test(json, nested_members_and_separators)
{
	td_json_object_begin(&j);
	td_json_kv_string(&j, "a", "x");
	td_json_kv_uint(&j, "b", 18446744073709551615ull);
	td_json_key(&j, "c");
	td_json_array_begin(&j);
	td_json_int(&j, -3);
	td_json_object_begin(&j);
	td_json_object_end(&j);
	td_json_array_begin(&j);
	td_json_array_end(&j);
	td_json_bool(&j, true);
	td_json_null(&j);
	td_json_array_end(&j);
	td_json_kv_double(&j, "d", 0.25);
	td_json_object_end(&j);
	cr_expect_str_eq(done(), "{\"a\":\"x\",\"b\":18446744073709551615,\"c\":[-3,{},[],true,null],\"d\":0.25}");
}

Test(json, strings_are_escaped)
{
	td_json_string(&j, "q\"b\\n\n\t\x01\x7f\xc3\xa9");
	cr_expect_str_eq(done(), "\"q\\\"b\\\\n\\n\\t\\u0001\\u007f\xc3\xa9\"");
}

Test(json, non_finite_numbers_are_null_and_null_strings_too)
{
	td_json_array_begin(&j);
	td_json_double(&j, NAN);
	td_json_double(&j, INFINITY);
	td_json_string(&j, NULL);
	td_json_array_end(&j);
	cr_expect_str_eq(done(), "[null,null,null]");
}

Test(json, pretty_output_is_indented)
{
	fclose(f);
	free(buf);
	f = open_memstream(&buf, &len);
	td_json_init(&j, f, 1);
	td_json_object_begin(&j);
	td_json_kv_int(&j, "pid", 5);
	td_json_key(&j, "t");
	td_json_array_begin(&j);
	td_json_uint(&j, 1);
	td_json_array_end(&j);
	td_json_object_end(&j);
	cr_expect_str_eq(done(), "{\n  \"pid\": 5,\n  \"t\": [\n    1\n  ]\n}");
}
