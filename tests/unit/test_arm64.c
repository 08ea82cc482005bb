/* arm64 specifics (collector/arch/aarch64/td_arm64.h): CPU lists, format
 * terms, the TopDown flavour by MIDR, the event sets, the config1 bits and
 * the 64-bit retry, and the PMU choice on heterogeneous machines (fake sysfs
 * trees). aarch64 builds only: run under qemu-user by scripts/qemu-arm64-test. */
#include <criterion/criterion.h>

#ifdef TD_ARCH_aarch64
#include "collector/arch/aarch64/td_arm64.h"
#include "collector/td_counts.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

Test(arm64, cpulist_parse)
{
	cpu_set_t s;
	cr_assert_eq(td_arm64_cpulist_parse("0-3,8", &s), 0);
	cr_expect_eq(CPU_COUNT(&s), 5);
	cr_expect(CPU_ISSET(0, &s) && CPU_ISSET(3, &s) && CPU_ISSET(8, &s) && !CPU_ISSET(4, &s));
	cr_assert_eq(td_arm64_cpulist_parse("5\n", &s), 0);
	cr_expect_eq(CPU_COUNT(&s), 1);
	cr_expect_eq(td_arm64_cpulist_parse("3-1", &s), -EINVAL);
	cr_expect_eq(td_arm64_cpulist_parse("x", &s), -EINVAL);
}

Test(arm64, format_bit)
{
	cr_expect_eq(td_arm64_format_bit("config1:1", "config1"), 1);
	cr_expect_eq(td_arm64_format_bit("config1:0\n", "config1"), 0);
	cr_expect_eq(td_arm64_format_bit("config1:5-5", "config1"), 5);
	cr_expect_eq(td_arm64_format_bit("config1:2-16", "config1"), -EINVAL);
	cr_expect_eq(td_arm64_format_bit("config:0-15", "config1"), -EINVAL);
}

Test(arm64, topdown_by_midr)
{
	/* Part numbers from perf's mapfile (pmu-facts §4). */
	cr_expect_eq(td_arm64_topdown_of(0x410fd400, true, true, 8), TD_ARM64_TD_V1);
	cr_expect_eq(td_arm64_topdown_of(0x410fd490, true, true, 5), TD_ARM64_TD_N2);
	cr_expect_eq(td_arm64_topdown_of(0x410fd4f0, true, true, 8), TD_ARM64_TD_N2);
	cr_expect_eq(td_arm64_topdown_of(0x410fd0c0, false, true, 0), TD_ARM64_TD_N1_STALL);
	cr_expect_eq(td_arm64_topdown_of(0x410fd0c0, true, true, 4), TD_ARM64_TD_N1_STALL);
	/* Another core with slot events and a slot width: sbsa defaults. */
	cr_expect_eq(td_arm64_topdown_of(0x410fd080, true, true, 3), TD_ARM64_TD_SBSA);
	/* Slot events without caps/slots (QEMU -cpu max): stall cycles at most. */
	cr_expect_eq(td_arm64_topdown_of(0x000f0510, true, true, 0), TD_ARM64_TD_N1_STALL);
	cr_expect_eq(td_arm64_topdown_of(0x000f0510, false, false, 0), TD_ARM64_TD_NONE);
}

Test(arm64, event_sets)
{
	struct td_arm64_event ev[8];
	cr_assert_eq(td_arm64_events(TD_ARM64_TD_NONE, ev, 8), 2);
	cr_expect_eq(ev[0].code, 0x11);
	cr_expect_str_eq(ev[0].name, "cycles");
	cr_expect_eq(ev[1].code, 0x08);
	cr_expect_eq(td_arm64_events(TD_ARM64_TD_SBSA, ev, 8), 7);
	cr_expect_eq(td_arm64_events(TD_ARM64_TD_V1, ev, 8), 8);
	cr_expect_eq(ev[7].code, 0x10); /* BR_MIS_PRED for the V1/N2 corrections */
	cr_expect_eq(td_arm64_events(TD_ARM64_TD_N1_STALL, ev, 8), 4);
	cr_expect_eq(ev[2].code, 0x23);
	cr_expect_eq(ev[3].code, 0x24);
	cr_expect_eq(td_arm64_events(TD_ARM64_TD_V1, ev, 3), 3);
}

/* Fake perf_event_open: records config1 of each call; refuses the long bit
 * with EOPNOTSUPP when refuse_long. */
static uint64_t calls[4];
static int ncalls;
static bool refuse_long;
static int fake_open(struct perf_event_attr *a, int group_fd)
{
	calls[ncalls++] = a->config1;
	if (refuse_long && (a->config1 & 1))
		return -EOPNOTSUPP;
	return 42;
}

