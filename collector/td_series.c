/* td_series: per-thread time series of cumulative counts.
 *
 * When points are taken
 *   - every [output] interval_ms of the thread's own CPU time, by a POSIX
 *     timer on CLOCK_THREAD_CPUTIME_ID delivered to that thread only
 *     (SIGEV_THREAD_ID) as TD_SERIES_SIGNAL;
 *   - at region boundaries (td_series_sample), at most one per 1/8 of the
 *     interval of wall time, so a hot function cannot flood the buffer;
 *   - once at thread end.
 * A CPU-time timer fires only while the thread runs: an idle thread costs
 * nothing and a thread blocked in a syscall is never interrupted there, so
 * the program's sleeps and reads do not see EINTR from us (the handler is
 * installed with SA_RESTART for the short window where a running syscall
 * could still be hit).
 *
 * Signal: SIGRTMAX-2 (glibc keeps the lowest real-time signals for itself;
 * programs that use real-time signals mostly count up from SIGRTMIN). If the
 * program already has a handler for it at startup, no timer is used and the
 * series has boundary and end points only (said once on stderr). Signals
 * that are not our timer's (other si_code or cookie) are ignored.
 *
 * The handler is async-signal-safe: no allocation, no lock; it skips the
 * tick when tdprobe code already runs on this thread (t->guard), because
 * t->total and t->seg_start may be half-updated then.
 *
 * Memory: a fixed buffer of TD_SERIES_CAP points per thread, mmap'ed at
 * thread start. When full it is decimated (every other point dropped, the
 * minimum spacing doubled), so a long run keeps its whole shape at a coarser
 * step; the report states how many points were dropped. Points hold
 * cumulative values, so dropping points merges intervals exactly.
 *
 * The exit report may read a series while its thread still runs: the
 * reader freezes it first (seq_cst flags, Dekker style), waiting briefly
 * for a handler that is mid-write. */
#include "td_series.h"

#include "td_log.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define TD_SERIES_CAP 512
#define TD_SERIES_MAX_COLS (3 + TD_NODE_COUNT)
#define TD_SERIES_SIGNAL (SIGRTMAX - 2)

struct td_series {
	uint32_t ncols;              /* t_ns, cpu_ns [, slots, nodes...] */
	uint32_t nnodes;             /* TopDown nodes recorded: 0, 4 or 12 */
	_Atomic uint32_t n;          /* points stored */
	uint32_t stride;             /* decimations so far, as a spacing factor */
	uint64_t interval_ns;
	uint64_t last_wall;          /* wall time of the last point */
	uint64_t dropped;            /* points discarded (decimation, spacing) */
	timer_t timer;
	bool has_timer;
	_Atomic int busy;            /* handler or owner writing */
	_Atomic int frozen;          /* report is reading: no more writes */
	uint64_t v[];                /* TD_SERIES_CAP * ncols */
};

/* The signal handler finds its thread's record here (the handler cannot
 * take arguments); one per thread, set at thread start. */
static __thread struct td_thread *td_series_self;
static struct td_collector *td_series_ctx;
static _Atomic int td_series_sig_state; /* 0 unset, 1 installed, -1 unavailable */
static char td_series_cookie;            /* identifies our timer's signals */

static size_t td_series_size(uint32_t ncols)
{
	return sizeof(struct td_series) + (size_t)TD_SERIES_CAP * ncols * sizeof(uint64_t);
}

/* Drops every other point (keeping the first and the newest), doubling the
 * spacing of the points kept from now on. */
static void td_series_decimate(struct td_series *s)
{
	uint32_t n = atomic_load_explicit(&s->n, memory_order_relaxed), k = 0;

	for (uint32_t i = 0; i < n; i += 2, k++)
		if (k != i)
			memcpy(&s->v[(size_t)k * s->ncols], &s->v[(size_t)i * s->ncols],
			       s->ncols * sizeof(uint64_t));
	if (n % 2 == 0 && n > 1) {
		/* keep the newest point too */
		memcpy(&s->v[(size_t)k * s->ncols], &s->v[(size_t)(n - 1) * s->ncols],
		       s->ncols * sizeof(uint64_t));
		k++;
	}
	s->dropped += n - k;
	s->stride *= 2;
	atomic_store_explicit(&s->n, k, memory_order_release);
}

