/* t_threads: 500 threads ending every way a thread can, then fork and exec.
 *   100 joined after returning          100 joined after pthread_exit
 *   100 detached, returning             100 cancelled while blocked
 *   100 still blocked when the process exits
 * Then a forked child makes 4 threads and execs this program in
 * "--exec-child" mode, which makes 3 threads and exits 7. The parent waits
 * for the child, prints a line and exits 0 with 100 threads still running.
 * Usage: t_threads [PER_KIND]   (default 100) */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int block_pipe[2];
static pthread_barrier_t detached_done;

static void spin(int n)
{
	volatile unsigned x = 0;
	for (int i = 0; i < n; i++)
		x += (unsigned)i;
}

static void *returns(void *a) { spin(20000); return a; }
static void *exits(void *a) { spin(20000); pthread_exit(a); }
static void *detached(void *a)
{
	spin(20000);
	pthread_barrier_wait(&detached_done);
	return a;
}
static void *blocks(void *a)
{
	char c;
	spin(20000);
	/* read() is a cancellation point; nobody ever writes to the pipe. */
	while (read(block_pipe[0], &c, 1) < 0)
		;
	return a;
}

static int exec_child(void)
{
	pthread_t t[3];
	for (int i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, returns, NULL);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	printf("exec child done\n");
	return 7;
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "--exec-child") == 0)
		return exec_child();
	int n = argc > 1 ? atoi(argv[1]) : 100;
	if (n <= 0 || n > 2000 || pipe(block_pipe) != 0)
		return 2;
	pthread_t *t = calloc((size_t)n * 5, sizeof(*t));
	pthread_attr_t det;
	pthread_attr_init(&det);
	pthread_attr_setdetachstate(&det, PTHREAD_CREATE_DETACHED);
	pthread_barrier_init(&detached_done, NULL, (unsigned)n + 1);
	int made = 0;
	for (int i = 0; i < n; i++) {
		made += pthread_create(&t[i], NULL, returns, NULL) == 0;
		made += pthread_create(&t[n + i], NULL, exits, NULL) == 0;
		made += pthread_create(&t[2 * n + i], &det, detached, NULL) == 0;
		made += pthread_create(&t[3 * n + i], NULL, blocks, NULL) == 0;
		made += pthread_create(&t[4 * n + i], NULL, blocks, NULL) == 0;
	}
	for (int i = 0; i < 2 * n; i++)
		pthread_join(t[i], NULL);
	pthread_barrier_wait(&detached_done);
	for (int i = 3 * n; i < 4 * n; i++) {
		pthread_cancel(t[i]);
		pthread_join(t[i], NULL);
	}
	printf("threads made: %d\n", made);
	fflush(stdout);

	pid_t pid = fork();
	if (pid == 0) {
		pthread_t c[4];
		for (int i = 0; i < 4; i++)
			pthread_create(&c[i], NULL, returns, NULL);
		for (int i = 0; i < 4; i++)
			pthread_join(c[i], NULL);
		execl("/proc/self/exe", argv[0], "--exec-child", (char *)NULL);
		_exit(127);
	}
	int status = 0;
	waitpid(pid, &status, 0);
	printf("child exit status: %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	/* Detached threads may still be between the barrier and their end. */
	usleep(50000);
	return 0;
}
