/* Thread records: created on the thread itself, kept in the process
 * registry after the thread ends so the exit report can list it. */
#include "td_collector.h"
#include "td_limits.h"
#include "td_region.h"
#include "td_series.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Optional modules (own files, may be absent from a build). */
struct td_regions *td_regions_new(const struct td_config *cfg) __attribute__((weak));
void td_regions_close_all(struct td_collector *c, struct td_thread *t) __attribute__((weak));

static pid_t td_gettid(void) { return (pid_t)syscall(SYS_gettid); }

static void td_thread_read_name(struct td_thread *t)
{
	/* Our own comm is one prctl; another thread's needs /proc. */
	if (t->tid == td_gettid()) {
		char name[16] = "";
		if (prctl(PR_GET_NAME, name, 0, 0, 0) == 0) {
			memcpy(t->name, name, sizeof(t->name));
			t->name[15] = '\0';
		}
		return;
	}
	char path[64];
	snprintf(path, sizeof(path), "/proc/self/task/%d/comm", (int)t->tid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	ssize_t n = read(fd, t->name, sizeof(t->name) - 1);
	close(fd);
	if (n > 0) {
		t->name[n] = '\0';
		char *nl = strchr(t->name, '\n');
		if (nl)
			*nl = '\0';
	}
}

struct td_thread *td_thread_start(struct td_collector *c, pid_t parent_tid)
{
	/* Not malloc: the host's allocator may be what we are measuring, and a
	 * record must survive a host that corrupts its heap (td_limits.h). */
	struct td_thread *t = td_limits_record_alloc(sizeof(*t));
	if (!t)
		return NULL;
	memset(t, 0, sizeof(*t));
	t->tid = td_gettid();
	t->parent_tid = parent_tid;
	t->guard = 1;
	t->start_wall_ns = td_clock_wall_ns();
	t->start_cpu_ns = td_clock_thread_cpu_ns();
	for (int i = 0; i < TD_MAX_FDS; i++)
		t->ctr.fds[i] = -1;
	t->ctr.tid = t->tid;
	td_thread_read_name(t);

	const struct td_backend *be = &c->backend;
	int rc = be->ops->thread_open((struct td_backend *)be, &t->ctr);
	if (rc != 0) {
		t->fallback_reason = td_limits_open_reason(rc);
	} else if (td_limits_admit(c, &t->ctr, &t->fallback_reason) != 0) {
		/* Within the fd budget or not at all: the program's fds come first. */
		be->ops->thread_close(be, &t->ctr);
		rc = -EMFILE;
	}
	if (rc != 0) {
		/* fd or mlock budget exhausted: this thread is timed only. */
		t->ctr.fallback = true;
		atomic_fetch_add(&c->nr_fallback_threads, 1);
		td_backend_software_ops.thread_open((struct td_backend *)be, &t->ctr);
	}
	if (c->cfg.functions && c->cfg.functions[0] && td_regions_new)
		t->regions = td_regions_new(&c->cfg);
	if (td_series_thread_start)
		td_series_thread_start(c, t);

	td_thread_snapshot(c, t, &t->seg_start);

	struct td_thread *head = atomic_load(&c->threads);
	do
		t->next = head;
	while (!atomic_compare_exchange_weak(&c->threads, &head, t));
	atomic_fetch_add(&c->nr_threads, 1);
	t->guard = 0;
	return t;
}

void td_thread_snapshot(struct td_collector *c, struct td_thread *t, struct td_sample *s)
{
	memset(s, 0, sizeof(*s));
	if (t->ctr.fallback)
		td_backend_software_ops.snapshot(&c->backend, &t->ctr, s);
	else
		c->backend.ops->snapshot(&c->backend, &t->ctr, s);
}

void td_thread_accumulate(struct td_collector *c, struct td_thread *t,
				 const struct td_sample *a, const struct td_sample *b,
				 struct td_counts *acc)
{
	if (t->ctr.fallback)
		td_backend_software_ops.accumulate(&c->backend, a, b, acc);
	else
		c->backend.ops->accumulate(&c->backend, a, b, acc);
}

void td_thread_fold(struct td_collector *c, struct td_thread *t)
{
	struct td_sample now;
	td_thread_snapshot(c, t, &now);
	td_thread_accumulate(c, t, &t->seg_start, &now, &t->total);
	t->seg_start = now;
}

int td_thread_new_epoch(struct td_collector *c, struct td_thread *t)
{
	const struct td_backend *be = &c->backend;
	if (t->ctr.fallback || !be->ops->reset)
		return -EOPNOTSUPP;
	struct td_sample now;
	td_thread_snapshot(c, t, &now);
	td_thread_accumulate(c, t, &t->seg_start, &now, &t->total);
	int rc = be->ops->reset(be, &t->ctr);
	td_thread_snapshot(c, t, &t->seg_start);
	return rc;
}

void td_thread_end(struct td_collector *c, struct td_thread *t, int how)
{
	int running = TD_THREAD_RUNNING;
	if (!atomic_compare_exchange_strong(&t->state, &running, TD_THREAD_ENDING))
		return; /* already ended, or the exit report took it */
	t->guard++;
	if (t->regions && td_regions_close_all)
		td_regions_close_all(c, t);
	td_thread_fold(c, t);
	if (t->total.no_cpu) { /* regions went without CPU time; the thread need not */
		t->total.cpu_ns = td_clock_thread_cpu_ns() - t->start_cpu_ns;
		t->total.no_cpu = 0;
	}
	if (td_series_thread_end)
		td_series_thread_end(c, t);
	td_thread_read_name(t);
	t->end_wall_ns = td_clock_wall_ns();
	t->how_ended = how;
	if (t->ctr.fallback) {
		td_backend_software_ops.thread_close(&c->backend, &t->ctr);
	} else {
		td_limits_release(c, &t->ctr);
		c->backend.ops->thread_close(&c->backend, &t->ctr);
	}
	atomic_store(&t->state, TD_THREAD_EXITED);
	t->guard--;
}

void td_thread_settle_foreign(struct td_collector *c, struct td_thread *t)
{
	int running = TD_THREAD_RUNNING;
	if (!atomic_compare_exchange_strong(&t->state, &running, TD_THREAD_SETTLED))
		return;
	const struct td_backend *be = &c->backend;
	struct td_sample now;
	memset(&now, 0, sizeof(now));
	td_thread_read_name(t);
	t->how_ended = 3;
	t->end_wall_ns = td_clock_wall_ns();
	int (*foreign)(const struct td_backend *, struct td_thread_counters *, struct td_sample *) =
		t->ctr.fallback ? td_backend_software_ops.snapshot_foreign : be->ops->snapshot_foreign;
	if (foreign && foreign(be, &t->ctr, &now) == 0) {
		td_thread_accumulate(c, t, &t->seg_start, &now, &t->total);
		if (t->total.no_cpu && !(now.flags & TD_SAMPLE_NO_CPU) && now.cpu_ns >= t->start_cpu_ns) {
			t->total.cpu_ns = now.cpu_ns - t->start_cpu_ns;
			t->total.no_cpu = 0;
		}
	}
	else
		t->total.wall_ns += t->end_wall_ns - t->seg_start.wall_ns;
}
