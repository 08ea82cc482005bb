/* td-exit-status: exits with status N, or dies of signal N with "-k N",
 * after creating a thread (so the preload has more than one to report). */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void *worker(void *arg)
{
	volatile unsigned long x = 0;
	for (unsigned long i = 0; i < 1000000; i++)
		x += i;
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t th;

	pthread_create(&th, NULL, worker, NULL);
	pthread_join(th, NULL);
	if (argc > 2 && strcmp(argv[1], "-k") == 0) {
		/* Default action, even if a parent left it ignored. */
		signal(atoi(argv[2]), SIG_DFL);
		raise(atoi(argv[2]));
		pause();
	}
	return argc > 1 ? atoi(argv[1]) : 0;
}
