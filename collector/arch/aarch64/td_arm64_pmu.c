/* td_arm64: PMU choice, config1 bits, perf_user_access, event sets
 * (see td_arm64.h). Startup code except td_arm64_open. */
#include "td_arm64.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define PATH_LEN 512

static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return -errno;
	char *ok = fgets(buf, (int)len, f);
	fclose(f);
	if (!ok)
		return -EIO;
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

static bool exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

int td_arm64_cpulist_parse(const char *list, cpu_set_t *set)
{
	CPU_ZERO(set);
	const char *p = list;
	while (*p) {
		char *end;
		long a = strtol(p, &end, 10), b;
		if (end == p || a < 0 || a >= CPU_SETSIZE)
			return -EINVAL;
		b = a;
		p = end;
		if (*p == '-') {
			b = strtol(p + 1, &end, 10);
			if (end == p + 1 || b < a || b >= CPU_SETSIZE)
				return -EINVAL;
			p = end;
		}
		for (long c = a; c <= b; c++)
			CPU_SET((int)c, set);
		if (*p == ',')
			p++;
		else if (*p && *p != '\n')
			return -EINVAL;
		else
			break;
	}
	return 0;
}

int td_arm64_format_bit(const char *value, const char *field)
{
	size_t n = strlen(field);
	if (strncmp(value, field, n) != 0 || value[n] != ':')
		return -EINVAL;
	char *end;
	long lo = strtol(value + n + 1, &end, 10), hi = lo;
	if (end == value + n + 1 || lo < 0 || lo > 63)
		return -EINVAL;
	if (*end == '-') {
		hi = strtol(end + 1, &end, 10);
		if (hi != lo)
			return -EINVAL;
	}
	return *end == '\0' || *end == '\n' ? (int)lo : -EINVAL;
}

enum td_arm64_topdown td_arm64_topdown_of(unsigned long midr, bool have_slot, bool have_stall,
					   int slots)
{
	unsigned impl = (unsigned)(midr >> 24) & 0xff, part = (unsigned)(midr >> 4) & 0xfff;
	if (impl == 0x41 && have_slot) {
		switch (part) {
		case 0xd40: return TD_ARM64_TD_V1;
		case 0xd49: /* N2 */
		case 0xd4f: return TD_ARM64_TD_N2; /* V2 */
		}
	}
	if (impl == 0x41 && part == 0xd0c)
		return have_stall ? TD_ARM64_TD_N1_STALL : TD_ARM64_TD_NONE;
	if (have_slot && slots > 0)
		return TD_ARM64_TD_SBSA;
	/* No slot width: the slot formulas cannot be evaluated; stall cycles can. */
	return have_stall ? TD_ARM64_TD_N1_STALL : TD_ARM64_TD_NONE;
}

const char *td_arm64_topdown_name(enum td_arm64_topdown td)
{
	switch (td) {
	case TD_ARM64_TD_SBSA: return "Arm TopDown L1 (sbsa defaults, slots from caps/slots)";
	case TD_ARM64_TD_V1: return "Arm TopDown L1 (Neoverse V1)";
	case TD_ARM64_TD_N2: return "Arm TopDown L1 (Neoverse N2/V2)";
	case TD_ARM64_TD_N1_STALL: return "Arm stall cycles (frontend/backend stalled cycles, no slots)";
	case TD_ARM64_TD_NONE: break;
	}
	return "no TopDown events on this CPU";
}

int td_arm64_events(enum td_arm64_topdown td, struct td_arm64_event *ev, int max)
{
	static const struct td_arm64_event base[] = {
		{TD_ARM_CPU_CYCLES, "cycles"},
		{TD_ARM_INST_RETIRED, "instructions"},
	};
	static const struct td_arm64_event slot[] = {
		{TD_ARM_STALL_SLOT_FRONTEND, "stall_slot_frontend"},
		{TD_ARM_STALL_SLOT_BACKEND, "stall_slot_backend"},
		{TD_ARM_STALL_SLOT, "stall_slot"},
		{TD_ARM_OP_RETIRED, "op_retired"},
		{TD_ARM_OP_SPEC, "op_spec"},
		{TD_ARM_BR_MIS_PRED, "br_mis_pred"},
	};
	static const struct td_arm64_event stall[] = {
		{TD_ARM_STALL_FRONTEND, "stall_frontend"},
		{TD_ARM_STALL_BACKEND, "stall_backend"},
	};
	const struct td_arm64_event *extra = NULL;
	int n = 0, nextra = 0;
	switch (td) {
	case TD_ARM64_TD_SBSA: extra = slot; nextra = 5; break; /* no BR_MIS_PRED */
	case TD_ARM64_TD_V1:
	case TD_ARM64_TD_N2: extra = slot; nextra = 6; break;
	case TD_ARM64_TD_N1_STALL: extra = stall; nextra = 2; break;
	case TD_ARM64_TD_NONE: break;
	}
	for (int i = 0; i < 2 && n < max; i++)
		ev[n++] = base[i];
	for (int i = 0; i < nextra && n < max; i++)
		ev[n++] = extra[i];
	return n;
}

