/* tdprobe check / list: fake machines (tests/unit/data/machines) with fake
 * runtime facts -> expected lines and exit status; and this machine for real. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../config/td_config.h"
#include "td_backend.h"
#include "td_check.h"
#include "td_formulas.h"
#include "td_machine.h"
#include "td_test_env.h"

/* The selector references backends weakly: pull the real ones out of td_core. */
const struct td_backend_ops *const test_check_backends[] = { &td_backend_perf_ops,
							      &td_backend_rdpmc_ops };

static const struct td_backend_ops fake_rdpmc = { .name = "rdpmc" };
static const struct td_backend_ops fake_perf = { .name = "perf" };
static const struct td_backend_ops fake_sw = { .name = "software" };
static const struct td_backend_ops fake_emu = { .name = "emulate" };

/* What the real selector does on a machine that has these facts. */
static int fake_select(struct td_backend *be, const struct td_config *cfg, const struct td_machine *m)
{
	enum td_formula_set set = td_formulas_choose(m, NULL);
	be->topdown_level = 0;
	switch (cfg->backend) {
	case TD_BACKEND_EMULATE:
		be->ops = &fake_emu;
		be->topdown_level = 2;
		snprintf(be->reason, sizeof(be->reason), "emulated PMU");
		return 0;
	case TD_BACKEND_SOFTWARE:
		be->ops = &fake_sw;
		snprintf(be->reason, sizeof(be->reason), "requested by configuration");
		return 0;
	case TD_BACKEND_PERF:
		be->ops = &fake_perf;
		be->topdown_level = set == TD_FORMULAS_NONE ? 0 : set == TD_FORMULAS_PERF_METRICS_L2 ? 2 : 1;
		snprintf(be->reason, sizeof(be->reason), "perf events");
		return 0;
	default:
		break;
	}
	if (m->topdown_level > 0) {
		be->ops = &fake_rdpmc;
		be->topdown_level = m->topdown_level;
		snprintf(be->reason, sizeof(be->reason), "perf-metrics level %d", m->topdown_level);
	} else if (cfg->backend == TD_BACKEND_AUTO && set != TD_FORMULAS_NONE) {
		be->ops = &fake_perf;
		be->topdown_level = 1;
		snprintf(be->reason, sizeof(be->reason), "%s", td_formulas_desc(set)->method);
	} else {
		be->ops = &fake_sw;
		snprintf(be->reason, sizeof(be->reason), "%s",
			 m->no_pmu_reason[0] ? m->no_pmu_reason : "no TopDown");
	}
	return 0;
}

struct run {
	struct td_config cfg;
	struct td_machine m;
	struct td_check_env env;
	char *text;
	size_t len;
	int status;
};

static void prepare(struct run *r, const char *machine, const char *ini)
{
	char sys[256], proc[256], err[256] = "";
	memset(r, 0, sizeof(*r));
	cr_assert_eq(td_config_init(&r->cfg), 0);
	if (ini)
		cr_assert_eq(td_config_load_string(&r->cfg, "test.ini", ini, err, sizeof(err)), 0, "%s",
			     err);
	snprintf(sys, sizeof(sys), "data/machines/%s/sys", machine);
	snprintf(proc, sizeof(proc), "data/machines/%s/proc", machine);
	td_machine_probe(&r->m, sys, proc);
	r->env.sysfs_root = strdup(sys);
	r->env.kernel_open = 1;
	r->env.rdpmc = -1;
	r->env.hw_open = r->m.nr_pmus ? 0 : -ENOENT;
	r->env.select = fake_select;
}

static void run_check(struct run *r, bool list)
{
	FILE *f = open_memstream(&r->text, &r->len);
	r->status = list ? td_list_report(&r->cfg, &r->m, &r->env, f)
			 : td_check_report(&r->cfg, &r->m, &r->env, f);
	fclose(f);
}

static void done(struct run *r)
{
	free(r->text);
	free((void *)r->env.sysfs_root);
	td_config_exit(&r->cfg);
}

#define expect_has(r, s) cr_expect(strstr((r)->text, s) != NULL, "missing \"%s\" in:\n%s", s, (r)->text)
#define expect_not(r, s) cr_expect(strstr((r)->text, s) == NULL, "unexpected \"%s\" in:\n%s", s, (r)->text)

Test(check, kvm_auto_fails_naming_the_hypervisor)
{
	struct run r;
	prepare(&r, "kvm", NULL);
	r.env.select = td_backend_select; /* the real selector: this machine is such a guest */
	run_check(&r, false);
	cr_expect_eq(r.status, 1);
	expect_has(&r, "tdprobe check\n");
	expect_has(&r, "  config               built-in defaults: valid (backend auto");
	expect_has(&r, "  hypervisor           yes\n");
	expect_has(&r, "  core PMUs            none: no hardware PMU: running under a hypervisor without vPMU\n");
	expect_has(&r, "  TopDown              no: no hardware PMU (hypervisor without vPMU)\n");
	expect_has(&r, "-> give the guest a virtual PMU");
	expect_has(&r, "  rdpmc                no: no hardware counter to read (no hardware PMU (hypervisor without vPMU))\n");
	expect_has(&r, "  auto would pick      software (TopDown level 0)");
	expect_has(&r, "result: no (exit 1): no hardware PMU (hypervisor without vPMU): auto falls back to software (no TopDown)\n");
	done(&r);
}

