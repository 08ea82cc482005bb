/* td-fork-workers: the parent forks N workers (default 4), each burning a
 * different amount of CPU, waits for them and exits 0. Under the preload
 * every process writes its own report; their merge must equal the sum. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile unsigned long sink;

static void burn(unsigned long n)
{
	unsigned long x = 1;
	for (unsigned long i = 0; i < n; i++)
		x = x * 2862933555777941757ul + 3037000493ul;
	sink = x;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 4;

	for (int i = 0; i < n; i++) {
		pid_t p = fork();
		if (p < 0) {
			perror("fork");
			return 1;
		}
		if (p == 0) {
			burn(2000000ul * (unsigned long)(i + 1));
			_exit(0);
		}
	}
	burn(1000000);
	int bad = 0, st;
	while (wait(&st) > 0)
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
			bad = 1;
	return bad;
}