Test(arm64, config1_bits_and_long_retry)
{
	struct td_arm64_pmu p = {.pmu = 0, .type = 8, .rdpmc_bit = 1, .long_bit = 0, .user_access = 1};
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	ncalls = 0;
	refuse_long = false;
	cr_expect_eq(td_arm64_open(&p, &a, -1, true, true, fake_open), 42);
	cr_expect_eq(ncalls, 1);
	cr_expect_eq(calls[0], 0x3);

	ncalls = 0;
	refuse_long = true;
	cr_expect_eq(td_arm64_open(&p, &a, -1, true, true, fake_open), 42);
	cr_expect_eq(ncalls, 2);
	cr_expect_eq(calls[0], 0x3);
	cr_expect_eq(calls[1], 0x2, "retry without the 64-bit bit: 0x%llx",
		     (unsigned long long)calls[1]);
	cr_expect_eq(a.config1, 0x2);

	/* No user reads asked, or a kernel without the rdpmc term: bit 1 clear. */
	ncalls = 0;
	refuse_long = false;
	cr_expect_eq(td_arm64_open(&p, &a, -1, false, false, fake_open), 42);
	cr_expect_eq(calls[0], 0x0);
	p.rdpmc_bit = -1;
	p.long_bit = -1;
	ncalls = 0;
	cr_expect_eq(td_arm64_open(&p, &a, -1, true, true, fake_open), 42);
	cr_expect_eq(ncalls, 1);
	cr_expect_eq(calls[0], 0x0);
}

static char root[64];

static void put(const char *rel, const char *text)
{
	char path[256], cmd[320];
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", path);
	cr_assert_eq(system(cmd), 0);
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs(text, f);
	fclose(f);
}

static void fake_pmu(struct td_machine *m, const char *name, int type, const char *cpus, int slots)
{
	char rel[128];
	struct td_pmu_info *p = &m->pmus[m->nr_pmus++];
	snprintf(p->name, sizeof(p->name), "%s", name);
	p->type = type;
	p->caps_slots = slots;
	snprintf(p->cpus, sizeof(p->cpus), "%s", cpus);
	snprintf(rel, sizeof(rel), "bus/event_source/devices/%s/format/rdpmc", name);
	put(rel, "config1:1\n");
	snprintf(rel, sizeof(rel), "bus/event_source/devices/%s/format/long", name);
	put(rel, "config1:0\n");
	const char *evs[] = {"stall_slot_frontend", "stall_slot_backend", "stall_slot",
			     "op_retired", "op_spec", "stall_frontend", "stall_backend"};
	for (size_t i = 0; i < sizeof(evs) / sizeof(evs[0]); i++) {
		snprintf(rel, sizeof(rel), "bus/event_source/devices/%s/events/%s", name, evs[i]);
		put(rel, "event=0x3e\n");
	}
}

static void setup_tree(void)
{
	snprintf(root, sizeof(root), "/tmp/td-arm64-XXXXXX");
	cr_assert_not_null(mkdtemp(root));
}

static void teardown_tree(void)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd) != 0)
		cr_log_warn("cannot remove %s", root);
}

Test(arm64, probe_homogeneous_n2, .init = setup_tree, .fini = teardown_tree)
{
	struct td_machine m = {.midr = 0x410fd493, .perf_user_access = 1};
	struct td_arm64_pmu p;
	char why[256] = "";
	fake_pmu(&m, "armv8_pmuv3_0", 10, "0-7", 5);
	put("proc/sys/kernel/perf_user_access", "1\n");
	char proc[128];
	snprintf(proc, sizeof(proc), "%s/proc", root);
	cr_assert_eq(td_arm64_probe(&m, NULL, root, proc, &p, why, sizeof(why)), 0, "%s", why);
	cr_expect_eq(p.type, 10);
	cr_expect_eq(p.rdpmc_bit, 1);
	cr_expect_eq(p.long_bit, 0);
	cr_expect_eq(p.user_access, 1);
	cr_expect_eq(p.slots, 5);
	cr_expect_eq(p.topdown, TD_ARM64_TD_N2);
}

Test(arm64, probe_heterogeneous, .init = setup_tree, .fini = teardown_tree)
{
	struct td_machine m = {.midr = 0x410fd050};
	struct td_arm64_pmu p;
	char why[256] = "";
	cpu_set_t aff;
	fake_pmu(&m, "armv8_cortex_a55", 10, "0-3", 0);
	fake_pmu(&m, "armv8_cortex_a76", 11, "4-7", 0);
	put("proc/sys/kernel/perf_user_access", "0\n");
	char proc[128];
	snprintf(proc, sizeof(proc), "%s/proc", root);

	/* Pinned to the big cores: their PMU. */
	td_arm64_cpulist_parse("4-5", &aff);
	cr_assert_eq(td_arm64_probe(&m, &aff, root, proc, &p, why, sizeof(why)), 0, "%s", why);
	cr_expect_eq(p.type, 11);
	cr_expect_eq(p.user_access, 0);

	/* Allowed on both kinds: refused, both PMUs named, advice given. */
	td_arm64_cpulist_parse("0-7", &aff);
	cr_expect_eq(td_arm64_probe(&m, &aff, root, proc, &p, why, sizeof(why)), -ENODEV);
	cr_expect(strstr(why, "armv8_cortex_a55 (cpus 0-3)") && strstr(why, "armv8_cortex_a76 (cpus 4-7)") &&
		  strstr(why, "taskset"), "%s", why);
}