Test(check, kvm_software_and_perf_run_rdpmc_does_not)
{
	TD_TEST_NEEDS_PERF_EVENT_OPEN();
	struct run r;
	prepare(&r, "kvm", "[counters]\nbackend = software\n");
	r.env.select = td_backend_select;
	run_check(&r, false);
	cr_expect_eq(r.status, 0);
	expect_has(&r, "  backend asked        software -> software (TopDown level 0)");
	expect_has(&r, "result: yes (exit 0): backend software runs (TopDown level 0)\n");
	done(&r);

	prepare(&r, "kvm", "[counters]\nbackend = rdpmc\n");
	r.env.select = td_backend_select;
	run_check(&r, false);
	cr_expect_eq(r.status, 1);
	expect_has(&r, "result: no (exit 1): no hardware PMU (hypervisor without vPMU): backend rdpmc cannot run\n");
	done(&r);

	prepare(&r, "kvm", "[counters]\nbackend = perf\nsoftware_events = task-clock,page-faults\n");
	r.env.select = td_backend_select;
	run_check(&r, false);
	cr_expect_eq(r.status, 0, "%s", r.text);
	expect_has(&r, "backend asked        perf -> perf (TopDown level 0)");
	done(&r);
}

Test(check, invalid_events_make_the_config_invalid)
{
	struct run r;
	prepare(&r, "kvm", "[counters]\nbackend = software\nevents = instructions, cylces\n");
	run_check(&r, false);
	cr_expect_eq(r.status, 1);
	expect_has(&r, "  config               invalid: [counters] events: unknown event 'cylces' (expected");
	expect_has(&r, "result: no (exit 1): the configuration is invalid (see config above)\n");
	done(&r);
}

Test(check, icelake_level1_with_rdpmc)
{
	struct run r;
	prepare(&r, "icl", NULL);
	r.env.rdpmc = 1;
	run_check(&r, false);
	cr_expect_eq(r.status, 0);
	expect_has(&r, "  cpu                  x86_64 GenuineIntel family 6 model 126 (0x7e) stepping 5: Intel(R) Core(TM) i7-1065G7 CPU @ 1.30GHz\n");
	expect_has(&r, "  cpus                 8, SMT on\n");
	expect_has(&r, "  core PMUs            cpu (type 4), perf-metrics: slots + 4 topdown events [TopDown]\n");
	expect_has(&r, "  TopDown              level 1 from perf-metrics on cpu (rdpmc backend)\n");
	expect_has(&r, "level 2 asked, level 1 only: level 2 needs Sapphire Rapids");
	expect_has(&r, "  rdpmc                yes:");
	expect_has(&r, "result: yes (exit 0): TopDown level 1 through backend rdpmc\n");
	done(&r);
}

Test(check, rdpmc_knob_zero_says_how_to_fix)
{
	struct run r;
	prepare(&r, "icl", "[topdown]\nlevel = 1\n");
	r.m.pmus[0].rdpmc = 0;
	r.env.rdpmc = 0;
	snprintf(r.env.rdpmc_why, sizeof(r.env.rdpmc_why), "the user page has cap_user_rdpmc = 0 (rdpmc knob 0?)");
	run_check(&r, false);
	expect_has(&r, "  rdpmc                no: the user page has cap_user_rdpmc = 0 (rdpmc knob 0?)\n");
	expect_has(&r, "-> as root: echo 1 > /sys/bus/event_source/devices/<pmu>/rdpmc\n");
	expect_has(&r, "without rdpmc the perf backend reads the same counters with read()");
	expect_not(&r, "level 2 asked");
	done(&r);
}

Test(check, alder_lake_hybrid_names_the_p_cores)
{
	struct run r;
	prepare(&r, "adl", NULL);
	run_check(&r, false);
	cr_expect_eq(r.status, 0);
	expect_has(&r, "  cpus                 24, SMT on, hybrid (P-cores and E-cores)\n");
	expect_has(&r, "  core PMUs            cpu_atom (type 10, cpus 16-23), 4 topdown events (no slots: not perf-metrics)\n");
	expect_has(&r, "                       cpu_core (type 4, cpus 0-15), perf-metrics: slots + 8 topdown events [TopDown]\n");
	expect_has(&r, "  TopDown              level 2 from perf-metrics on cpu_core (rdpmc backend)\n");
	expect_has(&r, "hybrid: counts only while a thread runs on cpu_core CPUs 0-15");
	expect_has(&r, "-> pin the program to the P-cores");
	done(&r);
}

