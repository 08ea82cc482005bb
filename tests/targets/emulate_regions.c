/* emulate_regions: two threads alternate between two regions and
 * unregioned work, for a fixed amount of CPU each, so the emulated PMU can
 * give each region and the remainder different true fractions. The work is
 * emulate_lib_hot/_cold/_burn (libemulate_lib.so); the regions are either
 * markers around the calls ("hot", "cold") or, in "functions" mode, the
 * library functions themselves, hooked. Prints one line; exit 0.
 * Usage: emulate_regions [rounds, default 200] [markers|functions] */
#define _GNU_SOURCE
#include "tdprobe.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rounds = 200;

uint64_t emulate_lib_burn(long us);
uint64_t emulate_lib_hot(long us);
uint64_t emulate_lib_cold(long us);

static int markers = 1;

static void *worker(void *arg)
{
	pthread_setname_np(pthread_self(), arg);
	uint64_t x = 0;
	for (int i = 0; i < rounds; i++) {
		if (markers)
			tdprobe_region_begin("hot");
		x += emulate_lib_hot(150);
		if (markers)
			tdprobe_region_end("hot");
		x += emulate_lib_burn(60);
		if (markers)
			tdprobe_region_begin("cold");
		x += emulate_lib_cold(50);
		if (markers)
			tdprobe_region_end("cold");
	}
	return (void *)(uintptr_t)(x & 1);
}

int main(int argc, char **argv)
{
	if (argc > 1)
		rounds = atoi(argv[1]);
	if (argc > 2)
		markers = strcmp(argv[2], "functions") != 0;
	static const char *names[] = { "left", "right" };
	pthread_t th[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&th[i], NULL, worker, (void *)names[i]);
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	printf("emulate_regions: 2 threads x %d rounds\n", rounds);
	return 0;
}
