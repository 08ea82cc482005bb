/* td_emu_spec: parses the emulated PMU's true fractions (syntax in td_emu.h). */
#include "td_emu.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const td_emu_keys[TD_EMU_FIELDS] = {
	"ret", "bad", "fe", "be", "heavy", "br", "fetchlat", "mem",
};

static void td_emu_trim(char **s, char **end)
{
	while (*s < *end && (**s == ' ' || **s == '\t'))
		(*s)++;
	while (*end > *s && ((*end)[-1] == ' ' || (*end)[-1] == '\t'))
		(*end)--;
}

/* Parses "k:v,k:v" of a fractions entry into pr. */
static int td_emu_parse_fracs(struct td_emu_profile *pr, char *v, const char *what, char *err,
			      size_t errlen)
{
	double pct[TD_EMU_FIELDS];
	bool set[TD_EMU_FIELDS] = { false };
	for (char *save = NULL, *kv = strtok_r(v, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(kv, ':');
		char *k = kv, *kend = colon ? colon : kv + strlen(kv);
		td_emu_trim(&k, &kend);
		if (!colon) {
			snprintf(err, errlen, "%s: '%.*s' is not key:percent", what, (int)(kend - k), k);
			return -EINVAL;
		}
		int f = -1;
		for (int i = 0; i < TD_EMU_FIELDS; i++)
			if ((size_t)(kend - k) == strlen(td_emu_keys[i]) &&
			    !strncmp(k, td_emu_keys[i], (size_t)(kend - k)))
				f = i;
		if (f < 0) {
			snprintf(err, errlen,
				 "%s: unknown key '%.*s' (ret bad fe be heavy br fetchlat mem)", what,
				 (int)(kend - k), k);
			return -EINVAL;
		}
		char *endp;
		errno = 0;
		double x = strtod(colon + 1, &endp);
		while (*endp == ' ' || *endp == '\t')
			endp++;
		if (errno || endp == colon + 1 || *endp || !(x >= 0 && x <= 100)) {
			snprintf(err, errlen, "%s: %s: '%s' is not a percentage 0..100", what,
				 td_emu_keys[f], colon + 1);
			return -EINVAL;
		}
		pct[f] = x;
		set[f] = true;
	}
	double sum = 0;
	for (int i = 0; i < 4; i++)
		sum += set[i] ? pct[i] : 0;
	if (fabs(sum - 100.0) > 0.001) {
		snprintf(err, errlen, "%s: ret+bad+fe+be add up to %g, not 100", what, sum);
		return -EINVAL;
	}
	for (int i = 0; i < 4; i++) {
		double parent = set[i] ? pct[i] : 0;
		double child = set[i + 4] ? pct[i + 4] : parent / 2;
		if (child > parent + 1e-9) {
			snprintf(err, errlen, "%s: %s (%g) exceeds %s (%g)", what, td_emu_keys[i + 4],
				 child, td_emu_keys[i], parent);
			return -EINVAL;
		}
		pr->frac[i] = parent / 100.0;
		pr->frac[i + 4] = child / 100.0;
	}
	return 0;
}

static int td_emu_parse_sim(struct td_emu_sim *sim, char *v, char *err, size_t errlen)
{
	for (char *save = NULL, *kv = strtok_r(v, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
		char key[16];
		unsigned long n;
		char extra;
		if (sscanf(kv, " %15[a-z] : %lu %c", key, &n, &extra) != 2 || n > UINT32_MAX) {
			snprintf(err, errlen, "sim: '%s' is not key:count", kv);
			return -EINVAL;
		}
		if (!strcmp(key, "bump"))
			sim->bump = (uint32_t)n;
		else if (!strcmp(key, "switch"))
			sim->sw = (uint32_t)n;
		else if (!strcmp(key, "pmi"))
			sim->pmi = (uint32_t)n;
		else if (!strcmp(key, "ecore"))
			sim->ecore = (uint32_t)n;
		else {
			snprintf(err, errlen, "sim: unknown key '%s' (bump switch pmi ecore)", key);
			return -EINVAL;
		}
	}
	return 0;
}

static int td_emu_parse_rates(struct td_emu_spec *spec, char *v, char *err, size_t errlen)
{
	for (char *save = NULL, *kv = strtok_r(v, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
		char name[48];
		double rate;
		char extra;
		if (sscanf(kv, " %47[^: ] : %lf %c", name, &rate, &extra) != 2 || !(rate >= 0) ||
		    rate > 1000) {
			snprintf(err, errlen, "events: '%s' is not name:rate (events per ns, 0..1000)",
				 kv);
			return -EINVAL;
		}
		if (spec->nr_rates >= TD_EMU_MAX_EVENTS) {
			snprintf(err, errlen, "events: more than %d", TD_EMU_MAX_EVENTS);
			return -EINVAL;
		}
		strcpy(spec->rate_name[spec->nr_rates], name);
		spec->rate[spec->nr_rates++] = rate;
	}
	return 0;
}

double td_emu_spec_rate(const struct td_emu_spec *spec, const char *name)
{
	for (int i = 0; i < spec->nr_rates; i++)
		if (!strcmp(spec->rate_name[i], name))
			return spec->rate[i];
	return 1.0;
}

static int td_emu_parse_entry(struct td_emu_spec *spec, char *ent, char *err, size_t errlen)
{
	char *eq = strchr(ent, '=');
	char *k = ent, *kend = eq ? eq : ent + strlen(ent);
	td_emu_trim(&k, &kend);
	if (k == kend)
		return 0; /* empty entry, e.g. a trailing ';' */
	if (!eq) {
		snprintf(err, errlen, "'%.*s': expected <profile>=<fractions>", (int)(kend - k), k);
		return -EINVAL;
	}
	*kend = '\0';
	if (!strcmp(k, "sim"))
		return td_emu_parse_sim(&spec->sim, eq + 1, err, errlen);
	if (!strcmp(k, "events"))
		return td_emu_parse_rates(spec, eq + 1, err, errlen);
	struct td_emu_profile pr = { 0 };
	if (!strcmp(k, "default")) {
		pr.kind = TD_EMU_DEFAULT;
	} else if (!strncmp(k, "thread:", 7) || !strncmp(k, "region:", 7)) {
		pr.kind = k[0] == 't' ? TD_EMU_THREAD : TD_EMU_REGION;
		const char *name = k + 7;
		if (!*name || strlen(name) >= sizeof(pr.name) ||
		    (pr.kind == TD_EMU_THREAD && strlen(name) > 15)) {
			snprintf(err, errlen, "'%s': empty or too long name", k);
			return -EINVAL;
		}
		strcpy(pr.name, name);
	} else {
		snprintf(err, errlen, "'%s': expected default, thread:<comm>, region:<name> or sim",
			 k);
		return -EINVAL;
	}
	int rc = td_emu_parse_fracs(&pr, eq + 1, k, err, errlen);
	if (rc)
		return rc;
	int at = pr.kind == TD_EMU_DEFAULT ? spec->def : td_emu_spec_find(spec, pr.kind, pr.name);
	if (at < 0) {
		if (spec->nr >= TD_EMU_MAX_PROFILES) {
			snprintf(err, errlen, "more than %d profiles", TD_EMU_MAX_PROFILES);
			return -EINVAL;
		}
		at = spec->nr++;
	}
	spec->prof[at] = pr; /* a later entry for the same name wins */
	if (pr.kind == TD_EMU_THREAD)
		spec->has_thread = true;
	return 0;
}

int td_emu_spec_parse(struct td_emu_spec *spec, const char *text, char *err, size_t errlen)
{
	*spec = (struct td_emu_spec){ 0 };
	char def[] = "ret:40,bad:10,fe:20,be:30";
	spec->nr = 1;
	spec->def = 0;
	td_emu_parse_fracs(&spec->prof[0], def, "default", err, errlen);
	if (!text || !*text)
		return 0;
	char *copy = strdup(text);
	if (!copy) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	int rc = 0;
	for (char *save = NULL, *ent = strtok_r(copy, ";", &save); ent && !rc;
	     ent = strtok_r(NULL, ";", &save))
		rc = td_emu_parse_entry(spec, ent, err, errlen);
	free(copy);
	return rc;
}

int td_emu_spec_find(const struct td_emu_spec *spec, enum td_emu_kind kind, const char *name)
{
	if (!name)
		return -1;
	for (int i = 0; i < spec->nr; i++)
		if (spec->prof[i].kind == kind && !strcmp(spec->prof[i].name, name))
			return i;
	return -1;
}

