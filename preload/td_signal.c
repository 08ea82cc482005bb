/* on_signal: write the report when a configured signal is about to end the
 * process, then let the signal do exactly what it would have done.
 *
 * For each configured signal (opt-in: [output] on_signal = TERM, INT, QUIT)
 * our handler sits in the kernel for the whole run, and sigaction/signal
 * are interposed so the program sees and sets only its own view:
 *   - the program's disposition is remembered ("prog view"); sigaction's
 *     oldact reports it, never our handler;
 *   - the kernel gets our handler with the program's mask and flags
 *     (SA_RESETHAND is emulated so our handler stays), or SIG_IGN when the
 *     program ignores the signal (ignoring is then exact, pending signals
 *     included);
 *   - a program handler is called with the program's own arguments; the
 *     program's own exit path (exit, _exit) writes the report, so a
 *     handler that does not end the process (reload, "press again") loses
 *     nothing;
 *   - default action: the report is written now, the disposition is set to
 *     SIG_DFL, the signal is sent again to this thread and our handler
 *     returns: the kernel restores the interrupted context and the pending
 *     signal ends the process there, with the same status and core dump.
 *
 * Async-signal-safety. Writing the report uses malloc and stdio, which are
 * not async-signal-safe: if the signal interrupted this same thread inside
 * malloc or stdio, the writer could block on a lock it already holds. It
 * only runs when the process is about to die anyway, and it is bounded by
 * a watchdog: before writing, the signal's disposition is already SIG_DFL
 * and unblocked on this thread, and a one-shot kernel timer sends the same
 * signal to this thread after TD_SIGNAL_WATCHDOG_S. A writer that blocks is
 * thus ended by the very signal it was handling: the exit status is what
 * it would have been, only the report is missing. A second signal from the
 * user during the write ends the process at once, as without us. */
#include "td_preload.h"

#include "../collector/td_log.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define TD_SIGNAL_WATCHDOG_S 3

/* Signals whose default action ends the process and that a user stops a
 * program with; SEGV/ABRT & co. mean a broken heap: no report there. */
static const struct {
	const char *name;
	int sig;
} td_signal_names[] = {
	{ "HUP", SIGHUP },   { "INT", SIGINT },   { "QUIT", SIGQUIT }, { "TERM", SIGTERM },
	{ "USR1", SIGUSR1 }, { "USR2", SIGUSR2 }, { "ALRM", SIGALRM },
};

const char *td_signal_name(int sig)
{
	for (size_t i = 0; i < sizeof(td_signal_names) / sizeof(td_signal_names[0]); i++)
		if (td_signal_names[i].sig == sig)
			return td_signal_names[i].name;
	return NULL;
}

/* Parses an on_signal list ("TERM, SIGINT, quit") into a bit mask of signal
 * numbers. Returns 0, or -EINVAL with the offending item in bad. */
int td_signal_parse(const char *list, uint64_t *mask, char *bad, size_t badlen)
{
	char item[32];
	const char *pos = list;
	*mask = 0;
	while (td_config_list_next(&pos, item, sizeof(item))) {
		const char *name = item;
		if (strncasecmp(name, "SIG", 3) == 0)
			name += 3;
		int sig = 0;
		for (size_t i = 0; i < sizeof(td_signal_names) / sizeof(td_signal_names[0]); i++)
			if (strcasecmp(name, td_signal_names[i].name) == 0)
				sig = td_signal_names[i].sig;
		if (!sig) {
			snprintf(bad, badlen, "%s", item);
			return -EINVAL;
		}
		*mask |= 1ull << sig;
	}
	return 0;
}

#ifndef TD_UNIT_TEST

/* The program's view of one managed signal. Written under a spin lock with
 * all signals blocked on the writer (sigaction is async-signal-safe and may
 * be called from a handler); read by our handler through a sequence count. */
struct td_sigslot {
	_Atomic unsigned seq;
	_Atomic bool managed;
	struct sigaction prog;
};

static struct td_sigslot td_sig[65];
static atomic_flag td_sig_lock = ATOMIC_FLAG_INIT;

typedef int (*td_sigaction_fn)(int, const struct sigaction *, struct sigaction *);

static td_sigaction_fn td_real_sigaction(void)
{
	static td_sigaction_fn real;
	if (td_unlikely(!real))
		real = (td_sigaction_fn)td_preload_next("sigaction");
	return real;
}

static bool td_sig_managed(int sig)
{
	return sig > 0 && sig < 65 && atomic_load_explicit(&td_sig[sig].managed, memory_order_acquire);
}

