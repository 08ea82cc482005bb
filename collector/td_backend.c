/* Backend selection: what `auto` means, and the fallback when an explicitly
 * requested backend cannot run. The chosen backend's reason is the one line
 * the user sees on stderr and in the report. */
#include "td_backend.h"

#include "../config/td_config.h"
#include "td_machine.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* Each backend lives in its own file; weak so the selector builds while a
 * backend is absent from this build (e.g. rdpmc on aarch64). */
extern const struct td_backend_ops td_backend_rdpmc_ops __attribute__((weak));
extern const struct td_backend_ops td_backend_perf_ops __attribute__((weak));
extern const struct td_backend_ops td_backend_emulate_ops __attribute__((weak));
extern const struct td_backend_ops td_backend_arm64_ops __attribute__((weak));

static const struct td_backend_ops *td_backend_ops_of(enum td_backend_kind kind)
{
	switch (kind) {
	case TD_BACKEND_RDPMC:
		/* On arm64, user-space counter reads are the arm64 backend's. */
		return &td_backend_arm64_ops ? &td_backend_arm64_ops : &td_backend_rdpmc_ops;
	case TD_BACKEND_PERF: return &td_backend_perf_ops;
	case TD_BACKEND_EMULATE: return &td_backend_emulate_ops;
	case TD_BACKEND_SOFTWARE: return &td_backend_software_ops;
	case TD_BACKEND_NONE: return &td_backend_none_ops;
	case TD_BACKEND_AUTO: break;
	}
	return NULL;
}

static int td_backend_try(struct td_backend *be, const struct td_backend_ops *ops)
{
	be->ops = ops;
	be->reason[0] = '\0';
	be->topdown_level = 0;
	be->method = "";
	be->emulated = false;
	be->nr_events = 0;
	be->priv = NULL;
	return ops->probe(be);
}

static void td_backend_software(struct td_backend *be, const char *why)
{
	char reason[sizeof(be->reason)];
	snprintf(reason, sizeof(reason), "%s", why);
	td_backend_try(be, &td_backend_software_ops);
	snprintf(be->reason, sizeof(be->reason), "%s", reason);
}

int td_backend_select(struct td_backend *be, const struct td_config *cfg,
		      const struct td_machine *machine)
{
	char why[sizeof(be->reason)];
	memset(be, 0, sizeof(*be));
	be->cfg = cfg;
	be->machine = machine;

	if (cfg->backend != TD_BACKEND_AUTO) {
		const struct td_backend_ops *ops = td_backend_ops_of(cfg->backend);
		const char *name = td_config_backend_name(cfg->backend);
		if (!ops) {
			snprintf(why, sizeof(why), "backend %s is not built into this library; "
				 "using software (time only)", name);
			td_backend_software(be, why);
			return 0;
		}
		if (td_backend_try(be, ops) == 0) {
			if (!be->reason[0])
				snprintf(be->reason, sizeof(be->reason), "requested by configuration");
			return 0;
		}
		snprintf(why, sizeof(why), "backend %s cannot run: %.160s; using software (time only)",
			 name, be->reason);
		td_backend_software(be, why);
		return 0;
	}

	/* auto: the richest source this machine can give. Without a core PMU
	 * the machine's own reason says it all; otherwise each "no" is kept. */
	if (machine && machine->core_pmu < 0) {
		snprintf(why, sizeof(why), "%s",
			 machine->no_pmu_reason[0] ? machine->no_pmu_reason
						   : "no hardware PMU: no core PMU in /sys/bus/event_source/devices");
		td_backend_software(be, why);
		return 0;
	}
	const struct td_backend_ops *user_read =
		&td_backend_arm64_ops ? &td_backend_arm64_ops : &td_backend_rdpmc_ops;
	int off = 0;
	why[0] = '\0';
	const struct td_backend_ops *const order[] = { user_read, &td_backend_perf_ops };
	for (size_t k = 0; k < sizeof(order) / sizeof(order[0]); k++) {
		if (!order[k])
			continue;
		if (td_backend_try(be, order[k]) == 0)
			return 0;
		if (off >= 0 && (size_t)off < sizeof(why))
			off += snprintf(why + off, sizeof(why) - (size_t)off, "%s%s: %s", off ? "; " : "",
					order[k]->name, be->reason);
	}
	if (!why[0])
		snprintf(why, sizeof(why), "no counter backend is built into this library");
	td_backend_software(be, why);
	return 0;
}
