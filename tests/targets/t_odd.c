/* Odd programs (tests/integration/harden_odd.sh); stdout and exit status
 * must be the same with and without tdprobe.
 *   daemon close|closefrom|range   close every fd from 3 up, then work
 *   dup2          dup2 /dev/null onto every fd 3..40, write, close
 *   exit-thread   a thread calls _exit(3) while the others run
 *   spawn         vfork+exec, posix_spawn
 *   clone         a clone() thread without pthreads, a fork-like clone
 *   forkstorm     200 forks while 4 threads keep creating threads
 *   stray         a thread made by libc's pthread_create directly, alive at exit */
#define _GNU_SOURCE
#include <errno.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;
static atomic_int stop;

static void *busy(void *arg)
{
	volatile unsigned long x = 0;
	for (unsigned long i = 0; i < 3000000 && !atomic_load(&stop); i++)
		x += i;
	return arg;
}

static void work(void)
{
	pthread_t a, b;
	pthread_create(&a, NULL, busy, NULL);
	pthread_create(&b, NULL, busy, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
}

static int closeall(const char *how)
{
	int closed = 0, ebadf = 0;
	if (!strcmp(how, "close")) {
		for (int fd = 3; fd < 1024; fd++) {
			if (close(fd) == 0)
				closed++;
			else if (errno == EBADF)
				ebadf++;
		}
		printf("close 3..1023: %d closed, %d EBADF\n", closed, ebadf);
	} else if (!strcmp(how, "closefrom")) {
		closefrom(3);
		printf("closefrom(3) done\n");
	} else {
		printf("close_range(3, ~0): %d\n", close_range(3, ~0U, 0));
	}
	/* What a daemon does next: its own files from fd 3 up. */
	int fd = open("/dev/null", O_RDWR);
	printf("reopened /dev/null: %s\n", fd >= 3 ? "ok" : "failed");
	return 0;
}

static int dup_everywhere(void)
{
	int src = open("/dev/null", O_WRONLY);
	int ok = 0, bad = 0;
	for (int fd = 3; fd <= 40; fd++) {
		if (fd == src)
			continue;
		if (dup2(src, fd) == fd && write(fd, "x", 1) == 1 && close(fd) == 0)
			ok++;
		else
			bad++;
	}
	printf("dup2 onto 3..40: %d ok, %d failed\n", ok, bad);
	return 0;
}

static void *exiter(void *arg)
{
	(void)arg;
	usleep(50000);
	_exit(3);
}

static void *busy_short(void *arg)
{
	return arg;
}

static void *churn(void *arg)
{
	while (!atomic_load(&stop)) {
		pthread_t t;
		if (pthread_create(&t, NULL, busy_short, NULL) == 0)
			pthread_join(t, NULL);
	}
	return arg;
}

static atomic_int stray_up;
static void *stray(void *arg)
{
	prctl(PR_SET_NAME, "stray");
	volatile unsigned long x = 0;
	for (unsigned long i = 0; i < 5000000; i++)
		x += i;
	atomic_store(&stray_up, 1);
	for (;;)
		pause();
	return arg;
}

static int clone_fn(void *arg)
{
	volatile long *sum = arg;
	for (long i = 1; i <= 1000; i++)
		*sum += i;
	return 0;
}

static int clone_child(void *arg)
{
	(void)arg;
	_exit(5); /* a fork-like child: must not write the parent's report */
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	setvbuf(stdout, NULL, _IONBF, 0);
	if (!strcmp(mode, "daemon") && argc > 2) {
		closeall(argv[2]);
		work();
		return 0;
	}
	if (!strcmp(mode, "dup2")) {
		dup_everywhere();
		work();
		return 0;
	}
	if (!strcmp(mode, "exit-thread")) {
		pthread_t a, b;
		pthread_create(&a, NULL, busy, NULL);
		pthread_create(&b, NULL, exiter, NULL);
		pthread_join(b, NULL);
		return 1;
	}
	if (!strcmp(mode, "spawn")) {
		int st;
		pid_t p = vfork();
		if (p == 0) {
			execl("/bin/true", "true", (char *)NULL);
			_exit(127);
		}
		waitpid(p, &st, 0);
		printf("vfork+exec true: exit %d\n", WEXITSTATUS(st));
		char *args[] = { "echo", "spawned", NULL };
		if (posix_spawn(&p, "/bin/echo", NULL, NULL, args, environ) == 0) {
			waitpid(p, &st, 0);
			printf("posix_spawn echo: exit %d\n", WEXITSTATUS(st));
		}
		p = vfork();
		if (p == 0)
			_exit(4); /* vfork child leaving without exec */
		waitpid(p, &st, 0);
		printf("vfork+_exit: exit %d\n", WEXITSTATUS(st));
		work();
		return 0;
	}
	if (!strcmp(mode, "clone")) {
		size_t sz = 256 * 1024;
		char *stack = malloc(sz);
		static volatile long sum;
		static pid_t ctid = 1;
		int flags = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD |
			    CLONE_SYSVSEM | CLONE_CHILD_CLEARTID | CLONE_CHILD_SETTID;
		if (clone(clone_fn, stack + sz, flags, (void *)&sum, NULL, NULL, &ctid) < 0)
			return 2;
		while (__atomic_load_n(&ctid, __ATOMIC_ACQUIRE) != 0)
			syscall(SYS_futex, &ctid, FUTEX_WAIT, ctid, NULL, NULL, 0);
		printf("clone thread: sum %ld\n", sum);
		char *stack2 = malloc(sz);
		pid_t p = clone(clone_child, stack2 + sz, SIGCHLD, NULL);
		int st;
		waitpid(p, &st, 0);
		printf("fork-like clone: exit %d\n", WEXITSTATUS(st));
		work();
		return 0;
	}
	if (!strcmp(mode, "forkstorm")) {
		/* fork while other threads create threads: a child must never
		 * inherit one of our locks held by a thread it does not have. */
		pthread_t a[4];
		for (int i = 0; i < 4; i++)
			pthread_create(&a[i], NULL, churn, NULL);
		int ok = 0;
		for (int i = 0; i < 200; i++) {
			pid_t p = fork();
			if (p == 0) {
				pthread_t t;
				if (pthread_create(&t, NULL, busy_short, NULL) == 0)
					pthread_join(t, NULL);
				_exit(0);
			}
			int st;
			if (p > 0 && waitpid(p, &st, 0) == p && WIFEXITED(st) && WEXITSTATUS(st) == 0)
				ok++;
		}
		atomic_store(&stop, 1);
		for (int i = 0; i < 4; i++)
			pthread_join(a[i], NULL);
		printf("forkstorm: %d of 200 children created a thread and exited\n", ok);
		return 0;
	}
	if (!strcmp(mode, "stray")) {
		/* libc's pthread_create, past any interposer: as jemalloc does. */
		void *libc = dlopen("libc.so.6", RTLD_NOLOAD | RTLD_LAZY);
		int (*create)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *) =
			(int (*)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *))dlsym(libc, "pthread_create");
		pthread_t a;
		if (!create || create(&a, NULL, stray, NULL) != 0)
			return 2;
		while (!atomic_load(&stray_up))
			usleep(1000);
		printf("stray thread running\n");
		return 0;
	}
	fprintf(stderr, "usage: t_odd daemon close|closefrom|range | dup2 | exit-thread | spawn | clone\n");
	return 2;
}
