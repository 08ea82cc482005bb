/* td-vm-rawcount: checks the VM test bed itself, without tdprobe: opens
 * instructions on the core PMU found in sysfs with user access (config1
 * bit 1), runs a loop of exactly 2*N instructions between two user-space
 * reads and prints the measured delta next to read(2). Under QEMU -icount
 * the delta is exact up to the constant cost of the read sequence.
 *
 * Usage: td-vm-rawcount [N]     exit 0 when delta - 2N is in [0, 64] */
#define _GNU_SOURCE
#include <errno.h>
#include <glob.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

static void spin(uint64_t n)
{
	/* 2 instructions per iteration: subs + b.ne */
	__asm__ volatile("1: subs %0, %0, #1\n\tb.ne 1b" : "+r"(n) : : "cc");
}

static int pmu_type(char *name, size_t len)
{
	glob_t g;
	int type = -1;

	if (glob("/sys/bus/event_source/devices/armv8_pmuv3*/type", 0, NULL, &g) == 0) {
		FILE *f = fopen(g.gl_pathv[0], "r");
		if (f && fscanf(f, "%d", &type) != 1)
			type = -1;
		if (f)
			fclose(f);
		snprintf(name, len, "%.*s", (int)(strrchr(g.gl_pathv[0], '/') - g.gl_pathv[0]) - 30,
			 g.gl_pathv[0] + 30);
		globfree(&g);
	}
	return type;
}

static uint64_t rd_pmevcntr(uint32_t idx)
{
	uint64_t v = 0;

	switch (idx) {
	case 32: __asm__ volatile("mrs %0, pmccntr_el0" : "=r"(v)); break;
	case 1: __asm__ volatile("mrs %0, pmevcntr0_el0" : "=r"(v)); break;
	case 2: __asm__ volatile("mrs %0, pmevcntr1_el0" : "=r"(v)); break;
	case 3: __asm__ volatile("mrs %0, pmevcntr2_el0" : "=r"(v)); break;
	case 4: __asm__ volatile("mrs %0, pmevcntr3_el0" : "=r"(v)); break;
	case 5: __asm__ volatile("mrs %0, pmevcntr4_el0" : "=r"(v)); break;
	case 6: __asm__ volatile("mrs %0, pmevcntr5_el0" : "=r"(v)); break;
	}
	return v;
}

static int uread(volatile struct perf_event_mmap_page *pg, uint64_t *out)
{
	uint32_t seq, idx;
	uint64_t v;

	do {
		seq = pg->lock;
		__asm__ volatile("" ::: "memory");
		idx = pg->index;
		v = pg->offset;
		if (pg->cap_user_rdpmc && idx) {
			uint64_t raw = rd_pmevcntr(idx);
			unsigned w = pg->pmc_width;
			if (w < 64)
				raw = (uint64_t)((int64_t)(raw << (64 - w)) >> (64 - w));
			v += raw;
		}
		__asm__ volatile("" ::: "memory");
	} while (pg->lock != seq);
	*out = v;
	return idx ? 0 : -EAGAIN;
}

int main(int argc, char **argv)
{
	uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 0) : 1000000;
	char name[64] = "";
	int type = pmu_type(name, sizeof(name));
	struct perf_event_attr a;
	uint64_t u0, u1, r;
	void *pg;
	int fd;

	if (type < 0) {
		printf("no armv8_pmuv3* PMU in sysfs\n");
		return 1;
	}
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = type;
	a.config = 0x08; /* INST_RETIRED */
	a.config1 = 0x2; /* user access */
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		printf("perf_event_open(%s type %d, 0x08, config1=0x2): %s\n", name, type, strerror(errno));
		return 1;
	}
	pg = mmap(NULL, sysconf(_SC_PAGESIZE), PROT_READ, MAP_SHARED, fd, 0);
	if (pg == MAP_FAILED) {
		printf("mmap: %s\n", strerror(errno));
		return 1;
	}
	if (uread(pg, &u0)) {
		printf("index 0 (perf_user_access off?)\n");
		return 1;
	}
	spin(n);
	uread(pg, &u1);
	if (read(fd, &r, sizeof(r)) != sizeof(r))
		return 1;
	struct perf_event_mmap_page *p = pg;
	printf("pmu %s type %d index %u pmc_width %u: loop of %llu instructions measured %llu (+%lld), read() %llu\n",
	       name, type, p->index, p->pmc_width, (unsigned long long)(2 * n),
	       (unsigned long long)(u1 - u0), (long long)(u1 - u0 - 2 * n), (unsigned long long)r);
	return (u1 - u0 >= 2 * n && u1 - u0 - 2 * n <= 64 && r >= u1) ? 0 : 1;
}