Test(arm64, probe_no_pmu)
{
	struct td_machine m = {.nr_pmus = 0};
	struct td_arm64_pmu p;
	char why[256] = "";
	snprintf(m.no_pmu_reason, sizeof(m.no_pmu_reason), "no hardware PMU: test");
	cr_expect_eq(td_arm64_probe(&m, NULL, "/nonexistent", "/nonexistent", &p, why, sizeof(why)),
		     -ENODEV);
	cr_expect_str_eq(why, "no hardware PMU: test");
}

/* events[]: cycles, instructions, stall_slot_frontend, stall_slot_backend,
 * stall_slot, op_retired, op_spec, br_mis_pred */
static void counts(struct td_counts *c, uint64_t cyc, uint64_t fe, uint64_t be, uint64_t st,
		   uint64_t ret, uint64_t spec, uint64_t mis)
{
	memset(c, 0, sizeof(*c));
	uint64_t e[8] = {cyc, cyc, fe, be, st, ret, spec, mis};
	memcpy(c->events, e, sizeof(e));
}

Test(arm64, topdown_sbsa_exact)
{
	struct td_counts c;
	counts(&c, 1000, 1000, 2000, 3000, 800, 1000, 0);
	cr_assert_eq(td_arm64_topdown_apply(TD_ARM64_TD_SBSA, 5, 0x410fd080, &c), 0);
	/* slots 5*1000; fe 1000/5000; be 2000/5000; busy 1-3000/5000 = 0.4
	 * split 0.8/0.2 by OP_RETIRED/OP_SPEC. */
	cr_expect_eq(c.slots, 5000);
	cr_expect_eq(c.node[TD_FRONTEND_BOUND], 1000);
	cr_expect_eq(c.node[TD_BACKEND_BOUND], 2000);
	cr_expect_eq(c.node[TD_RETIRING], 1600);
	cr_expect_eq(c.node[TD_BAD_SPECULATION], 400);
}

Test(arm64, topdown_v1_mispredict_correction)
{
	struct td_counts c;
	counts(&c, 1000, 1600, 2400, 4000, 900, 1000, 50);
	cr_assert_eq(td_arm64_topdown_apply(TD_ARM64_TD_V1, 8, 0x410fd400, &c), 0);
	/* 4*BR_MIS_PRED/CYCLES = 0.2 moves from frontend (0.2 - 0.2) to bad
	 * speculation (0.1*0.5 + 0.2). */
	cr_expect_eq(c.slots, 8000);
	cr_expect_eq(c.node[TD_FRONTEND_BOUND], 0);
	cr_expect_eq(c.node[TD_BACKEND_BOUND], 2400);
	cr_expect_eq(c.node[TD_RETIRING], 3600);
	cr_expect_eq(c.node[TD_BAD_SPECULATION], 2000);
}

Test(arm64, topdown_no_data)
{
	struct td_counts c;
	/* Cycles count but nothing else does (QEMU, or events not counting):
	 * no breakdown, not 100 % bad speculation. */
	counts(&c, 5000, 0, 0, 0, 0, 0, 0);
	cr_expect_eq(td_arm64_topdown_apply(TD_ARM64_TD_SBSA, 5, 0, &c), -ENODATA);
	cr_expect_eq(c.slots, 0);
	cr_expect_eq(c.node[TD_BAD_SPECULATION], 0);
	counts(&c, 0, 0, 0, 0, 0, 0, 0);
	cr_expect_eq(td_arm64_topdown_apply(TD_ARM64_TD_N2, 5, 0x410fd493, &c), -ENODATA);
	counts(&c, 1000, 10, 10, 20, 5, 10, 0);
	cr_expect_eq(td_arm64_topdown_apply(TD_ARM64_TD_N1_STALL, 0, 0x410fd0c0, &c), -ENOENT);
	cr_expect_eq(td_arm64_topdown_apply(TD_ARM64_TD_NONE, 0, 0, &c), -ENOENT);
}

#else

Test(arm64, aarch64_only)
{
	cr_skip_test("arm64 code is built for aarch64 only (scripts/qemu-arm64-test runs it)");
}

#endif