Test(check, skylake_and_zen4_use_generic_formulas)
{
	struct run r;
	prepare(&r, "skl", NULL);
	run_check(&r, false);
	cr_expect_eq(r.status, 0);
	expect_has(&r, "  TopDown              level 1 from generic events: skylake-generic-smt (per-thread SMT correction) (perf backend, group read())\n");
	expect_has(&r, "result: yes (exit 0): TopDown level 1 through backend perf\n");
	done(&r);
	prepare(&r, "zen4", NULL);
	run_check(&r, false);
	cr_expect_eq(r.status, 0);
	expect_has(&r, "level 1 from generic events: zen4-pipeline-utilization");
	done(&r);
}

Test(check, neoverse_n2_and_paranoid_3)
{
	struct run r;
	prepare(&r, "n2", NULL);
	r.env.rdpmc = 0;
	snprintf(r.env.rdpmc_why, sizeof(r.env.rdpmc_why), "the user page has cap_user_rdpmc = 0 (kernel.perf_user_access = 0?)");
	run_check(&r, false);
	cr_expect_eq(r.status, 1, "no TopDown backend for arm64 in this table");
	expect_has(&r, "  cpu                  aarch64 ARM MIDR 0x410fd493 (part 0xd49 r0p3)\n");
	expect_has(&r, "  core PMUs            armv8_pmuv3_0 (type 10, cpus 0-3), caps/slots 5 [TopDown]\n");
	expect_has(&r, "-> as root: sysctl -w kernel.perf_user_access=1\n");
	done(&r);

	prepare(&r, "nopmu", NULL);
	r.env.sw_open = -EACCES;
	run_check(&r, false);
	cr_expect_eq(r.status, 1);
	expect_has(&r, "  perf_event_paranoid  3: perf_event_open is blocked for unprivileged users (distribution patch)\n");
	expect_has(&r, "-> sysctl -w kernel.perf_event_paranoid=2, or give the program CAP_PERFMON\n");
	expect_has(&r, "software events no (EACCES:");
	expect_has(&r, "result: no (exit 1): no hardware PMU (no core PMU in sysfs): auto falls back to software (no TopDown)\n");
	done(&r);
}

Test(check, kernel_mode_refused_at_paranoid_2)
{
	struct run r;
	prepare(&r, "icl", "[counters]\nexclude_kernel = no\n");
	r.env.kernel_open = -EACCES;
	run_check(&r, false);
	expect_has(&r, "no: exclude_kernel = no is refused (EACCES:");
	expect_has(&r, "-> set [counters] exclude_kernel = yes");
	done(&r);
}

Test(check, list_shows_pmus_backends_and_sysfs_events)
{
	struct run r;
	prepare(&r, "adl", NULL);
	run_check(&r, true);
	cr_expect_eq(r.status, 0);
	expect_has(&r, "tdprobe list\nmachine\n");
	expect_has(&r, "backends\n  rdpmc                yes, TopDown level 2: perf-metrics level 2\n");
	expect_has(&r, "  perf                 yes, TopDown level 2: perf events\n");
	expect_has(&r, "  software             yes, TopDown level 0: requested by configuration\n");
	expect_has(&r, "  emulate              yes, TopDown level 2: emulated PMU\n");
	expect_has(&r, "  auto                 -> rdpmc\n");
	expect_has(&r, "TopDown events in sysfs\n"
		       "  cpu_atom: topdown-bad-spec topdown-be-bound topdown-fe-bound topdown-retiring\n"
		       "  cpu_core: slots topdown-bad-spec topdown-be-bound topdown-br-mispredict "
		       "topdown-fe-bound topdown-fetch-lat topdown-heavy-ops topdown-mem-bound "
		       "topdown-retiring\n");
	expect_has(&r, "other events in sysfs\n  cpu_atom: branch-instructions branch-misses bus-cycles cache-misses cache-references cpu-cycles instructions ref-cycles\n");
	expect_has(&r, "[counters] events accepts\n");
	done(&r);

	prepare(&r, "kvm", NULL);
	run_check(&r, true);
	expect_has(&r, "TopDown events in sysfs\n  none: no hardware PMU: running under a hypervisor without vPMU\n");
	expect_has(&r, "  rdpmc                no: ");
	done(&r);
}

/* This machine, measured for real. */
Test(check, this_machine)
{
	TD_TEST_NEEDS_PERF_EVENT_OPEN();
	struct td_config cfg;
	struct td_machine m;
	char *text = NULL;
	size_t len = 0;
	cr_assert_eq(td_config_init(&cfg), 0);
	td_machine_probe(&m, "/sys", "/proc");
	FILE *f = open_memstream(&text, &len);
	int st = td_check_run(&cfg, &m, f);
	fclose(f);
	if (m.nr_pmus == 0) {
		cr_expect_eq(st, 1);
		if (m.hypervisor)
			cr_expect(strstr(text, "no hardware PMU (hypervisor without vPMU)") != NULL, "%s", text);
		cr_expect(strstr(text, "software events yes") != NULL, "%s", text);
	}
	cr_expect(strstr(text, "result: ") != NULL);
	free(text);
	cfg.backend = TD_BACKEND_SOFTWARE;
	text = NULL;
	f = open_memstream(&text, &len);
	cr_expect_eq(td_check_run(&cfg, &m, f), 0);
	fclose(f);
	free(text);
	td_config_exit(&cfg);
}
