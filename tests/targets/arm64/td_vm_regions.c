/* td-vm-regions: the exact-instruction-count target for the arm64 VM.
 * T threads (made with pthread_create, so the preload opens each one's
 * counters); thread i calls two regions a known number of times:
 *   "work"   (marker region)  10+i calls, body exactly 2*1000*(i+1) instructions
 *   "small"  (marker region)  5 calls, body exactly 2*100 instructions
 *   vm_hooked_work (libtdvm.so, hooked through the PLT) 7+i calls,
 *            body exactly 2*500*(i+1) instructions
 * and prints the plan as "plan <thread> <region> <calls> <instructions per call>"
 * lines, which tests/vm/max_regions_exact.sh compares with the report.
 *
 * Usage: td-vm-regions [threads]   (default 8) */
#define _GNU_SOURCE
#include "td_vm_lib.h"

#include <tdprobe.h>

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 2 instructions per iteration: subs + b.ne. */
static inline __attribute__((always_inline)) void spin(uint64_t n)
{
	__asm__ volatile("1: subs %0, %0, #1\n\tb.ne 1b" : "+r"(n) : : "cc");
}

static void *worker(void *arg)
{
	int i = (int)(long)arg;
	char name[16];
	snprintf(name, sizeof(name), "vmw%d", i);
	pthread_setname_np(pthread_self(), name);
	for (int k = 0; k < 10 + i; k++) {
		tdprobe_region_begin("work");
		spin(1000 * (uint64_t)(i + 1));
		tdprobe_region_end("work");
	}
	for (int k = 0; k < 5; k++) {
		tdprobe_region_begin("small");
		spin(100);
		tdprobe_region_end("small");
	}
	for (int k = 0; k < 7 + i; k++)
		vm_hooked_work(500 * (uint64_t)(i + 1));
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 8;
	pthread_t t[64];
	if (n < 1 || n > 64)
		n = 8;
	for (int i = 0; i < n; i++) {
		printf("plan vmw%d work %d %llu\n", i, 10 + i, 2000ull * (unsigned)(i + 1));
		printf("plan vmw%d small %d %llu\n", i, 5, 200ull);
		printf("plan vmw%d vm_hooked_work %d %llu\n", i, 7 + i, 1000ull * (unsigned)(i + 1));
	}
	fflush(stdout);
	for (int i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)(long)i))
			return 1;
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	return 0;
}
