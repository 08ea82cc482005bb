/* Fuzz target: the report reader of `tdprobe report` — td_jsonr_parse with
 * small limits, then td_rep_load_doc over whatever parsed. libFuzzer entry
 * with -DTD_FUZZ_ENTRY (scripts/fuzz); tests/unit/test_fuzz_replay.c
 * replays the corpus. */
#include "td_jsonr.h"
#include "td_rep.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int td_fuzz_report_one(const uint8_t *data, size_t size)
{
	static const struct td_jsonr_limits lim = {
		.max_bytes = 1 << 20, .max_depth = 32, .max_string = 4096, .max_values = 100000,
	};
	char err[512];
	struct td_jsonr_doc *doc = td_jsonr_parse((const char *)data, size, &lim, err, sizeof(err));
	if (!doc) {
		if (!memchr(err, '\0', sizeof(err)))
			abort();
		return 0;
	}
	struct td_rep_set set = { 0 };
	if (td_rep_load_doc(&set, "fuzz.json", doc, err, sizeof(err)) != 0 && !memchr(err, '\0', sizeof(err)))
		abort();
	td_rep_set_exit(&set);
	return 0;
}

#ifdef TD_FUZZ_ENTRY
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return td_fuzz_report_one(data, size);
}
#endif
