/* td_machine against fake sysfs/proc trees (tests/unit/data/mkfake.sh). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "td_machine.h"

static struct td_machine probe(const char *name)
{
	char sys[256], proc[256];
	struct td_machine m;
	snprintf(sys, sizeof(sys), "data/machines/%s/sys", name);
	snprintf(proc, sizeof(proc), "data/machines/%s/proc", name);
	td_machine_probe(&m, sys, proc);
	return m;
}

Test(machine, icelake_has_perf_metrics_level1)
{
	struct td_machine m = probe("icl");
	cr_expect_str_eq(m.arch, "x86_64");
	cr_expect_str_eq(m.vendor, "GenuineIntel");
	cr_expect_eq(m.family, 6);
	cr_expect_eq(m.model, 126);
	cr_expect_eq(m.stepping, 5);
	cr_expect_str_eq(m.model_name, "Intel(R) Core(TM) i7-1065G7 CPU @ 1.30GHz");
	cr_expect_eq(m.ncpus, 8);
	cr_expect(m.smt);
	cr_expect(!m.hypervisor);
	cr_expect(m.arch_perfmon);
	cr_expect_eq(m.paranoid, 2);
	cr_expect_eq(m.perf_user_access, -1);
	cr_assert_eq(m.nr_pmus, 1);
	cr_expect_str_eq(m.pmus[0].name, "cpu");
	cr_expect_eq(m.pmus[0].type, 4);
	cr_expect(m.pmus[0].has_slots);
	cr_expect_eq(m.pmus[0].nr_topdown, 4);
	cr_expect_eq(m.pmus[0].rdpmc, 1);
	cr_expect_eq(m.core_pmu, 0);
	cr_expect_eq(m.topdown_level, 1);
	cr_expect(!m.hybrid);
	cr_expect_str_eq(m.no_pmu_reason, "");
}

Test(machine, sapphire_rapids_has_level2)
{
	struct td_machine m = probe("spr");
	cr_expect_eq(m.model, 143);
	cr_expect_eq(m.ncpus, 4);
	cr_expect_eq(m.pmus[0].nr_topdown, 8);
	cr_expect_eq(m.topdown_level, 2);
	cr_expect_eq(m.core_pmu, 0);
}

Test(machine, alder_lake_is_hybrid_and_uses_cpu_core)
{
	struct td_machine m = probe("adl");
	cr_assert_eq(m.nr_pmus, 2);
	/* Sorted by name: cpu_atom, cpu_core. */
	cr_expect_str_eq(m.pmus[0].name, "cpu_atom");
	cr_expect_eq(m.pmus[0].type, 10);
	cr_expect(!m.pmus[0].has_slots);
	cr_expect_eq(m.pmus[0].nr_topdown, 4);
	cr_expect_str_eq(m.pmus[0].cpus, "16-23");
	cr_expect_str_eq(m.pmus[1].name, "cpu_core");
	cr_expect_eq(m.pmus[1].type, 4);
	cr_expect_str_eq(m.pmus[1].cpus, "0-15");
	cr_expect_eq(m.pmus[1].rdpmc, -1);
	cr_expect(m.hybrid);
	cr_expect_eq(m.core_pmu, 1);
	cr_expect_eq(m.topdown_level, 2);
	cr_expect(m.smt);
	cr_expect_eq(m.ncpus, 24);
}

Test(machine, skylake_has_no_perf_metrics_but_a_core_pmu)
{
	struct td_machine m = probe("skl");
	cr_expect_eq(m.model, 94);
	cr_assert_eq(m.nr_pmus, 1);
	cr_expect(!m.pmus[0].has_slots);
	cr_expect_eq(m.pmus[0].nr_topdown, 0, "kernel aliases are not perf-metrics");
	cr_expect_eq(m.topdown_level, 0);
	cr_expect_eq(m.core_pmu, 0);
	cr_expect(m.smt);
}

Test(machine, zen4_identity_and_smt_from_sysfs)
{
	struct td_machine m = probe("zen4");
	cr_expect_str_eq(m.vendor, "AuthenticAMD");
	cr_expect_eq(m.family, 25);
	cr_expect_eq(m.model, 97);
	cr_expect(!m.arch_perfmon);
	cr_expect(m.smt);
	cr_expect_eq(m.nr_pmus, 1);
	cr_expect_eq(m.topdown_level, 0);
	cr_expect_eq(m.core_pmu, 0);
}

Test(machine, neoverse_n2_midr_and_slots)
{
	struct td_machine m = probe("n2");
	cr_expect_str_eq(m.arch, "aarch64");
	cr_expect_str_eq(m.vendor, "ARM");
	cr_expect_eq(m.midr, 0x410fd493ul, "midr %#lx", m.midr);
	cr_expect_eq(m.model, 0xd49);
	cr_expect_eq(m.stepping, 3);
	cr_expect_eq(m.ncpus, 4);
	cr_expect(!m.smt);
	cr_expect_eq(m.perf_user_access, 0);
	cr_assert_eq(m.nr_pmus, 1, "arm_spe_0 is not a core PMU");
	cr_expect_str_eq(m.pmus[0].name, "armv8_pmuv3_0");
	cr_expect_eq(m.pmus[0].type, 10);
	cr_expect_eq(m.pmus[0].caps_slots, 5);
	cr_expect_str_eq(m.pmus[0].cpus, "0-3");
	cr_expect_eq(m.core_pmu, 0);
	cr_expect_eq(m.topdown_level, 0);
}

Test(machine, kvm_without_vpmu_says_why)
{
	struct td_machine m = probe("kvm");
	cr_expect(m.hypervisor);
	cr_expect(!m.arch_perfmon);
	cr_expect_eq(m.nr_pmus, 0);
	cr_expect_eq(m.core_pmu, -1);
	cr_expect_eq(m.topdown_level, 0);
	cr_expect(!m.smt);
	cr_expect_str_eq(m.no_pmu_reason, "no hardware PMU: running under a hypervisor without vPMU");
}

Test(machine, bare_metal_without_pmu_names_arch_perfmon)
{
	struct td_machine m = probe("nopmu");
	cr_expect(!m.hypervisor);
	cr_expect_eq(m.paranoid, 3);
	cr_expect(strstr(m.no_pmu_reason, "arch_perfmon") != NULL, "%s", m.no_pmu_reason);
}

Test(machine, missing_trees_leave_unknowns)
{
	struct td_machine m;
	td_machine_probe(&m, "data/machines/none/sys", "data/machines/none/proc");
	cr_expect_eq(m.paranoid, -100);
	cr_expect_eq(m.perf_user_access, -1);
	cr_expect_eq(m.nr_pmus, 0);
	cr_expect_eq(m.core_pmu, -1);
	cr_expect_eq(m.ncpus, 0);
	cr_expect(m.no_pmu_reason[0] != '\0');
}

/* The real machine: whatever it is, the probe must agree with sysfs. */
Test(machine, this_machine_is_consistent)
{
	struct td_machine m;
	td_machine_probe(&m, "/sys", "/proc");
	cr_expect_gt(m.ncpus, 0);
	cr_expect_neq(m.paranoid, -100);
	cr_expect((m.nr_pmus == 0) == (m.no_pmu_reason[0] != '\0'));
}
