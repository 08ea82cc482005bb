/* hooks_pthread_exit: 4 threads each leave through pthread_exit called two
 * hooked frames deep (hk_exit_outer -> hk_exit_inner); 2 threads are
 * cancelled while blocked in read() inside the hooked hk_block, with a
 * cleanup handler registered outside it. Joins report the exit codes. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

void hk_exit_outer(int code);
void hk_block(int fd);
uint64_t hk_work(uint64_t x);

static int fds[2];
static volatile int cleanups;

static void *exiter(void *arg)
{
	hk_work(1);
	hk_exit_outer((int)(intptr_t)arg);
	return NULL;
}

static void cleanup(void *arg)
{
	cleanups++;
}

static void *blocker(void *arg)
{
	pthread_cleanup_push(cleanup, NULL);
	hk_block(fds[0]);
	pthread_cleanup_pop(0);
	return arg;
}

int main(void)
{
	pthread_t t[6];
	pipe(fds);
	for (intptr_t i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, exiter, (void *)(10 + i));
	for (int i = 4; i < 6; i++)
		pthread_create(&t[i], NULL, blocker, NULL);
	for (int i = 0; i < 4; i++) {
		void *r;
		pthread_join(t[i], &r);
		printf("exiter %d -> %ld\n", i, (long)(intptr_t)r);
	}
	usleep(100000);
	for (int i = 4; i < 6; i++) {
		void *r;
		pthread_cancel(t[i]);
		pthread_join(t[i], &r);
		printf("blocker %d cancelled: %s\n", i, r == PTHREAD_CANCELED ? "yes" : "no");
	}
	printf("cleanups %d\n", cleanups);
	hk_work(2);
	return 0;
}