static void td_sig_read(int sig, struct sigaction *out)
{
	struct td_sigslot *s = &td_sig[sig];
	unsigned a, b;
	do {
		while ((a = atomic_load_explicit(&s->seq, memory_order_acquire)) & 1)
			;
		memcpy(out, &s->prog, sizeof(*out));
		atomic_thread_fence(memory_order_acquire);
		b = atomic_load_explicit(&s->seq, memory_order_relaxed);
	} while (a != b);
}

static void td_signal_handler(int sig, siginfo_t *info, void *uctx);

/* What the kernel must hold for the program's view p. */
static void td_sig_kernel_act(const struct sigaction *p, struct sigaction *k)
{
	memset(k, 0, sizeof(*k));
	k->sa_mask = p->sa_mask;
	if (p->sa_handler == SIG_IGN) {
		k->sa_handler = SIG_IGN;
		k->sa_flags = p->sa_flags;
		return;
	}
	k->sa_sigaction = td_signal_handler;
	if (p->sa_handler == SIG_DFL) {
		/* The default action ends the process; keep interrupted calls as they were. */
		k->sa_flags = SA_SIGINFO | SA_RESTART;
		return;
	}
	k->sa_flags = (p->sa_flags | SA_SIGINFO) & ~SA_RESETHAND;
	if (p->sa_flags & SA_RESETHAND)
		k->sa_flags |= SA_NODEFER; /* what RESETHAND implies, emulated below */
}

/* Sets the program's view of a managed signal and the kernel's matching
 * disposition; returns the previous program view in old. */
static int td_sig_set(int sig, const struct sigaction *act, struct sigaction *old)
{
	sigset_t all, saved;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &saved);
	while (atomic_flag_test_and_set_explicit(&td_sig_lock, memory_order_acquire))
		;
	struct td_sigslot *s = &td_sig[sig];
	int rc = 0;
	if (old)
		*old = s->prog;
	if (act) {
		struct sigaction k, kold;
		td_sig_kernel_act(act, &k);
		rc = td_real_sigaction()(sig, &k, NULL);
		if (rc == 0) {
			/* Flags libc adds on its own (SA_RESTORER on x86_64) are
			 * reported back by a real sigaction: report them too. */
			td_real_sigaction()(sig, NULL, &kold);
			atomic_fetch_add_explicit(&s->seq, 1, memory_order_acq_rel);
			s->prog = *act;
			if (act->sa_handler != SIG_DFL && act->sa_handler != SIG_IGN)
				s->prog.sa_flags |= kold.sa_flags & ~k.sa_flags & ~(SA_SIGINFO | SA_NODEFER);
			atomic_fetch_add_explicit(&s->seq, 1, memory_order_release);
		}
	}
	atomic_flag_clear_explicit(&td_sig_lock, memory_order_release);
	int e = errno;
	pthread_sigmask(SIG_SETMASK, &saved, NULL);
	errno = e;
	return rc;
}

static pid_t td_sig_gettid(void) { return (pid_t)syscall(SYS_gettid); }

/* One-shot timer that sends sig to this thread: the watchdog. */
static int td_sig_watchdog(int sig, int *timer)
{
	struct sigevent ev;
	memset(&ev, 0, sizeof(ev));
	ev.sigev_notify = SIGEV_THREAD_ID;
	ev.sigev_signo = sig;
	ev._sigev_un._tid = td_sig_gettid();
	if (syscall(SYS_timer_create, CLOCK_MONOTONIC, &ev, timer) != 0)
		return -errno;
	struct itimerspec its = { .it_value = { .tv_sec = TD_SIGNAL_WATCHDOG_S } };
	if (syscall(SYS_timer_settime, *timer, 0, &its, NULL) != 0) {
		syscall(SYS_timer_delete, *timer);
		return -errno;
	}
	return 0;
}

/* Default action: report, then let the signal end the process where it hit. */
static void td_signal_default(int sig)
{
	struct sigaction dfl;
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	td_real_sigaction()(sig, &dfl, NULL);

	sigset_t one;
	sigemptyset(&one);
	sigaddset(&one, sig);
	pthread_sigmask(SIG_UNBLOCK, &one, NULL);
	int timer = -1;
	bool armed = td_sig_watchdog(sig, &timer) == 0;

	struct td_collector *c = td_preload_collector();
	if (c) {
		char why[32];
		snprintf(why, sizeof(why), "signal SIG%s", td_signal_name(sig));
		struct td_thread *self = td_preload_thread();
		int st = atomic_load(&c->report_state);
		if (st == 0) {
			td_preload_write_report(why);
		} else if (st == 1 && !(self && self->guard)) {
			/* Another thread is writing (exit path): let it finish. */
			struct timespec ms = { 0, 1000000 };
			while (atomic_load(&c->report_state) == 1)
				nanosleep(&ms, NULL);
		}
	}
	if (armed)
		syscall(SYS_timer_delete, timer);
	/* Pending on return; sigreturn restores the interrupted context and mask
	 * (which let sig through), so the default action happens there. */
	pthread_sigmask(SIG_BLOCK, &one, NULL);
	syscall(SYS_tgkill, getpid(), td_sig_gettid(), sig);
}

