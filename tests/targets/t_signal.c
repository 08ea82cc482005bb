/* Signal behaviours a profiler must not change (tests/integration/harden_signals.sh).
 * t_signal MODE [SIG]; every line it prints must be the same with and
 * without tdprobe, and so must the way it ends (status, signal, core).
 *   query      prints the dispositions of TERM, INT, QUIT seen at main
 *   default    2 busy threads, then kill(getpid(), SIG): dies by SIG
 *   handler    SA_SIGINFO handler: oldact, queries, signal()'s return, siginfo
 *   reraise    handler cleans up, resets SIG_DFL with signal(), raises again
 *   ignore     signal(SIG, SIG_IGN), raise: survives
 *   resethand  SA_RESETHAND: first raise handled, second one kills
 *   mask       handler's sa_mask and self-blocking as the program asked */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

static int sig = SIGTERM;
static volatile sig_atomic_t hits;
static atomic_int stop;

static const char *disp(int s)
{
	struct sigaction a;
	if (sigaction(s, NULL, &a) != 0)
		return "error";
	if (a.sa_handler == SIG_DFL)
		return "default";
	if (a.sa_handler == SIG_IGN)
		return "ignored";
	return "handler";
}

static void *spin(void *arg)
{
	prctl(PR_SET_NAME, (char *)arg);
	volatile unsigned long x = 0;
	while (!atomic_load(&stop))
		x++;
	return NULL;
}

static void on_info(int s, siginfo_t *si, void *uc)
{
	(void)uc;
	hits++;
	char line[128];
	int n = snprintf(line, sizeof(line), "handler: sig %d signo %d code %s pid %s\n", s,
			 si->si_signo, si->si_code == SI_TKILL ? "SI_TKILL" : "other",
			 si->si_pid == getpid() ? "self" : "other");
	write(1, line, (size_t)n);
}

static void on_plain(int s)
{
	(void)s;
	hits++;
	write(1, "plain handler\n", 14);
}

static void on_reraise(int s)
{
	write(1, "cleanup\n", 8);
	signal(s, SIG_DFL);
	raise(s);
}

static void on_mask(int s)
{
	sigset_t cur;
	pthread_sigmask(SIG_BLOCK, NULL, &cur);
	char line[96];
	int n = snprintf(line, sizeof(line), "in handler: self blocked %d, USR1 blocked %d, USR2 blocked %d\n",
			 sigismember(&cur, s), sigismember(&cur, SIGUSR1), sigismember(&cur, SIGUSR2));
	write(1, line, (size_t)n);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "query";
	if (argc > 2)
		sig = atoi(argv[2]);
	setvbuf(stdout, NULL, _IONBF, 0);
	struct sigaction act, old;
	memset(&act, 0, sizeof(act));

	if (!strcmp(mode, "query")) {
		printf("TERM %s, INT %s, QUIT %s\n", disp(SIGTERM), disp(SIGINT), disp(SIGQUIT));
		return 0;
	}
	if (!strcmp(mode, "default")) {
		pthread_t th[2];
		pthread_create(&th[0], NULL, spin, "spin-a");
		pthread_create(&th[1], NULL, spin, "spin-b");
		usleep(100000);
		printf("sending signal %d\n", sig);
		kill(getpid(), sig);
		sleep(10);
		printf("still alive\n");
		return 99;
	}
	if (!strcmp(mode, "handler")) {
		act.sa_sigaction = on_info;
		act.sa_flags = SA_SIGINFO | SA_RESTART;
		sigemptyset(&act.sa_mask);
		sigaction(sig, &act, &old);
		printf("oldact: %s flags %#x\n", old.sa_handler == SIG_DFL ? "SIG_DFL" : "not SIG_DFL",
		       (unsigned)old.sa_flags);
		sigaction(sig, NULL, &old);
		printf("query: %s, SA_SIGINFO %d, SA_RESTART %d, flags %#x\n",
		       old.sa_sigaction == on_info ? "our handler" : "another handler",
		       !!(old.sa_flags & SA_SIGINFO), !!(old.sa_flags & SA_RESTART), (unsigned)old.sa_flags);
		raise(sig);
		void (*prev)(int) = signal(sig, on_plain);
		printf("signal() returned %s\n", (void *)prev == (void *)on_info ? "on_info" : "something else");
		raise(sig);
		prev = signal(sig, SIG_DFL);
		printf("signal() returned %s, hits %d\n", prev == on_plain ? "on_plain" : "something else", (int)hits);
		return 7;
	}
	if (!strcmp(mode, "reraise")) {
		signal(sig, on_reraise);
		printf("raising\n");
		raise(sig);
		printf("not reached\n");
		return 98;
	}
	if (!strcmp(mode, "ignore")) {
		void (*prev)(int) = signal(sig, SIG_IGN);
		printf("previous %s\n", prev == SIG_DFL ? "SIG_DFL" : "other");
		raise(sig);
		kill(getpid(), sig);
		printf("survived, now %s\n", disp(sig));
		return 0;
	}
	if (!strcmp(mode, "resethand")) {
		act.sa_handler = on_plain;
		act.sa_flags = SA_RESETHAND;
		sigaction(sig, &act, NULL);
		raise(sig);
		printf("after first: %s, hits %d\n", disp(sig), (int)hits);
		raise(sig);
		printf("not reached\n");
		return 98;
	}
	if (!strcmp(mode, "mask")) {
		act.sa_handler = on_mask;
		sigemptyset(&act.sa_mask);
		sigaddset(&act.sa_mask, SIGUSR1);
		sigaction(sig, &act, NULL);
		raise(sig);
		act.sa_flags = SA_NODEFER;
		sigaction(sig, &act, NULL);
		raise(sig);
		return 0;
	}
	fprintf(stderr, "unknown mode %s\n", mode);
	return 2;
}
