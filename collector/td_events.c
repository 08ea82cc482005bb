/* td_events: event-name parsing and perf_event_open group plumbing. */
#include "td_events.h"

#include <ctype.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

struct named_event {
	const char *name;
	uint32_t type;
	uint64_t config;
};

static const struct named_event named_events[] = {
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
	{ "cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	{ "ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES },
	{ "bus-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES },
	{ "stalled-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "idle-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "stalled-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "idle-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	{ "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
	{ "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "alignment-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS },
	{ "emulation-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS },
};

#define EXPECTED "a generic or software name as in tdprobe list, r<hex>, or <pmu>/event=..,umask=../"

/* Reads a format file ("config:0-7,32-35", "config1:1") and deposits value
 * into the fields it names, low bits first. */
static int put_format(const char *sysfs_root, const char *pmu, const char *term, uint64_t value,
		      struct td_event_spec *out)
{
	char path[512], buf[128];
	snprintf(path, sizeof(path), "%s/bus/event_source/devices/%s/format/%s", sysfs_root, pmu,
		 term);
	FILE *f = fopen(path, "re");
	if (!f)
		return -ENOENT;
	char *ok = fgets(buf, sizeof(buf), f);
	fclose(f);
	if (!ok)
		return -EINVAL;
	char *colon = strchr(buf, ':');
	if (!colon)
		return -EINVAL;
	*colon = '\0';
	uint64_t *field;
	if (!strcmp(buf, "config"))
		field = &out->config;
	else if (!strcmp(buf, "config1"))
		field = &out->config1;
	else
		return -EINVAL; /* config2/config3 terms: not carried in td_event_spec */
	for (char *p = colon + 1; *p && *p != '\n';) {
		char *end;
		long lo = strtol(p, &end, 10), hi = lo;
		if (end == p || lo < 0 || lo > 63)
			return -EINVAL;
		if (*end == '-') {
			p = end + 1;
			hi = strtol(p, &end, 10);
			if (end == p || hi < lo || hi > 63)
				return -EINVAL;
		}
		for (long b = lo; b <= hi; b++, value >>= 1)
			if (value & 1)
				*field |= 1ull << b;
		p = *end == ',' ? end + 1 : end;
		if (*end != ',' && *end != '\0' && *end != '\n')
			return -EINVAL;
	}
	return value ? -ERANGE : 0; /* bits left over did not fit the field */
}

static int parse_pmu_event(const char *tok, const char *sysfs_root, struct td_event_spec *out)
{
	char pmu[64], terms[256], path[512], buf[32];
	const char *slash = strchr(tok, '/');
	size_t plen = (size_t)(slash - tok), tlen = strlen(slash + 1);
	if (plen == 0 || plen >= sizeof(pmu) || tlen == 0 || slash[tlen] != '/' ||
	    tlen - 1 >= sizeof(terms))
		return -EINVAL;
	memcpy(pmu, tok, plen);
	pmu[plen] = '\0';
	memcpy(terms, slash + 1, tlen - 1);
	terms[tlen - 1] = '\0';
	if (strchr(pmu, '.') || strchr(terms, '/'))
		return -EINVAL;
	snprintf(path, sizeof(path), "%s/bus/event_source/devices/%s/type", sysfs_root, pmu);
	FILE *f = fopen(path, "re");
	if (!f)
		return -ENOENT;
	char *ok = fgets(buf, sizeof(buf), f);
	fclose(f);
	if (!ok)
		return -EINVAL;
	out->type = (uint32_t)strtoul(buf, NULL, 10);
	char *save = NULL;
	for (char *t = strtok_r(terms, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(t, '=');
		uint64_t v = 1; /* a bare term is a flag */
		if (eq) {
			char *end;
			*eq = '\0';
			errno = 0;
			v = strtoull(eq + 1, &end, 0);
			if (end == eq + 1 || *end || errno)
				return -EINVAL;
		}
		int rc = put_format(sysfs_root, pmu, t, v, out);
		if (rc)
			return rc;
	}
	return 0;
}

int td_events_parse(const char *tok, const char *sysfs_root, struct td_event_spec *out)
{
	memset(out, 0, sizeof(*out));
	if (!tok || !*tok || strlen(tok) >= sizeof(out->name))
		return -EINVAL;
	snprintf(out->name, sizeof(out->name), "%s", tok);
	for (size_t i = 0; i < sizeof(named_events) / sizeof(named_events[0]); i++) {
		if (!strcasecmp(tok, named_events[i].name)) {
			out->type = named_events[i].type;
			out->config = named_events[i].config;
			return 0;
		}
	}
	if ((tok[0] == 'r' || tok[0] == 'R') && tok[1]) {
		char *end;
		errno = 0;
		unsigned long long v = strtoull(tok + 1, &end, 16);
		/* strtoull accepts a sign and a 0x prefix: a raw code is bare hex. */
		if (!*end && !errno && isxdigit((unsigned char)tok[1]) &&
		    strncasecmp(tok + 1, "0x", 2)) {
			out->type = PERF_TYPE_RAW;
			out->config = v;
			return 0;
		}
	}
	if (strchr(tok, '/'))
		return parse_pmu_event(tok, sysfs_root ? sysfs_root : "/sys", out);
	return -EINVAL;
}

int td_events_parse_list(const char *list, const char *key, const char *sysfs_root,
			 struct td_event_spec *specs, int *n, int max, char *err, size_t errlen)
{
	char tok[128];
	const char *p = list ? list : "";
	while (*p) {
		while (*p == ',' || isspace((unsigned char)*p))
			p++;
		if (!*p)
			break;
		/* A token ends at a comma outside /.../. */
		size_t len = 0;
		bool in_terms = false;
		for (; p[len] && (in_terms || p[len] != ','); len++)
			if (p[len] == '/')
				in_terms = !in_terms;
		size_t tl = len;
		while (tl > 0 && isspace((unsigned char)p[tl - 1]))
			tl--;
		if (tl >= sizeof(tok)) {
			snprintf(err, errlen, "%s: event name too long: '%.40s...'", key, p);
			return -EINVAL;
		}
		memcpy(tok, p, tl);
		tok[tl] = '\0';
		p += len;
		if (*n >= max) {
			snprintf(err, errlen, "%s: too many events at '%s' (at most %d per thread)", key,
				 tok, max);
			return -E2BIG;
		}
		int rc = td_events_parse(tok, sysfs_root, &specs[*n]);
		if (rc == -ENOENT) {
			snprintf(err, errlen, "%s: '%s': no such PMU or format term in sysfs", key, tok);
			return rc;
		}
		if (rc == -ERANGE) {
			snprintf(err, errlen, "%s: '%s': a value does not fit its format field", key,
				 tok);
			return rc;
		}
		if (rc) {
			snprintf(err, errlen, "%s: unknown event '%s' (expected %s)", key, tok,
				 EXPECTED);
			return rc;
		}
		(*n)++;
	}
	return 0;
}

bool td_events_is_software(const struct td_event_spec *ev)
{
	return ev->type == PERF_TYPE_SOFTWARE;
}

void td_events_attr(const struct td_event_spec *ev, bool leader, bool exclude_kernel,
		    struct perf_event_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = ev->type;
	attr->config = ev->config;
	attr->config1 = ev->config1;
	attr->read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
			    PERF_FORMAT_TOTAL_TIME_RUNNING;
	attr->disabled = leader;
	attr->exclude_kernel = exclude_kernel;
	attr->exclude_hv = 1;
}

static int sys_perf_event_open(struct perf_event_attr *attr, int group_fd)
{
	long fd = syscall(SYS_perf_event_open, attr, 0, -1, group_fd, PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : (int)fd;
}

int td_events_open_group(const struct td_event_spec *ev, int n, bool exclude_kernel, int *fds,
			 int *failed)
{
	struct perf_event_attr attr;
	for (int i = 0; i < n; i++)
		fds[i] = -1;
	for (int i = 0; i < n; i++) {
		td_events_attr(&ev[i], i == 0, exclude_kernel, &attr);
		int fd = sys_perf_event_open(&attr, i == 0 ? -1 : fds[0]);
		if (fd < 0) {
			/* Members first, leader last. */
			for (int j = i - 1; j >= 0; j--) {
				close(fds[j]);
				fds[j] = -1;
			}
			if (failed)
				*failed = i;
			return fd;
		}
		fds[i] = fd;
	}
	return 0;
}

int td_events_enable_group(int leader_fd)
{
	return ioctl(leader_fd, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP) < 0 ? -errno : 0;
}

int td_events_read_group(int leader_fd, int n, uint64_t *values, uint64_t *enabled,
			 uint64_t *running)
{
	/* nr, time_enabled, time_running, value[nr] */
	uint64_t buf[3 + 32];
	if (n < 1 || n > 32)
		return -EINVAL;
	ssize_t want = (ssize_t)((3 + n) * sizeof(uint64_t)), got;
	do
		got = read(leader_fd, buf, (size_t)want);
	while (got < 0 && errno == EINTR);
	if (got < 0)
		return -errno;
	if (got != want || buf[0] != (uint64_t)n)
		return -ENODATA;
	*enabled = buf[1];
	*running = buf[2];
	memcpy(values, &buf[3], (size_t)n * sizeof(uint64_t));
	return 0;
}

uint64_t td_events_scale(uint64_t value, uint64_t enabled, uint64_t running)
{
	if (running == 0)
		return 0;
	if (running >= enabled)
		return value;
	return (uint64_t)((unsigned __int128)value * enabled / running);
}

const char *td_events_scale_note(uint64_t enabled, uint64_t running)
{
	if (enabled == 0 || running >= enabled)
		return NULL;
	return running == 0 ? "never ran" : "scaled";
}

const char *td_events_errno_hint(int err)
{
	switch (err < 0 ? -err : err) {
	case ENOENT:
		return "no such event on this machine (no hardware PMU, or not this PMU's event)";
	case EACCES:
		return "not permitted by perf_event_paranoid (keep exclude_kernel = yes, or lower "
		       "kernel.perf_event_paranoid)";
	case EPERM:
		return "perf_event_open blocked (container seccomp without CAP_PERFMON, or "
		       "paranoid > 2)";
	case EINVAL:
		return "rejected by the kernel (bad encoding, or the group cannot fit the counters)";
	case ENOSPC:
		return "not enough counters";
	case EOPNOTSUPP:
		return "not supported by this PMU";
	case ENOSYS:
		return "perf_event_open not available in this kernel";
	case EMFILE:
	case ENFILE:
		return "out of file descriptors";
	case ENODATA:
		return "never scheduled: the counters are taken (NMI watchdog, other users?)";
	default:
		return strerror(err < 0 ? -err : err);
	}
}

/* Burns a little CPU so a trial group gets a chance to run. */
static void spin_briefly(void)
{
	struct timespec a, b;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
	do
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
	while ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) < 200000L);
}

/* Opens specs[lo..hi) as a group, and for hardware groups checks that it
 * actually gets scheduled. 0 or -errno (-ENODATA: never ran); *failed is
 * the index (absolute) the open failed at. */
static int try_group(const struct td_event_spec *specs, int lo, int hi, bool exclude_kernel,
		     int *failed)
{
	int fds[32], idx = 0, rc;
	rc = td_events_open_group(specs + lo, hi - lo, exclude_kernel, fds, &idx);
	if (rc) {
		*failed = lo + idx;
		return rc;
	}
	if (!td_events_is_software(&specs[lo])) {
		uint64_t vals[32], en = 0, run = 0;
		rc = td_events_enable_group(fds[0]);
		if (!rc) {
			spin_briefly();
			rc = td_events_read_group(fds[0], hi - lo, vals, &en, &run);
			if (!rc && run == 0)
				rc = -ENODATA;
		}
		*failed = lo;
	}
	for (int j = hi - lo - 1; j >= 0; j--)
		close(fds[j]);
	return rc;
}

struct plan_state {
	struct td_event_spec *specs;
	bool *drop;
	int *errs;
	struct td_events_plan *plan;
	bool exclude_kernel;
	int fatal;
};

static void add_group(struct plan_state *st, int lo)
{
	if (st->plan->nr_groups < TD_EVENTS_MAX_GROUPS)
		st->plan->group_start[st->plan->nr_groups++] = lo;
	else
		st->fatal = -E2BIG;
}

/* Splits [lo, hi) until each part opens and runs. Groups are recorded by
 * their first spec; dropped singles are marked and skipped. */
static void plan_range(struct plan_state *st, int lo, int hi)
{
	int failed = lo;
	int rc = try_group(st->specs, lo, hi, st->exclude_kernel, &failed);
	if (rc == 0) {
		add_group(st, lo);
		return;
	}
	bool splittable = rc == -EINVAL || rc == -ENOSPC || rc == -ENODATA;
	if (st->specs[lo].pin) {
		/* Pinned: all or nothing. */
		for (int k = lo; k < hi; k++) {
			st->drop[k] = true;
			st->errs[k] = rc;
		}
		return;
	}
	if (hi - lo == 1 || !splittable) {
		/* A per-event error (ENOENT, EACCES, ...) is the failing event's
		 * own; drop it and plan the rest. */
		int bad = hi - lo == 1 ? lo : failed;
		st->drop[bad] = true;
		st->errs[bad] = rc;
		if (hi - lo == 1)
			return;
		/* Re-plan the parts either side of the bad event. */
		if (bad > lo)
			plan_range(st, lo, bad);
		if (bad + 1 < hi)
			plan_range(st, bad + 1, hi);
		return;
	}
	int mid = lo + (hi - lo) / 2;
	plan_range(st, lo, mid);
	plan_range(st, mid, hi);
}

int td_events_plan(struct td_event_spec *specs, int *n, bool exclude_kernel,
		   struct td_events_plan *plan, char *dropped, size_t droppedlen)
{
	bool drop[32] = { false };
	int errs[32] = { 0 };
	int count = *n;
	if (count > 32)
		return -E2BIG;
	memset(plan, 0, sizeof(*plan));
	if (dropped && droppedlen)
		dropped[0] = '\0';
	struct plan_state st = { specs, drop, errs, plan, exclude_kernel, 0 };
	/* Runs of the same kind (software / not, pin) start as one group each. */
	for (int lo = 0; lo < count;) {
		int hi = lo + 1;
		while (hi < count &&
		       td_events_is_software(&specs[hi]) == td_events_is_software(&specs[lo]) &&
		       specs[hi].pin == specs[lo].pin)
			hi++;
		plan_range(&st, lo, hi);
		lo = hi;
	}
	if (st.fatal)
		return st.fatal;
	/* Compact: remove dropped specs, remap group starts (groups are in
	 * ascending order and never start at a dropped spec). */
	int newidx[33], k = 0;
	size_t used = 0;
	for (int i = 0; i < count; i++) {
		newidx[i] = k;
		if (drop[i]) {
			if (dropped && used < droppedlen)
				used += (size_t)snprintf(dropped + used, droppedlen - used,
							 "%s%s (%s)", used ? ", " : "",
							 specs[i].name, td_events_errno_hint(errs[i]));
			continue;
		}
		specs[k++] = specs[i];
	}
	newidx[count] = k;
	for (int g = 0; g < plan->nr_groups; g++)
		plan->group_start[g] = newidx[plan->group_start[g]];
	plan->group_start[plan->nr_groups] = k;
	*n = k;
	return k ? 0 : -ENOENT;
}
