/* The aarch64 counter-read instruction behind td_pmu_read (pmu-facts §4):
 * the page's index 32 is the cycle counter PMCCNTR_EL0, index n+1 is event
 * counter PMEVCNTR<n>_EL0. The register is part of the mrs encoding, so a
 * switch picks one of 32 fixed reads. Written out one per line in register
 * order on purpose: libperf's table swaps entries 12 and 13, and this form
 * makes such a slip visible. Legal at EL0 only while the kernel has set
 * PMUSERENR_EL0.ER/CR for this task, i.e. while the page's index is non-zero
 * (the seqlock reader checks it first). */
#include "td_pmu_read.h"

#define TD_MRS(reg) ({ uint64_t v_; __asm__ __volatile__("mrs %0, " #reg : "=r"(v_)); v_; })

uint64_t td_arch_read_counter(void *ctx, uint32_t idx)
{
	(void)ctx;
	switch (idx) {
	case 1: return TD_MRS(pmevcntr0_el0);
	case 2: return TD_MRS(pmevcntr1_el0);
	case 3: return TD_MRS(pmevcntr2_el0);
	case 4: return TD_MRS(pmevcntr3_el0);
	case 5: return TD_MRS(pmevcntr4_el0);
	case 6: return TD_MRS(pmevcntr5_el0);
	case 7: return TD_MRS(pmevcntr6_el0);
	case 8: return TD_MRS(pmevcntr7_el0);
	case 9: return TD_MRS(pmevcntr8_el0);
	case 10: return TD_MRS(pmevcntr9_el0);
	case 11: return TD_MRS(pmevcntr10_el0);
	case 12: return TD_MRS(pmevcntr11_el0);
	case 13: return TD_MRS(pmevcntr12_el0);
	case 14: return TD_MRS(pmevcntr13_el0);
	case 15: return TD_MRS(pmevcntr14_el0);
	case 16: return TD_MRS(pmevcntr15_el0);
	case 17: return TD_MRS(pmevcntr16_el0);
	case 18: return TD_MRS(pmevcntr17_el0);
	case 19: return TD_MRS(pmevcntr18_el0);
	case 20: return TD_MRS(pmevcntr19_el0);
	case 21: return TD_MRS(pmevcntr20_el0);
	case 22: return TD_MRS(pmevcntr21_el0);
	case 23: return TD_MRS(pmevcntr22_el0);
	case 24: return TD_MRS(pmevcntr23_el0);
	case 25: return TD_MRS(pmevcntr24_el0);
	case 26: return TD_MRS(pmevcntr25_el0);
	case 27: return TD_MRS(pmevcntr26_el0);
	case 28: return TD_MRS(pmevcntr27_el0);
	case 29: return TD_MRS(pmevcntr28_el0);
	case 30: return TD_MRS(pmevcntr29_el0);
	case 31: return TD_MRS(pmevcntr30_el0);
	case 32: return TD_MRS(pmccntr_el0);
	default: return 0; /* no such counter: never execute a guess */
	}
}

/* The page's time base on arm64: the virtual counter (cap_user_time is set
 * when sched_clock runs on the arch timer). The isb keeps the read from
 * being taken early, ahead of the counter reads it is paired with. */
uint64_t td_arch_read_time(void *ctx)
{
	uint64_t v;
	(void)ctx;
	__asm__ __volatile__("isb\n\tmrs %0, cntvct_el0" : "=r"(v) : : "memory");
	return v;
}

const struct td_pmu_reader td_pmu_reader_hw = {
	.read_counter = td_arch_read_counter,
	.ctx = 0,
	.read_time = td_arch_read_time,
};
