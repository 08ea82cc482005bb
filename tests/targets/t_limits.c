/* Resource limits (tests/integration/harden_limits.sh). stdout must be the
 * same with and without tdprobe.
 *   t_limits fds OWN THREADS EXTRA
 *       opens OWN fds, starts THREADS threads alive at once, then opens
 *       EXTRA more fds while they run: prints how many opens failed
 *   t_limits churn TOTAL ALIVE
 *       TOTAL threads over the run, ALIVE of them alive at once; prints the
 *       counts, and VmRSS/VmHWM (kB) on stderr */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pthread_barrier_t all_up, go;

static void *hold(void *arg)
{
	(void)arg;
	volatile unsigned long x = 0;
	for (int i = 0; i < 20000; i++)
		x += (unsigned long)i;
	pthread_barrier_wait(&all_up);
	pthread_barrier_wait(&go);
	return NULL;
}

static int open_many(int n, int *fds, int *emfile)
{
	int ok = 0;
	for (int i = 0; i < n; i++) {
		fds[i] = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (fds[i] >= 0)
			ok++;
		else if (errno == EMFILE)
			(*emfile)++;
	}
	return ok;
}

static void status_kb(const char *key, long *out)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	size_t n = strlen(key);
	*out = -1;
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, n))
			*out = atol(line + n + 1);
	if (f)
		fclose(f);
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "fds")) {
		int own = atoi(argv[2]), nth = atoi(argv[3]), extra = atoi(argv[4]);
		int *fds = calloc((size_t)(own + extra), sizeof(int));
		int em = 0;
		int a = open_many(own, fds, &em);
		pthread_t *th = calloc((size_t)nth, sizeof(*th));
		pthread_barrier_init(&all_up, NULL, (unsigned)nth + 1);
		pthread_barrier_init(&go, NULL, (unsigned)nth + 1);
		for (int i = 0; i < nth; i++)
			if (pthread_create(&th[i], NULL, hold, NULL) != 0)
				return 3;
		pthread_barrier_wait(&all_up);
		int b = open_many(extra, fds + own, &em);
		printf("own fds %d/%d, threads %d alive at once, extra fds %d/%d, EMFILE %d\n", a, own,
		       nth, b, extra, em);
		pthread_barrier_wait(&go);
		for (int i = 0; i < nth; i++)
			pthread_join(th[i], NULL);
		return em ? 1 : 0;
	}
	if (argc == 4 && !strcmp(argv[1], "churn")) {
		int total = atoi(argv[2]), alive = atoi(argv[3]);
		long rss0, rss1, hwm;
		status_kb("VmRSS:", &rss0);
		int done = 0, peak = 0;
		while (done < total) {
			int n = total - done < alive ? total - done : alive;
			/* Joinable threads: join them so stacks are reused. */
			pthread_t *th = calloc((size_t)n, sizeof(*th));
			pthread_attr_t at;
			pthread_attr_init(&at);
			pthread_attr_setstacksize(&at, 64 * 1024);
			pthread_barrier_init(&all_up, NULL, (unsigned)n + 1);
			pthread_barrier_init(&go, NULL, (unsigned)n + 1);
			for (int i = 0; i < n; i++)
				if (pthread_create(&th[i], &at, hold, NULL) != 0) {
					fprintf(stderr, "pthread_create failed at %d\n", done + i);
					return 3;
				}
			pthread_barrier_wait(&all_up);
			if (n > peak)
				peak = n;
			pthread_barrier_wait(&go);
			for (int i = 0; i < n; i++)
				pthread_join(th[i], NULL);
			pthread_barrier_destroy(&all_up);
			pthread_barrier_destroy(&go);
			free(th);
			done += n;
		}
		status_kb("VmRSS:", &rss1);
		status_kb("VmHWM:", &hwm);
		printf("threads %d over the run, %d alive at once\n", done, peak);
		fprintf(stderr, "memory: rss_start_kb %ld rss_end_kb %ld hwm_kb %ld\n", rss0, rss1, hwm);
		return 0;
	}
	fprintf(stderr, "usage: t_limits fds OWN THREADS EXTRA | churn TOTAL ALIVE\n");
	return 2;
}
