/* td_machine: reads the machine facts of td_machine.h from /proc/cpuinfo,
 * /proc/sys/kernel and <sysfs>/bus/event_source/devices. Startup only
 * (stdio, opendir); never fails, unknown facts keep their defaults. */
#include "td_machine.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#define PATH_LEN 512

/* perf-metrics event names in sysfs: the first four are level 1. */
static const char *const metric_events[] = {
	"topdown-retiring",  "topdown-bad-spec",      "topdown-fe-bound",  "topdown-be-bound",
	"topdown-heavy-ops", "topdown-br-mispredict", "topdown-fetch-lat", "topdown-mem-bound",
};

/* Reads the first line of a file into buf (newline stripped). 0 or -errno. */
static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return -errno;
	if (!fgets(buf, (int)len, f)) {
		fclose(f);
		buf[0] = '\0';
		return -EIO;
	}
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/* Integer (decimal or 0x hex) from a one-line file. */
static int read_int(const char *path, long *out)
{
	char buf[64], *end;
	int rc = read_line(path, buf, sizeof(buf));
	if (rc)
		return rc;
	errno = 0;
	long v = strtol(buf, &end, 0);
	if (end == buf || errno)
		return -EINVAL;
	*out = v;
	return 0;
}

static bool path_exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

static void copy_str(char *dst, size_t len, const char *src)
{
	snprintf(dst, len, "%s", src);
}

/* "key<tabs> : value" -> value, or NULL when key does not match. */
static const char *cpuinfo_value(const char *line, const char *key)
{
	size_t n = strlen(key);
	if (strncmp(line, key, n) != 0)
		return NULL;
	const char *p = line + n;
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p != ':')
		return NULL;
	p++;
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

static bool has_flag(const char *flags, const char *flag)
{
	size_t n = strlen(flag);
	for (const char *p = flags; (p = strstr(p, flag)) != NULL; p += n) {
		bool start = p == flags || p[-1] == ' ';
		bool end = p[n] == '\0' || p[n] == ' ' || p[n] == '\n';
		if (start && end)
			return true;
	}
	return false;
}

static const char *arm_implementer_name(unsigned long impl)
{
	switch (impl) {
	case 0x41: return "ARM";
	case 0x42: return "Broadcom";
	case 0x43: return "Cavium";
	case 0x46: return "Fujitsu";
	case 0x48: return "HiSilicon";
	case 0x4e: return "NVIDIA";
	case 0x51: return "Qualcomm";
	case 0x61: return "Apple";
	case 0xc0: return "Ampere";
	default: return "unknown";
	}
}

/* Only the first processor block describes the CPU; the rest are counted. */
static void probe_cpuinfo(struct td_machine *m, const char *proc_root)
{
	char path[PATH_LEN], line[4096];
	snprintf(path, sizeof(path), "%s/cpuinfo", proc_root);
	FILE *f = fopen(path, "re");
	if (!f)
		return;
	int nproc = 0, siblings = 0, cores = 0;
	long impl = -1, part = 0, variant = 0, revision = 0;
	const char *v;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (cpuinfo_value(line, "processor")) {
			nproc++;
			continue;
		}
		if (nproc > 1)
			continue;
		if ((v = cpuinfo_value(line, "vendor_id")))
			copy_str(m->vendor, sizeof(m->vendor), v);
		else if ((v = cpuinfo_value(line, "cpu family")))
			m->family = atoi(v);
		else if ((v = cpuinfo_value(line, "model name")))
			copy_str(m->model_name, sizeof(m->model_name), v);
		else if ((v = cpuinfo_value(line, "model")))
			m->model = atoi(v);
		else if ((v = cpuinfo_value(line, "stepping")))
			m->stepping = atoi(v);
		else if ((v = cpuinfo_value(line, "siblings")))
			siblings = atoi(v);
		else if ((v = cpuinfo_value(line, "cpu cores")))
			cores = atoi(v);
		else if ((v = cpuinfo_value(line, "flags"))) {
			m->hypervisor = has_flag(v, "hypervisor");
			m->arch_perfmon = has_flag(v, "arch_perfmon");
		} else if ((v = cpuinfo_value(line, "CPU implementer")))
			impl = strtol(v, NULL, 0);
		else if ((v = cpuinfo_value(line, "CPU variant")))
			variant = strtol(v, NULL, 0);
		else if ((v = cpuinfo_value(line, "CPU part")))
			part = strtol(v, NULL, 0);
		else if ((v = cpuinfo_value(line, "CPU revision")))
			revision = strtol(v, NULL, 0);
	}
	fclose(f);
	if (nproc > 0)
		m->ncpus = nproc;
	if (siblings > 0 && cores > 0)
		m->smt = siblings > cores;
	if (impl >= 0) {
		/* MIDR_EL1: implementer[31:24] variant[23:20] arch[19:16]=0xf
		 * (by CPUID scheme) part[15:4] revision[3:0]. */
		copy_str(m->arch, sizeof(m->arch), "aarch64");
		copy_str(m->vendor, sizeof(m->vendor), arm_implementer_name((unsigned long)impl));
		m->midr = ((unsigned long)impl << 24) | ((unsigned long)(variant & 0xf) << 20) |
			  (0xful << 16) | ((unsigned long)(part & 0xfff) << 4) |
			  (unsigned long)(revision & 0xf);
		m->family = 8;
		m->model = (int)part;
		m->stepping = (int)revision;
		if (!m->model_name[0])
			snprintf(m->model_name, sizeof(m->model_name),
				 "%s part 0x%03lx r%ldp%ld", m->vendor, (unsigned long)part,
				 variant, revision);
	} else if (m->vendor[0]) {
		copy_str(m->arch, sizeof(m->arch), "x86_64");
	}
}