/* Does the PMU list all of the named events in sysfs? */
static bool has_events(const char *dir, const char *const *names)
{
	char path[PATH_LEN];
	for (; *names; names++) {
		snprintf(path, sizeof(path), "%s/events/%s", dir, *names);
		if (!exists(path))
			return false;
	}
	return true;
}

static int format_bit(const char *dir, const char *term)
{
	char path[PATH_LEN], buf[64];
	snprintf(path, sizeof(path), "%s/format/%s", dir, term);
	if (read_line(path, buf, sizeof(buf)))
		return -1;
	int b = td_arm64_format_bit(buf, "config1");
	return b < 0 ? -1 : b;
}

int td_arm64_probe(const struct td_machine *m, const cpu_set_t *aff, const char *sysfs_root,
		   const char *proc_root, struct td_arm64_pmu *out, char *why, size_t len)
{
	memset(out, 0, sizeof(*out));
	out->pmu = -1;
	out->user_access = -1;
	int cand[TD_MAX_PMUS], ncand = 0;
	for (int i = 0; i < m->nr_pmus; i++)
		if (!strncmp(m->pmus[i].name, "armv8_", 6) || !strncmp(m->pmus[i].name, "armv9_", 6) ||
		    !strncmp(m->pmus[i].name, "arm_", 4))
			cand[ncand++] = i;
	if (ncand == 0) {
		snprintf(why, len, "%s", m->no_pmu_reason[0] ? m->no_pmu_reason
				 : "no hardware PMU: no armv8_pmuv3 PMU in /sys/bus/event_source/devices");
		return -ENODEV;
	}
	int pick = cand[0];
	if (ncand > 1 && aff) {
		/* Heterogeneous: user access needs every CPU the thread may run on
		 * to belong to one PMU (pmu-facts §4). */
		int used = 0;
		char names[160] = "";
		for (int k = 0; k < ncand; k++) {
			const struct td_pmu_info *p = &m->pmus[cand[k]];
			cpu_set_t cpus, both;
			if (!p->cpus[0] || td_arm64_cpulist_parse(p->cpus, &cpus))
				continue;
			CPU_AND(&both, &cpus, aff);
			if (CPU_COUNT(&both) == 0)
				continue;
			if (used++ == 0)
				pick = cand[k];
			size_t l = strlen(names);
			snprintf(names + l, sizeof(names) - l, "%s%s (cpus %s)", l ? ", " : "", p->name,
				 p->cpus);
		}
		if (used > 1) {
			snprintf(why, len, "the CPU affinity spans %d core PMUs: %s; pin the program to "
				 "one core type (taskset -c) to count hardware events", used, names);
			return -ENODEV;
		}
	}
	const struct td_pmu_info *p = &m->pmus[pick];
	char dir[PATH_LEN], path[PATH_LEN + 64], buf[32];
	snprintf(dir, sizeof(dir), "%s/bus/event_source/devices/%s", sysfs_root, p->name);
	out->pmu = pick;
	out->type = p->type;
	out->slots = p->caps_slots;
	out->rdpmc_bit = format_bit(dir, "rdpmc");
	out->long_bit = format_bit(dir, "long");
	snprintf(path, sizeof(path), "%s/sys/kernel/perf_user_access", proc_root);
	if (!read_line(path, buf, sizeof(buf)))
		out->user_access = atoi(buf);
	static const char *const slot_ev[] = {"stall_slot_frontend", "stall_slot_backend",
					      "stall_slot", "op_retired", "op_spec", NULL};
	static const char *const stall_ev[] = {"stall_frontend", "stall_backend", NULL};
	out->topdown = td_arm64_topdown_of(m->midr, has_events(dir, slot_ev),
					   has_events(dir, stall_ev), out->slots);
	if (out->type < 0) {
		snprintf(why, len, "cannot read %s/type", dir);
		return -ENODEV;
	}
	return 0;
}

static int td_arm64_sys_open(struct perf_event_attr *a, int group_fd)
{
	long fd = syscall(SYS_perf_event_open, a, 0, -1, group_fd, PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : (int)fd;
}

int td_arm64_open(const struct td_arm64_pmu *p, struct perf_event_attr *a, int group_fd, bool user,
		  bool want_long, td_arm64_open_fn open_fn)
{
	if (!open_fn)
		open_fn = td_arm64_sys_open;
	a->config1 = 0;
	if (user && p->rdpmc_bit >= 0)
		a->config1 |= UINT64_C(1) << p->rdpmc_bit;
	if (want_long && p->long_bit >= 0) {
		a->config1 |= UINT64_C(1) << p->long_bit;
		int fd = open_fn(a, group_fd);
		if (fd != -EOPNOTSUPP)
			return fd;
		/* No 64-bit event counters (before PMUv3p5): 32-bit, then
		 * td_pmu_read sign-extends by pmc_width. */
		a->config1 &= ~(UINT64_C(1) << p->long_bit);
	}
	return open_fn(a, group_fd);
}
