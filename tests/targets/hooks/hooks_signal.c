/* hooks_signal: a signal storm (SIGALRM every 50 us from a timer) whose
 * handler calls the hooked hk_work, while the main flow calls hk_work in a
 * loop — so the handler often interrupts our own hook code. Prints a
 * result independent of the number of signals on stdout, and the number
 * of handler calls into the file argv[2] (for the exact count check). */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>

uint64_t hk_work(uint64_t x);
static volatile sig_atomic_t handled;

static void on_alarm(int sig)
{
	hk_work((uint64_t)sig);
	handled++;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 200000;
	struct sigaction sa = { .sa_handler = on_alarm };
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	struct itimerval it = { { 0, 50 }, { 0, 50 } };
	setitimer(ITIMER_REAL, &it, NULL);
	uint64_t acc = 0;
	for (long i = 0; i < n; i++)
		acc ^= hk_work((uint64_t)i);
	struct itimerval off = { { 0, 0 }, { 0, 0 } };
	setitimer(ITIMER_REAL, &off, NULL);
	printf("signal loop %ld acc %llx\n", n, (unsigned long long)acc);
	if (argc > 2) {
		FILE *f = fopen(argv[2], "w");
		if (f) {
			fprintf(f, "%d\n", (int)handled);
			fclose(f);
		}
	}
	return 0;
}
