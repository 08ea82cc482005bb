/* x86_64 stubs: 16 bytes each,
 *     f3 0f 1e fa          endbr64             (valid indirect-branch target)
 *     41 bb <id32>         mov $id, %r11d      (r11: scratch in the SysV ABI)
 *     ff 25 <rel32>        jmp *entry(%rip)    (the page's first 8 bytes)
 * The entry address sits in the page header so stubs need no relocation
 * and the page can be anywhere in the address space. */
#include "../../td_tramp.h"

#include <cpuid.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

extern char td_tramp_entry_sse[], td_tramp_entry_avx[], td_tramp_entry_avx512[];
extern char td_tramp_exit_sse[], td_tramp_exit_avx[], td_tramp_exit_avx512[];
extern char td_tramp_entry_avx_xi[], td_tramp_entry_avx512_xi[];
extern char td_tramp_exit_avx_xi[], td_tramp_exit_avx512_xi[];

const unsigned td_tramp_arch_stub_size = 16;
const unsigned td_tramp_arch_header_size = 16;

void td_tramp_arch_header(void *page, void *entry)
{
	memcpy(page, &entry, sizeof(entry));
}

void td_tramp_arch_stub(void *page, void *stub, unsigned id)
{
	unsigned char *s = stub;
	int32_t rel = (int32_t)((intptr_t)page - (intptr_t)(s + 16));
	static const unsigned char endbr[4] = { 0xf3, 0x0f, 0x1e, 0xfa };
	memcpy(s, endbr, 4);
	s[4] = 0x41;
	s[5] = 0xbb;
	memcpy(s + 6, &id, 4);
	s[10] = 0xff;
	s[11] = 0x25;
	memcpy(s + 12, &rel, 4);
}

static uint64_t td_tramp_xgetbv(void)
{
	uint32_t lo, hi;
	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	return ((uint64_t)hi << 32) | lo;
}

/* Keep whole ymm/zmm argument registers when the OS has the state on:
 * our C code (and libc's string functions it calls) may use AVX. The
 * trampolines save them in full, vzeroupper before C (SSE code with dirty
 * upper state is slow), and restore them in full afterwards. */
void td_tramp_arch_select(struct td_tramp *tp)
{
	unsigned a, b, c, d;
	tp->entry = td_tramp_entry_sse;
	tp->exit = td_tramp_exit_sse;
	tp->variant = "sse";
	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_OSXSAVE) || !(c & bit_AVX))
		return;
	uint64_t xcr0 = td_tramp_xgetbv();
	if ((xcr0 & 0x6) != 0x6)
		return;
	tp->entry = td_tramp_entry_avx;
	tp->exit = td_tramp_exit_avx;
	tp->variant = "avx";
	bool avx512 = __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & bit_AVX512F) &&
		      (xcr0 & 0xe6) == 0xe6;
	if (avx512) {
		tp->entry = td_tramp_entry_avx512;
		tp->exit = td_tramp_exit_avx512;
		tp->variant = "avx512";
	}
	/* XGETBV with ECX=1 (XINUSE): the trampolines can then tell whether the
	 * caller's upper vector state is in use and keep a clean one clean. */
	if (__get_cpuid_count(0xd, 1, &a, &b, &c, &d) && (a & (1u << 2))) {
		tp->entry = avx512 ? td_tramp_entry_avx512_xi : td_tramp_entry_avx_xi;
		tp->exit = avx512 ? td_tramp_exit_avx512_xi : td_tramp_exit_avx_xi;
		tp->variant = avx512 ? "avx512+xinuse" : "avx+xinuse";
	}
}

/* Lazy PLT entries start with `push $index` (68 imm32), after an endbr64
 * in IBT-enabled PLTs; no compiler starts a function that way. */
bool td_tramp_arch_is_lazy_plt(uintptr_t code)
{
	const unsigned char *p = (const unsigned char *)code;
	if (p[0] == 0xf3 && p[1] == 0x0f && p[2] == 0x1e && p[3] == 0xfa)
		p += 4;
	return p[0] == 0x68;
}

/* PLT forms: jmp *x(%rip) (ff 25), bnd jmp (f2 ff 25), both optionally
 * after endbr64; .plt.got entries are the same with a GLOB_DAT slot. */
void **td_tramp_arch_plt_slot(uintptr_t code)
{
	const unsigned char *p = (const unsigned char *)code;
	if (p[0] == 0xf3 && p[1] == 0x0f && p[2] == 0x1e && p[3] == 0xfa)
		p += 4;
	if (p[0] == 0xf2)
		p++;
	if (p[0] != 0xff || p[1] != 0x25)
		return NULL;
	int32_t rel;
	memcpy(&rel, p + 2, 4);
	return (void **)(p + 6 + rel);
}

/* Finds RIP-relative memory operands that address a slot: a 32-bit
 * displacement at p whose target (end of displacement + disp) is the slot.
 * `ff 15` (call *) and `ff 25` (jmp *) right before it are calls; anything
 * else (mov, cmp, push ...) reads the pointer. Instructions with an
 * immediate after the displacement are not seen; no compiler emits those
 * for a GOT load. A chance byte match can only make a slot look used
 * otherwise, which leaves it unpatched. */
void td_tramp_arch_slot_uses(const unsigned char *text, size_t len, void *const *const *slots,
			     unsigned char *uses, size_t n)
{
	if (n == 0 || len < 6)
		return;
	uintptr_t lo = (uintptr_t)slots[0], hi = (uintptr_t)slots[n - 1];
	for (size_t p = 2; p + 4 <= len; p++) {
		int32_t disp;
		memcpy(&disp, text + p, 4);
		uintptr_t target = (uintptr_t)(text + p + 4) + (intptr_t)disp;
		if (target < lo || target > hi)
			continue;
		size_t a = 0, b = n;
		while (a < b) {
			size_t m = (a + b) / 2;
			if ((uintptr_t)slots[m] < target)
				a = m + 1;
			else
				b = m;
		}
		if (a == n || (uintptr_t)slots[a] != target)
			continue;
		bool call = text[p - 2] == 0xff && (text[p - 1] == 0x15 || text[p - 1] == 0x25);
		uses[a] |= call ? TD_SLOT_CALL : TD_SLOT_OTHER;
	}
}