/* Appends a point for t from snapshot now. Caller holds t->guard (or is the
 * handler having taken it) and has set s->busy. min_gap: wall spacing
 * below which the point is not kept. */
static void td_series_put(struct td_collector *c, struct td_thread *t, struct td_series *s,
			  const struct td_sample *now, uint64_t min_gap)
{
	uint32_t n = atomic_load_explicit(&s->n, memory_order_relaxed);

	if (n && now->wall_ns - s->last_wall < min_gap * s->stride) {
		s->dropped++;
		return;
	}
	if (n == TD_SERIES_CAP) {
		td_series_decimate(s);
		n = atomic_load_explicit(&s->n, memory_order_relaxed);
	}
	struct td_counts acc = t->total;
	td_thread_accumulate(c, t, &t->seg_start, now, &acc);
	uint64_t *p = &s->v[(size_t)n * s->ncols];
	p[0] = now->wall_ns > t->start_wall_ns ? now->wall_ns - t->start_wall_ns : 0;
	p[1] = acc.cpu_ns;
	if (s->nnodes) {
		p[2] = acc.slots;
		for (uint32_t k = 0; k < s->nnodes; k++)
			p[3 + k] = acc.node[k];
	}
	s->last_wall = now->wall_ns;
	atomic_store_explicit(&s->n, n + 1, memory_order_release);
}

static bool td_series_enter(struct td_series *s)
{
	atomic_store(&s->busy, 1);
	if (atomic_load(&s->frozen)) {
		atomic_store(&s->busy, 0);
		return false;
	}
	return true;
}

static void td_series_leave(struct td_series *s)
{
	atomic_store(&s->busy, 0);
}

static void td_series_handler(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	if (si->si_code != SI_TIMER || si->si_value.sival_ptr != &td_series_cookie)
		return; /* not our timer: nothing to do, and nobody else's handler was there */
	int saved = errno;
	struct td_thread *t = td_series_self;
	struct td_collector *c = td_series_ctx;
	struct td_series *s = t ? t->series : NULL;

	if (!s || !c || atomic_load(&t->state) != TD_THREAD_RUNNING || t->guard)
		goto out;
	t->guard = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (td_series_enter(s)) {
		struct td_sample now;
		td_thread_snapshot(c, t, &now);
		td_series_put(c, t, s, &now, 0);
		td_series_leave(s);
	}
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->guard = 0;
out:
	errno = saved;
}

