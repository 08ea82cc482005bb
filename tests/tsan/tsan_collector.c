/* ThreadSanitizer driver for the collector's threading (Criterion cannot
 * run under TSan: its inheritable arena fails, Snaipe/Criterion#274).
 * Exercises what runs concurrently in a profiled process:
 *   - thread records created and ended on many threads at once (registry
 *     push, record allocator, fd budget admit/release);
 *   - the exit report's settle pass racing threads that are still running
 *     and threads that are ending (the state CAS decides who owns totals);
 *   - fork-free report writing while threads run.
 * Exit status 0 when TSan found nothing (TSan exits 66 otherwise). */
#include "td_collector.h"
#include "td_limits.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NTH 16
#define ROUNDS 40

static struct td_collector c;
static atomic_int go, stop;

static void *worker(void *arg)
{
	(void)arg;
	while (!atomic_load(&go))
		;
	for (int r = 0; r < ROUNDS; r++) {
		struct td_thread *t = td_thread_start(&c, 1);
		if (!t)
			abort();
		for (int k = 0; k < 10; k++)
			td_thread_fold(&c, t);
		td_thread_end(&c, t, 0);
		/* The fd budget's bitmap and counters from many threads. */
		struct td_thread_counters tc;
		memset(&tc, 0, sizeof(tc));
		for (int i = 0; i < TD_MAX_FDS; i++)
			tc.fds[i] = -1;
		tc.fds[0] = open("/dev/null", O_RDONLY | O_CLOEXEC);
		const char *why;
		if (td_limits_admit(&c, &tc, &why) == 0)
			td_limits_release(&c, &tc);
		close(tc.fds[0]);
	}
	/* One record left running, as at process exit. */
	struct td_thread *t = td_thread_start(&c, 1);
	(void)t;
	while (!atomic_load(&stop))
		usleep(1000);
	return NULL;
}

int main(void)
{
	if (td_config_init(&c.cfg) != 0)
		return 1;
	free(c.cfg.output_path);
	char path[64];
	snprintf(path, sizeof(path), "/tmp/tdprobe-tsan-%d.json", (int)getpid());
	c.cfg.output_path = strdup(path);
	c.cfg.summary = false;
	c.cfg.backend = TD_BACKEND_SOFTWARE;
	c.machine.core_pmu = -1;
	td_backend_select(&c.backend, &c.cfg, &c.machine);
	c.pid = getpid();
	c.start_wall_ns = td_clock_wall_ns();
	pthread_t th[NTH];
	for (int i = 0; i < NTH; i++)
		pthread_create(&th[i], NULL, worker, NULL);
	atomic_store(&go, 1);
	usleep(20000);
	/* The exit report while threads are starting, ending and running. */
	int rc = td_report_write(&c, "exit");
	atomic_store(&stop, 1);
	for (int i = 0; i < NTH; i++)
		pthread_join(th[i], NULL);
	unlink(path);
	printf("tsan_collector: %d threads x %d records, report rc %d, %d records, %zu record bytes\n", NTH,
	       ROUNDS + 1, rc, atomic_load(&c.nr_threads), td_limits_record_bytes());
	return rc == 0 ? 0 : 1;
}
