/* RDPMC on x86_64: the plain instruction (td_arch_read_counter) and the
 * rseq-guarded one for hybrid parts (td_rdpmc_guard.h says why rseq). */
#include "td_pmu_read.h"
#include "td_rdpmc_guard.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

uint64_t td_arch_read_counter(void *ctx, uint32_t idx)
{
	uint32_t lo, hi;
	/* The page index is 1-based; RDPMC takes index - 1 in ECX
	 * (0x40000003 for SLOTS, 0x20000000 for PERF_METRICS). */
	__asm__ __volatile__("rdpmc" : "=a"(lo), "=d"(hi) : "c"(idx - 1));
	return ((uint64_t)hi << 32) | lo;
}

uint64_t td_arch_read_time(void *ctx)
{
	uint32_t lo, hi;
	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

const struct td_pmu_reader td_pmu_reader_hw = {
	.read_counter = td_arch_read_counter,
	.read_checked = NULL,
	.ctx = NULL,
	.read_time = td_arch_read_time,
};

/* glibc's rseq registration (2.35+); weak so older libcs load us too. */
extern const ptrdiff_t __rseq_offset __attribute__((weak));
extern const unsigned int __rseq_size __attribute__((weak));

/* Layout of struct rseq (uapi linux/rseq.h) as far as we use it. */
struct td_rseq_area {
	uint32_t cpu_id_start;
	uint32_t cpu_id;
	uint64_t rseq_cs;
};

static struct td_rseq_area *td_rseq_area(void)
{
	if (!&__rseq_size || !&__rseq_offset || __rseq_size == 0)
		return NULL;
	char *tp;
	__asm__("mov %%fs:0, %0" : "=r"(tp));
	return (struct td_rseq_area *)(tp + __rseq_offset);
}

bool td_rdpmc_guard_available(void)
{
	struct td_rseq_area *rs = td_rseq_area();
	return rs && (int32_t)rs->cpu_id >= 0;
}

int td_rdpmc_guard_cpu(void)
{
	struct td_rseq_area *rs = td_rseq_area();
	return rs ? (int32_t)__atomic_load_n(&rs->cpu_id, __ATOMIC_RELAXED) : -1;
}

int td_rdpmc_guard_init(struct td_rdpmc_guard *g, const char *cpulist)
{
	memset(g, 0, sizeof(*g));
	g->nbits = TD_GUARD_MAX_CPUS;
	const char *p = cpulist ? cpulist : "";
	while (*p && *p != '\n') {
		char *end;
		unsigned long lo = strtoul(p, &end, 10), hi = lo;
		if (end == p)
			return -EINVAL;
		if (*end == '-') {
			p = end + 1;
			hi = strtoul(p, &end, 10);
			if (end == p)
				return -EINVAL;
		}
		if (lo > hi || hi >= TD_GUARD_MAX_CPUS)
			return -EINVAL;
		for (unsigned long c = lo; c <= hi; c++)
			g->mask[c / 64] |= UINT64_C(1) << (c % 64);
		p = end;
		if (*p == ',')
			p++;
		else if (*p && *p != '\n')
			return -EINVAL;
	}
	return 0;
}

/* int td_rdpmc_rseq_read(uint32_t ecx, uint64_t *out, struct td_rseq_area *rs,
 *                        const uint64_t *mask, uint32_t nbits)
 * SysV: edi ecx, rsi out, rdx rs, rcx mask, r8d nbits. Returns 0, -EFAULT
 * (CPU not in mask, or rseq not registered: cpu_id is then (u32)-1 or -2)
 * or -EAGAIN after 16 aborts. The critical section is [start, commit):
 * load cpu_id, test it, RDPMC. The kernel moves an interrupted section to
 * abort, which restarts it; the 4 bytes before abort are the signature
 * glibc registered (RSEQ_SIG 0x53053053, inside a ud1 so it never runs). */
int td_rdpmc_rseq_read(uint32_t ecx, uint64_t *out, struct td_rseq_area *rs,
		       const uint64_t *mask, uint32_t nbits) __attribute__((visibility("hidden")));
__asm__(".text\n"
	".p2align 4\n"
	".globl td_rdpmc_rseq_read\n"
	".hidden td_rdpmc_rseq_read\n"
	".type td_rdpmc_rseq_read, @function\n"
	"td_rdpmc_rseq_read:\n"
	"	.cfi_startproc\n"
	"	mov $16, %r9d\n"
	"	mov %rdx, %r11\n"
	"	mov %edi, %r10d\n"
	".Ltd_rseq_restart:\n"
	"	lea .Ltd_rseq_cs(%rip), %rax\n"
	"	mov %rax, 8(%r11)\n"
	".Ltd_rseq_start:\n"
	"	mov 4(%r11), %eax\n"
	"	cmp %r8d, %eax\n"
	"	jae .Ltd_rseq_refuse\n"
	"	bt %rax, (%rcx)\n"
	"	jnc .Ltd_rseq_refuse\n"
	"	mov %r10d, %ecx\n"
	"	rdpmc\n"
	".Ltd_rseq_commit:\n"
	"	movq $0, 8(%r11)\n"
	"	shl $32, %rdx\n"
	"	mov %eax, %eax\n"
	"	or %rdx, %rax\n"
	"	mov %rax, (%rsi)\n"
	"	xor %eax, %eax\n"
	"	ret\n"
	".Ltd_rseq_refuse:\n"
	"	movq $0, 8(%r11)\n"
	"	mov $-14, %eax\n"
	"	ret\n"
	"	.byte 0x0f, 0xb9, 0x3d\n"
	"	.long 0x53053053\n"
	".Ltd_rseq_abort:\n"
	"	dec %r9d\n"
	"	jnz .Ltd_rseq_restart\n"
	"	movq $0, 8(%r11)\n"
	"	mov $-11, %eax\n"
	"	ret\n"
	"	.cfi_endproc\n"
	".size td_rdpmc_rseq_read, .-td_rdpmc_rseq_read\n"
	".pushsection .data.rel.ro, \"aw\"\n"
	".p2align 5\n"
	".Ltd_rseq_cs:\n"
	"	.long 0, 0\n"
	"	.quad .Ltd_rseq_start, .Ltd_rseq_commit - .Ltd_rseq_start, .Ltd_rseq_abort\n"
	".popsection\n");

int td_rdpmc_read_guarded(void *ctx, uint32_t idx, uint64_t *val)
{
	const struct td_rdpmc_guard *g = ctx;
	struct td_rseq_area *rs = td_rseq_area();
	if (!rs)
		return -EFAULT;
	return td_rdpmc_rseq_read(idx - 1, val, rs, g->mask, g->nbits);
}