/* Installs the handler once per process, unless the program has one. */
static bool td_series_signal_ready(void)
{
	int st = atomic_load(&td_series_sig_state);
	if (st)
		return st > 0;
	struct sigaction old, sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = td_series_handler;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigfillset(&sa.sa_mask);
	int rc = sigaction(TD_SERIES_SIGNAL, NULL, &old);
	if (rc == 0 && !(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_DFL)
		rc = sigaction(TD_SERIES_SIGNAL, &sa, NULL);
	else
		rc = -1;
	int want = rc == 0 ? 1 : -1, zero = 0;
	if (atomic_compare_exchange_strong(&td_series_sig_state, &zero, want) && want < 0)
		td_info("time series: signal %d is in use by the program; sampling at region "
			"boundaries and thread end only",
			TD_SERIES_SIGNAL);
	return atomic_load(&td_series_sig_state) > 0;
}

void td_series_thread_start(struct td_collector *c, struct td_thread *t)
{
	if (!c->cfg.interval_ms || t->series)
		return;
	uint32_t nnodes = 0;
	if (!t->ctr.fallback && c->backend.topdown_level >= 1)
		nnodes = c->backend.topdown_level >= 2 ? TD_NODE_COUNT : TD_L1_NODES;
	uint32_t ncols = 2 + (nnodes ? 1 + nnodes : 0);
	/* mmap, as the thread records: the host's heap is not ours to use. */
	struct td_series *s = mmap(NULL, td_series_size(ncols), PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (s == MAP_FAILED)
		return; /* no series for this thread; the counts are unaffected */
	memset(s, 0, sizeof(*s));
	s->ncols = ncols;
	s->nnodes = nnodes;
	s->stride = 1;
	s->interval_ns = (uint64_t)c->cfg.interval_ms * 1000000u;
	td_series_ctx = c;
	td_series_self = t;
	t->series = s;
	if (!td_series_signal_ready())
		return;
	struct sigevent sev;
	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = TD_SERIES_SIGNAL;
	sev.sigev_value.sival_ptr = &td_series_cookie;
	sev._sigev_un._tid = t->tid;
	if (timer_create(CLOCK_THREAD_CPUTIME_ID, &sev, &s->timer) != 0)
		return;
	struct itimerspec its = {
		.it_interval = { (time_t)(c->cfg.interval_ms / 1000),
				 (long)(c->cfg.interval_ms % 1000) * 1000000L },
	};
	its.it_value = its.it_interval;
	if (timer_settime(s->timer, 0, &its, NULL) != 0) {
		timer_delete(s->timer);
		return;
	}
	s->has_timer = true;
}

void td_series_sample_at(struct td_collector *c, struct td_thread *t, const struct td_sample *now)
{
	struct td_series *s = t->series;

	if (!s || !td_series_enter(s))
		return;
	td_series_put(c, t, s, now, s->interval_ns / 8);
	td_series_leave(s);
}

void td_series_sample(struct td_collector *c, struct td_thread *t)
{
	struct td_series *s = t->series;

	if (!s)
		return;
	/* Cheap spacing test first: a hot region must not pay for a snapshot
	 * that would be dropped anyway. */
	uint32_t n = atomic_load_explicit(&s->n, memory_order_relaxed);
	if (n && td_clock_wall_ns() - s->last_wall < s->interval_ns / 8 * s->stride) {
		s->dropped++;
		return;
	}
	struct td_sample now;
	td_thread_snapshot(c, t, &now);
	td_series_sample_at(c, t, &now);
}

void td_series_thread_end(struct td_collector *c, struct td_thread *t)
{
	struct td_series *s = t->series;

	if (!s)
		return;
	if (s->has_timer) {
		timer_delete(s->timer);
		s->has_timer = false;
	}
	/* Called after the final fold: seg_start is "now", total is complete. */
	if (td_series_enter(s)) {
		td_series_put(c, t, s, &t->seg_start, 0);
		td_series_leave(s);
	}
	if (td_series_self == t)
		td_series_self = NULL;
}

/* Stops writers; false if one stays mid-write (thread stopped by a debugger). */
static bool td_series_freeze(struct td_series *s)
{
	atomic_store(&s->frozen, 1);
	for (int i = 0; i < 1000; i++) {
		if (!atomic_load(&s->busy))
			return true;
		sched_yield();
	}
	return !atomic_load(&s->busy);
}

void td_series_json(const struct td_collector *c, const struct td_thread *t, struct td_json *j)
{
	struct td_series *s = t->series;

	if (!s)
		return;
	/* A thread's own final write happens at its end; another thread still
	 * running is frozen here. A series frozen mid-write is left out. */
	if (!td_series_freeze(s))
		return;
	uint32_t n = atomic_load_explicit(&s->n, memory_order_acquire);
	td_json_key(j, "series");
	td_json_object_begin(j);
	td_json_kv_uint(j, "interval_ms", c->cfg.interval_ms);
	td_json_kv_string(j, "clock", "thread cpu time");
	td_json_kv_uint(j, "capacity", TD_SERIES_CAP);
	td_json_kv_uint(j, "dropped", s->dropped);
	td_json_kv_bool(j, "timer", atomic_load(&td_series_sig_state) > 0);
	td_json_key(j, "columns");
	td_json_array_begin(j);
	td_json_string(j, "t_ns");
	td_json_string(j, "cpu_ns");
	if (s->nnodes) {
		td_json_string(j, "slots");
		for (uint32_t k = 0; k < s->nnodes; k++)
			td_json_string(j, td_node_names[k]);
	}
	td_json_array_end(j);
	td_json_key(j, "points");
	td_json_array_begin(j);
	for (uint32_t i = 0; i < n; i++) {
		const uint64_t *p = &s->v[(size_t)i * s->ncols];
		/* One point per line would make big reports long: keep a point's
		 * numbers together by writing them compactly. */
		td_json_array_begin(j);
		for (uint32_t k = 0; k < s->ncols; k++)
			td_json_uint(j, p[k]);
		td_json_array_end(j);
	}
	td_json_array_end(j);
	td_json_object_end(j);
}