static void td_signal_handler(int sig, siginfo_t *info, void *uctx)
{
	int saved = errno;
	struct sigaction p;
	td_sig_read(sig, &p);
	if (p.sa_handler == SIG_IGN) {
		/* Raced with the program ignoring it: ignoring is what it asked. */
	} else if (p.sa_handler == SIG_DFL) {
		td_signal_default(sig);
	} else {
		if (p.sa_flags & SA_RESETHAND) {
			struct sigaction dfl;
			memset(&dfl, 0, sizeof(dfl));
			dfl.sa_handler = SIG_DFL;
			td_sig_set(sig, &dfl, NULL);
		}
		errno = saved;
		if (p.sa_flags & SA_SIGINFO)
			p.sa_sigaction(sig, info, uctx);
		else
			p.sa_handler(sig);
		return; /* the program's handler owns errno from here */
	}
	errno = saved;
}

/* Forked child: a parent thread may have been inside td_sig_set. */
static void td_signal_after_fork_child(void)
{
	atomic_flag_clear(&td_sig_lock);
	for (int sig = 1; sig < 65; sig++) {
		unsigned q = atomic_load(&td_sig[sig].seq);
		if (q & 1)
			atomic_store(&td_sig[sig].seq, q + 1);
	}
}

/* Installs our handler for each configured signal, unless the program
 * started with it ignored (nohup, background jobs): that stays as it is. */
int td_signal_install(struct td_collector *c)
{
	if (!c->cfg.on_signal || !c->cfg.on_signal[0])
		return 0;
	uint64_t mask;
	char bad[32];
	if (td_signal_parse(c->cfg.on_signal, &mask, bad, sizeof(bad)) != 0) {
		td_err("on_signal: '%s' is not one of HUP, INT, QUIT, TERM, USR1, USR2, ALRM; "
		       "no report on signals", bad);
		return -EINVAL;
	}
	pthread_atfork(NULL, NULL, td_signal_after_fork_child);
	for (int sig = 1; sig < 65; sig++) {
		if (!(mask & (1ull << sig)))
			continue;
		struct sigaction cur;
		if (td_real_sigaction()(sig, NULL, &cur) != 0 || cur.sa_handler == SIG_IGN)
			continue;
		td_sig[sig].prog = cur;
		atomic_store_explicit(&td_sig[sig].managed, true, memory_order_release);
		td_sig_set(sig, &cur, NULL);
	}
	return 0;
}

TD_EXPORT int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	if (!td_sig_managed(sig))
		return td_real_sigaction()(sig, act, old);
	struct sigaction prev;
	int rc = td_sig_set(sig, act, &prev);
	if (rc == 0 && old)
		*old = prev;
	return rc;
}

/* signal() and friends reach sigaction inside libc, not through the PLT. */
static sighandler_t td_signal_with(int sig, sighandler_t h, int flags, bool mask_self)
{
	struct sigaction act, old;
	memset(&act, 0, sizeof(act));
	act.sa_handler = h;
	act.sa_flags = flags;
	sigemptyset(&act.sa_mask);
	if (mask_self)
		sigaddset(&act.sa_mask, sig);
	if (sigaction(sig, &act, &old) != 0)
		return SIG_ERR;
	return old.sa_handler;
}

TD_EXPORT sighandler_t signal(int sig, sighandler_t h)
{
	static sighandler_t (*real)(int, sighandler_t);
	if (!td_sig_managed(sig)) {
		if (td_unlikely(!real))
			real = (sighandler_t(*)(int, sighandler_t))td_preload_next("signal");
		return real(sig, h);
	}
	return td_signal_with(sig, h, SA_RESTART, true); /* BSD semantics, as glibc's */
}

TD_EXPORT sighandler_t bsd_signal(int sig, sighandler_t h) { return signal(sig, h); }

TD_EXPORT sighandler_t sysv_signal(int sig, sighandler_t h)
{
	static sighandler_t (*real)(int, sighandler_t);
	if (!td_sig_managed(sig)) {
		if (td_unlikely(!real))
			real = (sighandler_t(*)(int, sighandler_t))td_preload_next("sysv_signal");
		return real(sig, h);
	}
	return td_signal_with(sig, h, SA_RESETHAND | SA_NODEFER, false);
}

TD_EXPORT sighandler_t __sysv_signal(int sig, sighandler_t h) { return sysv_signal(sig, h); }

#endif