/* A core PMU is the CPU's own: cpu, cpu_core, cpu_atom on x86; armv8_* /
 * armv9_* or an arm_* PMU with a cpus list on arm64 (arm_spe, arm_cmn and
 * friends are uncore or tracing units and have no "cpus" file). */
static bool is_core_pmu(const char *dir, const char *name)
{
	if (!strcmp(name, "cpu") || !strcmp(name, "cpu_core") || !strcmp(name, "cpu_atom"))
		return true;
	if (!strncmp(name, "armv8_", 6) || !strncmp(name, "armv9_", 6))
		return true;
	if (!strncmp(name, "arm_", 4) && strncmp(name, "arm_spe", 7) && strncmp(name, "arm_cmn", 7) &&
	    strncmp(name, "arm_dsu", 7) && strncmp(name, "arm_smmu", 8) &&
	    strncmp(name, "arm_cspmu", 9)) {
		char path[PATH_LEN];
		snprintf(path, sizeof(path), "%s/%s/cpus", dir, name);
		return path_exists(path);
	}
	return false;
}

static void probe_pmu(struct td_pmu_info *p, const char *dir, const char *name)
{
	char path[PATH_LEN];
	long v;
	copy_str(p->name, sizeof(p->name), name);
	p->type = -1;
	snprintf(path, sizeof(path), "%s/%s/type", dir, name);
	if (!read_int(path, &v))
		p->type = (int)v;
	snprintf(path, sizeof(path), "%s/%s/events/slots", dir, name);
	p->has_slots = path_exists(path);
	for (size_t i = 0; i < sizeof(metric_events) / sizeof(metric_events[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s/events/%s", dir, name, metric_events[i]);
		if (path_exists(path))
			p->nr_topdown++;
	}
	snprintf(path, sizeof(path), "%s/%s/caps/slots", dir, name);
	if (!read_int(path, &v))
		p->caps_slots = (int)v;
	snprintf(path, sizeof(path), "%s/%s/cpus", dir, name);
	if (read_line(path, p->cpus, sizeof(p->cpus))) {
		snprintf(path, sizeof(path), "%s/%s/cpumask", dir, name);
		if (read_line(path, p->cpus, sizeof(p->cpus)))
			p->cpus[0] = '\0';
	}
	snprintf(path, sizeof(path), "%s/%s/rdpmc", dir, name);
	p->rdpmc = read_int(path, &v) ? -1 : (int)v;
}

static int cmp_pmu(const void *a, const void *b)
{
	return strcmp(((const struct td_pmu_info *)a)->name, ((const struct td_pmu_info *)b)->name);
}

static void probe_pmus(struct td_machine *m, const char *sysfs_root)
{
	char dir[PATH_LEN];
	snprintf(dir, sizeof(dir), "%s/bus/event_source/devices", sysfs_root);
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		if (!strcmp(e->d_name, "software") || !strcmp(e->d_name, "tracepoint") ||
		    !strcmp(e->d_name, "breakpoint") || !strcmp(e->d_name, "kprobe") ||
		    !strcmp(e->d_name, "uprobe") || !strcmp(e->d_name, "msr"))
			continue;
		if (m->nr_pmus >= TD_MAX_PMUS || !is_core_pmu(dir, e->d_name))
			continue;
		probe_pmu(&m->pmus[m->nr_pmus++], dir, e->d_name);
	}
	closedir(d);
	/* Directory order is arbitrary; sorted makes reports and tests stable. */
	qsort(m->pmus, (size_t)m->nr_pmus, sizeof(m->pmus[0]), cmp_pmu);
}

/* Picks the PMU TopDown is read from: the perf-metrics PMU when there is one
 * (cpu, or cpu_core on hybrids), else the big-core PMU the generic-event
 * formulas use (cpu, cpu_core, or the first arm64 PMU). */
static void choose_core_pmu(struct td_machine *m)
{
	int atom = -1, core = -1;
	for (int i = 0; i < m->nr_pmus; i++) {
		const struct td_pmu_info *p = &m->pmus[i];
		if (!strcmp(p->name, "cpu_atom")) {
			atom = i;
			continue;
		}
		if (!strcmp(p->name, "cpu_core"))
			core = i;
		if (p->has_slots && p->nr_topdown >= 4 && m->core_pmu < 0) {
			m->core_pmu = i;
			m->topdown_level = p->nr_topdown >= 8 ? 2 : 1;
		}
	}
	m->hybrid = core >= 0 && atom >= 0;
	if (m->core_pmu >= 0)
		return;
	for (int i = 0; i < m->nr_pmus; i++) {
		if (i != atom) {
			m->core_pmu = i;
			return;
		}
	}
}

static void explain_no_pmu(struct td_machine *m, const char *sysfs_root)
{
	if (m->nr_pmus > 0)
		return;
	if (m->hypervisor)
		copy_str(m->no_pmu_reason, sizeof(m->no_pmu_reason),
			 "no hardware PMU: running under a hypervisor without vPMU");
	else if (!strcmp(m->arch, "x86_64") && !m->arch_perfmon)
		copy_str(m->no_pmu_reason, sizeof(m->no_pmu_reason),
			 "no hardware PMU: the CPU reports no arch_perfmon and the kernel registered "
			 "no cpu PMU");
	else
		snprintf(m->no_pmu_reason, sizeof(m->no_pmu_reason),
			 "no hardware PMU: no core PMU in %s/bus/event_source/devices "
			 "(kernel without a PMU driver?)",
			 sysfs_root);
}

void td_machine_probe(struct td_machine *m, const char *sysfs_root, const char *proc_root)
{
	char path[PATH_LEN];
	long v;
	memset(m, 0, sizeof(*m));
	m->paranoid = -100;
	m->perf_user_access = -1;
	m->core_pmu = -1;
	if (!sysfs_root)
		sysfs_root = "/sys";
	if (!proc_root)
		proc_root = "/proc";

	probe_cpuinfo(m, proc_root);
	if (!m->arch[0]) {
		struct utsname u;
		if (!uname(&u))
			copy_str(m->arch, sizeof(m->arch), u.machine);
	}
	/* SMT from the kernel's own view when it has one. */
	snprintf(path, sizeof(path), "%s/devices/system/cpu/smt/active", sysfs_root);
	if (!read_int(path, &v))
		m->smt = v != 0;
	snprintf(path, sizeof(path), "%s/sys/kernel/perf_event_paranoid", proc_root);
	if (!read_int(path, &v))
		m->paranoid = (int)v;
	snprintf(path, sizeof(path), "%s/sys/kernel/perf_user_access", proc_root);
	if (!read_int(path, &v))
		m->perf_user_access = (int)v;

	probe_pmus(m, sysfs_root);
	choose_core_pmu(m);
	explain_no_pmu(m, sysfs_root);
}
