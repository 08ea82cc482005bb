/* Fuzz target: the config parser (td_config_load_string) and the on_signal
 * list parser, on any bytes. libFuzzer entry with -DTD_FUZZ_ENTRY
 * (scripts/fuzz); tests/unit/test_fuzz_replay.c replays the corpus. */
#include "td_config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int td_signal_parse(const char *list, uint64_t *mask, char *bad, size_t badlen);

int td_fuzz_config_one(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	struct td_config cfg;
	char err[512];
	if (td_config_init(&cfg) == 0) {
		if (td_config_load_string(&cfg, "fuzz.ini", text, err, sizeof(err)) != 0 &&
		    !memchr(err, '\0', sizeof(err)))
			abort(); /* the error line must be a terminated string */
		uint64_t mask;
		char bad[32];
		if (cfg.on_signal)
			td_signal_parse(cfg.on_signal, &mask, bad, sizeof(bad));
		td_config_exit(&cfg);
	}
	free(text);
	return 0;
}

#ifdef TD_FUZZ_ENTRY
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return td_fuzz_config_one(data, size);
}
#endif
