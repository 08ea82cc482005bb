/* td_machine: facts about this machine that decide what can be counted:
 * CPU identity, core PMUs in sysfs, TopDown events, perf_event_paranoid,
 * hypervisor. Read once at startup; tests point it at a fake sysfs/proc tree. */
#ifndef TD_MACHINE_H
#define TD_MACHINE_H

#include <stdbool.h>

#define TD_MAX_PMUS 8

struct td_pmu_info {
	char name[32];       /* cpu, cpu_core, cpu_atom, armv8_pmuv3_0, ... */
	int type;            /* from sysfs "type" */
	bool has_slots;      /* events/slots exists (Intel perf-metrics) */
	int nr_topdown;      /* topdown-* metric events in sysfs: 0, 4 (L1) or 8 (L2) */
	int caps_slots;      /* arm64 caps/slots, 0 if absent */
	char cpus[64];       /* "cpus" or "cpumask" list, empty if absent */
	int rdpmc;           /* x86 "rdpmc" knob 0/1/2; -1 unreadable (mode 0600) or absent */
};

struct td_machine {
	char arch[16];          /* "x86_64", "aarch64" */
	char vendor[32];        /* GenuineIntel, AuthenticAMD, ARM (implementer) */
	int family, model, stepping;
	unsigned long midr;     /* arm64 MIDR_EL1 (0 elsewhere) */
	char model_name[128];
	int ncpus;
	bool hypervisor;        /* /proc/cpuinfo "hypervisor" flag */
	bool arch_perfmon;      /* /proc/cpuinfo "arch_perfmon" flag */
	bool smt;               /* siblings > cores */
	int paranoid;           /* perf_event_paranoid, or -100 if unreadable */
	int perf_user_access;   /* arm64 sysctl, -1 if absent */
	int nr_pmus;
	struct td_pmu_info pmus[TD_MAX_PMUS]; /* core PMUs only */
	int core_pmu;           /* index into pmus of the TopDown-capable PMU, -1 none: the
				 * perf-metrics PMU if any (then topdown_level > 0), else
				 * the big-core PMU for generic-event formulas */
	bool hybrid;            /* cpu_core and cpu_atom both present */
	int topdown_level;      /* perf-metrics level the sysfs events allow: 0, 1, 2 */
	char no_pmu_reason[160]; /* set when there is no core PMU: why, one line */
};

/* Fills m from sysfs_root (normally "/sys") and proc_root ("/proc").
 * Never fails: facts it cannot read stay at their "unknown" values. */
void td_machine_probe(struct td_machine *m, const char *sysfs_root, const char *proc_root);

#endif
