/* td_events: `[counters] events` / `software_events` tokens turned into
 * perf_event_attr (type, config), and the perf_event_open group plumbing
 * the perf backend (and anyone counting extra events) shares: open a group
 * (disabled leader, PERF_FORMAT_GROUP with enabled/running times), read it
 * with one read(2), plan groups the kernel can schedule.
 *
 * Accepted tokens (case-insensitive):
 *   perf generic names   instructions, cycles (cpu-cycles), branches
 *                        (branch-instructions), branch-misses, cache-references,
 *                        cache-misses, ref-cycles, bus-cycles,
 *                        stalled-cycles-frontend, stalled-cycles-backend
 *   software names       task-clock, cpu-clock, page-faults (faults),
 *                        context-switches (cs), cpu-migrations (migrations),
 *                        minor-faults, major-faults, alignment-faults,
 *                        emulation-faults
 *   raw                  r<hex>  (PERF_TYPE_RAW, config = hex)
 *   PMU terms            <pmu>/<term>=<value>,.../   terms from
 *                        <sysfs>/bus/event_source/devices/<pmu>/format/
 *
 * Threading: parsing and planning are startup work; td_events_open_group,
 * td_events_read_group are per thread, on any thread (not hot: syscalls). */
#ifndef TD_EVENTS_H
#define TD_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct td_event_spec {
	char name[48];    /* as the user wrote it, trimmed */
	uint32_t type;    /* PERF_TYPE_* or a PMU's sysfs type */
	uint64_t config;
	uint64_t config1;
	int tag;          /* caller's own (kept through td_events_plan) */
	int pin;          /* nonzero: consecutive specs with the same pin form one group
			   * that is never split (a TopDown slots leader and its
			   * metric events); it opens whole or is dropped whole */
};

/* Parses one token into out. sysfs_root (NULL: "/sys") is only read for
 * <pmu>/.../ tokens. 0, or -EINVAL (unknown name, bad number, bad term),
 * -ENOENT (no such PMU or format term). */
int td_events_parse(const char *tok, const char *sysfs_root, struct td_event_spec *out);

/* Parses a comma-separated list (commas inside /.../ belong to the token)
 * and appends to specs[*n..max). On error returns -errno and writes one line
 * naming the key and the bad token into err, e.g.
 * "[counters] events: unknown event 'cylces' (expected ...)". */
int td_events_parse_list(const char *list, const char *key, const char *sysfs_root,
			 struct td_event_spec *specs, int *n, int max, char *err, size_t errlen);

/* True for PERF_TYPE_SOFTWARE events (always schedulable, no user read). */
bool td_events_is_software(const struct td_event_spec *ev);

/* Fills attr for ev: disabled leader when leader, PERF_FORMAT_GROUP |
 * TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING, exclude_kernel/hv as asked. */
struct perf_event_attr;
void td_events_attr(const struct td_event_spec *ev, bool leader, bool exclude_kernel,
		    struct perf_event_attr *attr);

/* Opens ev[0..n) as one group on the calling thread (pid 0, cpu -1,
 * PERF_FLAG_FD_CLOEXEC), leader disabled; fds[i] receive the fds. On
 * failure closes what it opened, sets *failed to the index that failed and
 * returns -errno. Does not enable the group. */
int td_events_open_group(const struct td_event_spec *ev, int n, bool exclude_kernel, int *fds,
			 int *failed);

/* Enables a group opened by td_events_open_group (PERF_IOC_FLAG_GROUP). */
int td_events_enable_group(int leader_fd);

/* One read(2) of a group: values[0..n) raw, enabled/running times.
 * 0, -errno, or -ENODATA when the kernel returned 0 bytes (pinned group in
 * error state) or a different member count. */
int td_events_read_group(int leader_fd, int n, uint64_t *values, uint64_t *enabled,
			 uint64_t *running);

/* value * enabled / running: the multiplexing estimate. 0 when running is
 * 0 ("never ran"); value unchanged when running == enabled. */
uint64_t td_events_scale(uint64_t value, uint64_t enabled, uint64_t running);

/* Report note for a counted interval: NULL (exact), "scaled" (multiplexed,
 * estimate) or "never ran" (enabled but never scheduled). */
const char *td_events_scale_note(uint64_t enabled, uint64_t running);

/* Group plan: which events go together. group_start[g] is the first spec
 * of group g; group_start[nr_groups] == number of specs kept. */
#define TD_EVENTS_MAX_GROUPS 16
struct td_events_plan {
	int nr_groups;
	int group_start[TD_EVENTS_MAX_GROUPS + 1];
};

/* Decides a schedulable grouping of specs[0..*n) by trial opens on the
 * calling thread: each run of software events, of other events, and of
 * specs sharing a pin starts as one group;
 * a group the kernel rejects (EINVAL, ENOSPC) or never schedules (time
 * running stays 0 over a short busy spin) is split in halves until single
 * events; a single event that cannot be opened or scheduled is dropped from
 * specs (order kept, *n updated) and named in dropped ("cycles (ENOENT),
 * ..."), empty when none. Returns 0, or -errno when every event was dropped. */
int td_events_plan(struct td_event_spec *specs, int *n, bool exclude_kernel,
		   struct td_events_plan *plan, char *dropped, size_t droppedlen);

/* What an open errno means for an event, for users: "no such event on this
 * machine (no hardware PMU?)" for ENOENT, paranoid for EACCES, ... */
const char *td_events_errno_hint(int err);

#endif
