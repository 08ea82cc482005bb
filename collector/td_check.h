/* td_check: the logic behind `tdprobe check` and `tdprobe list`
 * (TDPROBE_MODE=check|list on any host program; the constructor prints the
 * answer on stdout and exits with the returned status before main).
 *
 * check  validates the configuration and says whether this machine can give
 *        TopDown, at which level, through which backend, and each "no" with
 *        its reason and what the user can do. Status 0 when the config is
 *        valid and the requested backend can run (for `auto`: runs with
 *        TopDown), 1 otherwise.
 * list   the machine, the backends that can run, and the events the kernel
 *        exposes in sysfs per core PMU (TopDown ones marked), plus the
 *        generic and software names [counters] events accepts. Status 0.
 *
 * Runtime facts (can this process open a hardware / software event, is the
 * user page readable with rdpmc) are measured by td_check_measure; tests
 * pass their own td_check_env with a fake machine. Not hot: stdio. */
#ifndef TD_CHECK_H
#define TD_CHECK_H

#include <stdio.h>

struct td_backend;
struct td_config;
struct td_machine;

struct td_check_env {
	const char *sysfs_root;   /* for list: <pmu>/events names */
	int sw_open;              /* 0, or -errno opening task-clock */
	int hw_open;              /* 0, or -errno opening hardware cycles (user mode) */
	int kernel_open;          /* 0, -errno with exclude_kernel = 0, 1 not tried */
	int rdpmc;                /* 1 user page has cap_user_rdpmc and index, 0 not, -1 unknown */
	char rdpmc_why[128];      /* why not, when rdpmc == 0 */
	/* Backend selection as the constructor does it (td_backend_select). */
	int (*select)(struct td_backend *be, const struct td_config *cfg,
		      const struct td_machine *m);
};

/* Measures env on the calling thread of this process (sysfs "/sys"). */
void td_check_measure(struct td_check_env *env, const struct td_config *cfg,
		      const struct td_machine *m);

/* Writes the check answer for cfg on m; returns the exit status (0/1). */
int td_check_report(const struct td_config *cfg, const struct td_machine *m,
		    const struct td_check_env *env, FILE *out);
int td_list_report(const struct td_config *cfg, const struct td_machine *m,
		   const struct td_check_env *env, FILE *out);

/* td_check_measure + report, as the constructor calls them. */
int td_check_run(const struct td_config *cfg, const struct td_machine *m, FILE *out);
int td_list_run(const struct td_config *cfg, const struct td_machine *m, FILE *out);

#endif
