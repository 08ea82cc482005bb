/* td_check: `tdprobe check` and `tdprobe list` (see td_check.h). */
#include "td_check.h"

#include "../config/td_config.h"
#include "td_backend.h"
#include "td_events.h"
#include "td_formulas.h"
#include "td_machine.h"

#include <dirent.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define LABEL "  %-20s "

static const char *errname(int err)
{
	switch (err < 0 ? -err : err) {
	case ENOENT: return "ENOENT";
	case EACCES: return "EACCES";
	case EPERM: return "EPERM";
	case EINVAL: return "EINVAL";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case ENOSYS: return "ENOSYS";
	case EMFILE: return "EMFILE";
	case ENODEV: return "ENODEV";
	default: return "error";
	}
}

static int open_self(struct perf_event_attr *attr)
{
	long fd = syscall(SYS_perf_event_open, attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : (int)fd;
}

void td_check_measure(struct td_check_env *env, const struct td_config *cfg,
		      const struct td_machine *m)
{
	struct perf_event_attr attr;
	memset(env, 0, sizeof(*env));
	env->sysfs_root = "/sys";
	env->select = td_backend_select;
	env->kernel_open = 1;
	env->rdpmc = -1;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_TASK_CLOCK;
	attr.exclude_kernel = 1;
	int fd = open_self(&attr);
	env->sw_open = fd < 0 ? fd : 0;
	if (fd >= 0)
		close(fd);
	if (cfg && !cfg->exclude_kernel) {
		attr.exclude_kernel = 0;
		fd = open_self(&attr);
		env->kernel_open = fd < 0 ? fd : 0;
		if (fd >= 0)
			close(fd);
	}

	/* rdpmc usability from a self-monitoring event's user page: the sysfs
	 * knob is mode 0600, the page says what this process gets. */
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_HARDWARE;
	attr.config = PERF_COUNT_HW_CPU_CYCLES;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	attr.disabled = 1;
#ifdef __aarch64__
	attr.config1 = 0x2; /* arm64: ask for user access (format "rdpmc") */
#endif
	fd = open_self(&attr);
	env->hw_open = fd < 0 ? fd : 0;
	if (fd < 0)
		return;
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	void *p = mmap(NULL, pg, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		env->rdpmc = 0;
		snprintf(env->rdpmc_why, sizeof(env->rdpmc_why),
			 "mmap of the event's user page failed (%s)", strerror(errno));
		close(fd);
		return;
	}
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	const volatile struct perf_event_mmap_page *pgp = p;
	bool cap = pgp->cap_user_rdpmc;
	uint32_t index = pgp->index;
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	env->rdpmc = cap && index ? 1 : 0;
	if (!cap)
		snprintf(env->rdpmc_why, sizeof(env->rdpmc_why),
			 "the user page has cap_user_rdpmc = 0 (%s)",
			 m && !strcmp(m->arch, "aarch64") ? "kernel.perf_user_access = 0?"
							  : "rdpmc knob 0?");
	else if (!index)
		snprintf(env->rdpmc_why, sizeof(env->rdpmc_why),
			 "the counter was not scheduled (index 0)");
	munmap(p, pg);
	close(fd);
}

/* Short name of why there is no PMU, for the verdict line. */
static void no_pmu_phrase(const struct td_machine *m, char *buf, size_t len)
{
	if (m->hypervisor)
		snprintf(buf, len, "no hardware PMU (hypervisor without vPMU)");
	else
		snprintf(buf, len, "no hardware PMU (no core PMU in sysfs)");
}

static const char *no_pmu_hint(const struct td_machine *m)
{
	if (m->hypervisor)
		return "give the guest a virtual PMU (QEMU/KVM: -cpu host,pmu=on; libvirt: <pmu "
		       "state='on'/>; clouds: a bare-metal or PMU-exposing instance type), or run "
		       "on bare metal; meanwhile backend = software gives time only";
	return "load the CPU's PMU driver / boot without a PMU-disabling option; meanwhile "
	       "backend = software gives time only";
}

static void line(FILE *out, const char *label, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void line(FILE *out, const char *label, const char *fmt, ...)
{
	va_list ap;
	fprintf(out, LABEL, label);
	va_start(ap, fmt);
	vfprintf(out, fmt, ap);
	va_end(ap);
	fputc('\n', out);
}

static void hint(FILE *out, const char *what)
{
	fprintf(out, LABEL "-> %s\n", "", what);
}

static void print_cpu(FILE *out, const struct td_machine *m)
{
	if (m->midr)
		line(out, "cpu", "%s %s MIDR 0x%08lx (part 0x%03x r%lup%d)", m->arch, m->vendor,
		     m->midr, m->model, (m->midr >> 20) & 0xf, m->stepping);
	else
		line(out, "cpu", "%s %s family %d model %d (0x%x) stepping %d: %s",
		     m->arch[0] ? m->arch : "?", m->vendor[0] ? m->vendor : "?", m->family,
		     m->model, m->model, m->stepping, m->model_name[0] ? m->model_name : "?");
	line(out, "cpus", "%d, SMT %s%s", m->ncpus, m->smt ? "on" : "off",
	     m->hybrid ? ", hybrid (P-cores and E-cores)" : "");
	line(out, "hypervisor", "%s", m->hypervisor ? "yes" : "no");
}

static void print_pmus(FILE *out, const struct td_machine *m)
{
	if (m->nr_pmus == 0) {
		line(out, "core PMUs", "none: %s", m->no_pmu_reason);
		return;
	}
	for (int i = 0; i < m->nr_pmus; i++) {
		const struct td_pmu_info *p = &m->pmus[i];
		char td[96] = "";
		if (p->has_slots)
			snprintf(td, sizeof(td), ", perf-metrics: slots + %d topdown events", p->nr_topdown);
		else if (p->nr_topdown)
			snprintf(td, sizeof(td), ", %d topdown events (no slots: not perf-metrics)",
				 p->nr_topdown);
		if (p->caps_slots)
			snprintf(td + strlen(td), sizeof(td) - strlen(td), ", caps/slots %d",
				 p->caps_slots);
		line(out, i == 0 ? "core PMUs" : "", "%s (type %d%s%s)%s%s", p->name, p->type,
		     p->cpus[0] ? ", cpus " : "", p->cpus, td, i == m->core_pmu ? " [TopDown]" : "");
	}
}

static void print_paranoid(FILE *out, const struct td_config *cfg, const struct td_machine *m,
			   const struct td_check_env *env)
{
	if (m->paranoid == -100) {
		line(out, "perf_event_paranoid", "unreadable (/proc/sys/kernel/perf_event_paranoid)");
		return;
	}
	if (m->paranoid >= 3) {
		line(out, "perf_event_paranoid", "%d: perf_event_open is blocked for unprivileged "
		     "users (distribution patch)%s", m->paranoid,
		     env->sw_open == 0 ? ", but this process may open events (privileged)" : "");
		if (env->sw_open)
			hint(out, "sysctl -w kernel.perf_event_paranoid=2, or give the program "
				  "CAP_PERFMON");
		return;
	}
	line(out, "perf_event_paranoid", "%d: per-thread counting of user mode allowed%s",
	     m->paranoid, m->paranoid <= 1 ? ", kernel mode too" : "");
	if (cfg && !cfg->exclude_kernel && env->kernel_open < 0) {
		line(out, "", "no: exclude_kernel = no is refused (%s: %s)", errname(env->kernel_open),
		     td_events_errno_hint(env->kernel_open));
		hint(out, "set [counters] exclude_kernel = yes, or sysctl -w "
			  "kernel.perf_event_paranoid=1, or CAP_PERFMON");
	}
}

static void print_open(FILE *out, const struct td_check_env *env)
{
	char sw[160], hw[160];
	if (env->sw_open)
		snprintf(sw, sizeof(sw), "no (%s: %s)", errname(env->sw_open),
			 td_events_errno_hint(env->sw_open));
	else
		snprintf(sw, sizeof(sw), "yes");
	if (env->hw_open)
		snprintf(hw, sizeof(hw), "no (%s: %s)", errname(env->hw_open),
			 td_events_errno_hint(env->hw_open));
	else
		snprintf(hw, sizeof(hw), "yes");
	line(out, "perf_event_open", "software events %s; hardware events %s", sw, hw);
	if (env->sw_open == -EPERM)
		hint(out, "in a container, allow perf_event_open (CAP_PERFMON, or a seccomp profile "
			  "that permits it)");
}

/* TopDown as the facts allow it; returns the level. */
static int print_topdown(FILE *out, const struct td_config *cfg, const struct td_machine *m,
			 const struct td_check_env *env)
{
	char phrase[96];
	const char *why;
	if (m->core_pmu < 0) {
		no_pmu_phrase(m, phrase, sizeof(phrase));
		line(out, "TopDown", "no: %s", phrase);
		hint(out, no_pmu_hint(m));
		return 0;
	}
	const struct td_pmu_info *p = &m->pmus[m->core_pmu];
	if (m->topdown_level > 0) {
		line(out, "TopDown", "level %d from perf-metrics on %s (rdpmc backend)",
		     m->topdown_level, p->name);
		if (cfg && cfg->topdown_level >= 2 && m->topdown_level < 2)
			line(out, "", "level 2 asked, level 1 only: level 2 needs Sapphire Rapids "
			     "(Golden Cove) or later");
		if (env->rdpmc == 0)
			line(out, "", "without rdpmc the perf backend reads the same counters with "
			     "read() (one syscall per snapshot)");
		if (m->hybrid)
			line(out, "", "hybrid: counts only while a thread runs on %s CPUs %s; E-core "
			     "time is reported as not running", p->name, p->cpus);
		if (m->hybrid)
			hint(out, "pin the program to the P-cores (taskset -c <cpu_core cpus>) for full "
				  "coverage");
		return m->topdown_level;
	}
	enum td_formula_set set = td_formulas_choose(m, &why);
	if (set != TD_FORMULAS_NONE) {
		line(out, "TopDown", "level 1 from generic events: %s (perf backend, group read())",
		     td_formulas_desc(set)->method);
		line(out, "", "no perf-metrics on this CPU: %s", why);
		return 1;
	}
	line(out, "TopDown", "no: %s", why);
	if (!strcmp(m->arch, "aarch64"))
		hint(out, "arm64: Neoverse slot metrics need the arm64 backend (STALL_SLOT events, "
			  "caps/slots)");
	else
		hint(out, "TopDown needs Intel Ice Lake or later (perf-metrics), Intel Skylake "
			  "family or AMD Zen 4 (generic events); use [counters] events for plain "
			  "counters");
	return 0;
}

static void print_rdpmc(FILE *out, const struct td_machine *m, const struct td_check_env *env)
{
	const struct td_pmu_info *p = m->core_pmu >= 0 ? &m->pmus[m->core_pmu] : NULL;
	if (env->rdpmc == 1) {
		line(out, "rdpmc", "yes: the user page of a cycles event has cap_user_rdpmc and an "
		     "index");
		return;
	}
	if (env->rdpmc == 0) {
		line(out, "rdpmc", "no: %s", env->rdpmc_why);
	} else {
		char phrase[96];
		if (m->core_pmu < 0)
			no_pmu_phrase(m, phrase, sizeof(phrase));
		else
			snprintf(phrase, sizeof(phrase), "%s", td_events_errno_hint(env->hw_open));
		line(out, "rdpmc", "no: no hardware counter to read (%s)", phrase);
		return;
	}
	if (p && p->rdpmc == 0)
		hint(out, "as root: echo 1 > /sys/bus/event_source/devices/<pmu>/rdpmc");
	else if (!strcmp(m->arch, "aarch64") && m->perf_user_access == 0)
		hint(out, "as root: sysctl -w kernel.perf_user_access=1");
	else
		hint(out, "as root: check /sys/bus/event_source/devices/cpu/rdpmc (must be 1 or 2)");
}

/* Runs the selector for cfg with backend kind; fills name/reason/level. */
static bool run_select(const struct td_check_env *env, const struct td_config *cfg,
		       const struct td_machine *m, enum td_backend_kind kind, char *name,
		       size_t namelen, char *reason, size_t reasonlen, int *level)
{
	struct td_config c = *cfg;
	struct td_backend be;
	c.backend = kind;
	c.mode = NULL;
	memset(&be, 0, sizeof(be));
	if (!env->select || env->select(&be, &c, m) != 0 || !be.ops) {
		snprintf(name, namelen, "none");
		snprintf(reason, reasonlen, "no backend could be selected");
		*level = 0;
		return false;
	}
	snprintf(name, namelen, "%s", be.ops->name);
	snprintf(reason, reasonlen, "%s", be.reason);
	*level = be.topdown_level;
	if (be.ops->exit)
		be.ops->exit(&be);
	return kind == TD_BACKEND_AUTO || !strcmp(name, td_config_backend_name(kind));
}

static bool check_events(FILE *out, const struct td_config *cfg, const char *sysfs)
{
	struct td_event_spec specs[TD_MAX_EVENTS];
	char err[256];
	int n = 0;
	if (td_events_parse_list(cfg->software_events, "[counters] software_events", sysfs, specs,
				 &n, TD_MAX_EVENTS, err, sizeof(err)) ||
	    td_events_parse_list(cfg->events, "[counters] events", sysfs, specs, &n, TD_MAX_EVENTS,
				 err, sizeof(err))) {
		line(out, "config", "invalid: %s", err);
		return false;
	}
	return true;
}

int td_check_report(const struct td_config *cfg, const struct td_machine *m,
		    const struct td_check_env *env, FILE *out)
{
	const char *asked = td_config_backend_name(cfg->backend);
	char name[32], reason[256], auto_name[32], auto_reason[256], verdict[320];
	int level, auto_level;

	fprintf(out, "tdprobe check\n");
	bool valid = check_events(out, cfg, env->sysfs_root);
	if (valid)
		line(out, "config", "%s: valid (backend %s, TopDown level %lu wanted)",
		     cfg->source ? cfg->source : "built-in defaults", asked, cfg->topdown_level);
	print_cpu(out, m);
	print_pmus(out, m);
	print_topdown(out, cfg, m, env);
	print_rdpmc(out, m, env);
	print_paranoid(out, cfg, m, env);
	print_open(out, env);

	run_select(env, cfg, m, TD_BACKEND_AUTO, auto_name, sizeof(auto_name), auto_reason,
		   sizeof(auto_reason), &auto_level);
	line(out, "auto would pick", "%s (TopDown level %d): %s", auto_name, auto_level,
	     auto_reason);

	bool ok;
	if (cfg->backend == TD_BACKEND_AUTO) {
		ok = auto_level > 0;
		snprintf(name, sizeof(name), "%s", auto_name);
		snprintf(reason, sizeof(reason), "%s", auto_reason);
		level = auto_level;
		if (ok) {
			snprintf(verdict, sizeof(verdict), "TopDown level %d through backend %s",
				 level, name);
		} else if (m->core_pmu < 0) {
			char phrase[96];
			no_pmu_phrase(m, phrase, sizeof(phrase));
			snprintf(verdict, sizeof(verdict), "%s: auto falls back to %s (no TopDown)",
				 phrase, name);
		} else {
			snprintf(verdict, sizeof(verdict), "no TopDown here: auto falls back to %s: "
				 "%.200s", name, reason);
		}
	} else {
		ok = run_select(env, cfg, m, cfg->backend, name, sizeof(name), reason,
				sizeof(reason), &level);
		line(out, "backend asked", "%s -> %s (TopDown level %d): %s", asked, name, level,
		     reason);
		if (ok)
			snprintf(verdict, sizeof(verdict), "backend %s runs (TopDown level %d)", name,
				 level);
		else if (m->core_pmu < 0 && cfg->backend == TD_BACKEND_RDPMC) {
			char phrase[96];
			no_pmu_phrase(m, phrase, sizeof(phrase));
			snprintf(verdict, sizeof(verdict), "%s: backend %s cannot run", phrase, asked);
		} else {
			snprintf(verdict, sizeof(verdict), "backend %s cannot run: %.240s", asked,
				 reason);
		}
	}
	if (!valid)
		snprintf(verdict, sizeof(verdict), "the configuration is invalid (see config above)");
	ok = ok && valid;
	fprintf(out, "result: %s (exit %d): %s\n", ok ? "yes" : "no", ok ? 0 : 1, verdict);
	return ok ? 0 : 1;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Prints the sysfs event names of one PMU, TopDown ones or the others. */
static void print_sysfs_events(FILE *out, const char *sysfs, const char *pmu, bool topdown)
{
	char dir[512];
	snprintf(dir, sizeof(dir), "%s/bus/event_source/devices/%s/events", sysfs, pmu);
	DIR *d = opendir(dir);
	if (!d)
		return;
	char *names[512];
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL && n < 512) {
		if (e->d_name[0] == '.' || strchr(e->d_name, '.'))
			continue; /* .scale/.unit companions */
		bool td = !strncmp(e->d_name, "topdown-", 8) || !strcmp(e->d_name, "slots") ||
			  !strncmp(e->d_name, "stall_slot", 10) || !strncmp(e->d_name, "op_", 3);
		if (td == topdown)
			names[n++] = strdup(e->d_name);
	}
	closedir(d);
	qsort(names, (size_t)n, sizeof(names[0]), cmp_str);
	if (n) {
		fprintf(out, "  %s:", pmu);
		for (int i = 0; i < n; i++) {
			fprintf(out, " %s", names[i] ? names[i] : "?");
			free(names[i]);
		}
		fputc('\n', out);
	}
}

int td_list_report(const struct td_config *cfg, const struct td_machine *m,
		   const struct td_check_env *env, FILE *out)
{
	static const struct {
		enum td_backend_kind kind;
	} kinds[] = { { TD_BACKEND_RDPMC }, { TD_BACKEND_PERF }, { TD_BACKEND_SOFTWARE },
		      { TD_BACKEND_EMULATE } };
	char name[32], reason[256];
	int level;

	fprintf(out, "tdprobe list\nmachine\n");
	print_cpu(out, m);
	print_pmus(out, m);
	if (m->paranoid != -100)
		line(out, "perf_event_paranoid", "%d", m->paranoid);
	if (m->perf_user_access >= 0)
		line(out, "perf_user_access", "%d", m->perf_user_access);

	fprintf(out, "backends\n");
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		bool ok = run_select(env, cfg, m, kinds[i].kind, name, sizeof(name), reason,
				     sizeof(reason), &level);
		char label[32];
		snprintf(label, sizeof(label), "%s", td_config_backend_name(kinds[i].kind));
		if (ok)
			line(out, label, "yes, TopDown level %d: %s", level, reason);
		else
			line(out, label, "no: %s", reason);
	}
	run_select(env, cfg, m, TD_BACKEND_AUTO, name, sizeof(name), reason, sizeof(reason), &level);
	line(out, "auto", "-> %s", name);

	fprintf(out, "TopDown events in sysfs\n");
	bool any = false;
	for (int i = 0; i < m->nr_pmus; i++) {
		print_sysfs_events(out, env->sysfs_root, m->pmus[i].name, true);
		any = true;
	}
	if (!any)
		fprintf(out, "  none: %s\n", m->no_pmu_reason);
	fprintf(out, "other events in sysfs\n");
	for (int i = 0; i < m->nr_pmus; i++)
		print_sysfs_events(out, env->sysfs_root, m->pmus[i].name, false);
	if (!any)
		fprintf(out, "  none\n");
	fprintf(out, "[counters] events accepts\n");
	line(out, "generic (hardware)", "instructions cycles branches branch-misses "
	     "cache-references cache-misses ref-cycles bus-cycles stalled-cycles-frontend "
	     "stalled-cycles-backend");
	line(out, "software", "task-clock cpu-clock page-faults context-switches cpu-migrations "
	     "minor-faults major-faults alignment-faults emulation-faults");
	line(out, "raw", "r<hex> (PERF_TYPE_RAW), e.g. r01c2");
	line(out, "PMU terms", "<pmu>/<term>=<value>,.../ with terms from "
	     "<pmu>/format, e.g. cpu/event=0x3c,umask=0x0/");
	return 0;
}

int td_check_run(const struct td_config *cfg, const struct td_machine *m, FILE *out)
{
	struct td_check_env env;
	td_check_measure(&env, cfg, m);
	return td_check_report(cfg, m, &env, out);
}

int td_list_run(const struct td_config *cfg, const struct td_machine *m, FILE *out)
{
	struct td_check_env env;
	td_check_measure(&env, cfg, m);
	return td_list_report(cfg, m, &env, out);
}
