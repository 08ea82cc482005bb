/* td_arm64: the arm64 specifics of counting with the core PMU (pmu-facts §4):
 * which armv8/armv9 PMU a thread's events go to, the config1 bits that ask
 * for user-space reads and 64-bit counters (from the PMU's sysfs format
 * files), the retry when 64-bit counters are refused, the
 * kernel.perf_user_access sysctl, and the event set for this CPU
 * (instructions, cycles, Neoverse TopDown L1 or N1 stall cycles).
 *
 * Threading: td_arm64_probe and td_arm64_events_choose are startup work;
 * td_arm64_open runs on the thread that will own the event. */
#ifndef TD_ARM64_H
#define TD_ARM64_H

#include "td_machine.h"

#include <linux/perf_event.h>
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Armv8 PMUv3 common event numbers used here. */
enum {
	TD_ARM_INST_RETIRED = 0x08,
	TD_ARM_BR_MIS_PRED = 0x10,
	TD_ARM_CPU_CYCLES = 0x11,
	TD_ARM_STALL_FRONTEND = 0x23,
	TD_ARM_STALL_BACKEND = 0x24,
	TD_ARM_OP_RETIRED = 0x3a,
	TD_ARM_OP_SPEC = 0x3b,
	TD_ARM_STALL_SLOT_BACKEND = 0x3d,
	TD_ARM_STALL_SLOT_FRONTEND = 0x3e,
	TD_ARM_STALL_SLOT = 0x3f,
};

/* What TopDown the CPU allows (pmu-facts §4). */
enum td_arm64_topdown {
	TD_ARM64_TD_NONE,    /* no slot or stall events: instructions and cycles only */
	TD_ARM64_TD_SBSA,    /* sbsa.json defaults, width from caps/slots */
	TD_ARM64_TD_V1,      /* Neoverse V1: width 8, branch-mispredict correction */
	TD_ARM64_TD_N2,      /* Neoverse N2/V2 */
	TD_ARM64_TD_N1_STALL /* Neoverse N1 class: stall-cycle fractions, not slots */
};

struct td_arm64_pmu {
	int pmu;             /* index into td_machine.pmus, -1 none */
	int type;            /* perf_event_attr.type */
	int rdpmc_bit;       /* config1 bit of the "rdpmc" format term, -1 if the kernel has none */
	int long_bit;        /* config1 bit of the "long" term, -1 if none */
	int user_access;     /* kernel.perf_user_access: 0, 1, -1 unknown/absent */
	int slots;           /* caps/slots, 0 if absent */
	enum td_arm64_topdown topdown;
};

/* Chooses the PMU for threads with CPU affinity aff (NULL: any CPU) and
 * reads its format terms and the sysctl (sysfs_root, proc_root as for
 * td_machine_probe). 0, or -ENODEV with one line in why (no core PMU, or
 * the affinity spans CPUs of several PMUs: name them and say to pin). */
int td_arm64_probe(const struct td_machine *m, const cpu_set_t *aff, const char *sysfs_root,
		   const char *proc_root, struct td_arm64_pmu *out, char *why, size_t len);

/* Parses a sysfs CPU list ("0-3,8") into set. 0 or -EINVAL. */
int td_arm64_cpulist_parse(const char *list, cpu_set_t *set);

/* Parses a format term value "config1:1" (or "config1:0-0") into the bit
 * number. -EINVAL for other fields or ranges wider than one bit. */
int td_arm64_format_bit(const char *value, const char *field);

/* TopDown flavour for a MIDR, given which events the PMU lists in sysfs
 * (have_slot: stall_slot*, op_spec, op_retired; have_stall: stall_frontend,
 * stall_backend) and caps/slots. */
enum td_arm64_topdown td_arm64_topdown_of(unsigned long midr, bool have_slot, bool have_stall,
					   int slots);
const char *td_arm64_topdown_name(enum td_arm64_topdown td);

/* One event of the arm64 set: raw PMUv3 number and report name. */
struct td_arm64_event {
	uint16_t code;
	const char *name;
};
/* Events for flavour td, cycles first, then instructions, then the
 * flavour's inputs. Returns the count (<= max). */
int td_arm64_events(enum td_arm64_topdown td, struct td_arm64_event *ev, int max);

/* perf_event_open with the arm64 bits: config1 gets the user-read bit when
 * user (and the PMU has one) and the 64-bit bit when want_long; when the
 * kernel refuses 64-bit counters (EOPNOTSUPP: no PMUv3p5) the open is
 * retried without it. pid 0, cpu -1, FD_CLOEXEC. Returns the fd or -errno.
 * open_fn is the syscall (tests pass a fake); NULL means the real one. */
typedef int (*td_arm64_open_fn)(struct perf_event_attr *a, int group_fd);
int td_arm64_open(const struct td_arm64_pmu *p, struct perf_event_attr *a, int group_fd, bool user,
		  bool want_long, td_arm64_open_fn open_fn);

/* TopDown level 1 from the arm64 backend's events (events[] in
 * td_arm64_events order for flavour td, slot width slots, MIDR midr):
 * fills c->slots and c->node[0..3]. -ENODATA when the inputs are all zero
 * (no cycles, or no slot/op counts at all: QEMU, events not counting):
 * "no data", never 0 % or 100 %. -ENOENT for flavours without slots. */
struct td_counts;
int td_arm64_topdown_apply(enum td_arm64_topdown td, int slots, unsigned long midr,
			   struct td_counts *c);

#endif
