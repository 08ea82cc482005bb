/* aarch64 stubs: 16 bytes each,
 *     ldr  x17, <page start>        LDR (literal): the entry address in the header
 *     movz w16, #id[15:0]
 *     movk w16, #id[31:16], lsl #16
 *     br   x17
 * x16/x17 are the intra-procedure-call scratch registers, which a PLT entry
 * (the usual way here) already clobbers. The entry address sits in the page
 * header so stubs need no relocation and the page can be anywhere. */
#include "../../td_tramp.h"

#include <stdint.h>
#include <string.h>

extern char td_tramp_entry_aapcs64[], td_tramp_exit_aapcs64[];

const unsigned td_tramp_arch_stub_size = 16;
const unsigned td_tramp_arch_header_size = 16;

void td_tramp_arch_header(void *page, void *entry)
{
	memcpy(page, &entry, sizeof(entry));
}

void td_tramp_arch_stub(void *page, void *stub, unsigned id)
{
	/* LDR (literal) 64-bit: 0x58000000 | imm19 << 5 | Rt, offset in words. */
	int64_t words = ((intptr_t)page - (intptr_t)stub) / 4;
	uint32_t insn[4] = {
		0x58000000u | ((uint32_t)(words & 0x7ffff) << 5) | 17u,
		0x52800000u | ((id & 0xffffu) << 5) | 16u,          /* movz w16, #lo */
		0x72a00000u | (((id >> 16) & 0xffffu) << 5) | 16u,  /* movk w16, #hi, lsl 16 */
		0xd61f0220u,                                        /* br x17 */
	};
	memcpy(stub, insn, sizeof(insn));
}

void td_tramp_arch_select(struct td_tramp *tp)
{
	tp->entry = td_tramp_entry_aapcs64;
	tp->exit = td_tramp_exit_aapcs64;
	tp->variant = "aapcs64";
}

static uint32_t td_tramp_insn(uintptr_t code, int i)
{
	uint32_t v;
	memcpy(&v, (const void *)(code + 4 * (uintptr_t)i), 4);
	return v;
}

#define TD_A64_BTI_C 0xd503245fu

/* Before lazy binding resolves it, a GOT entry points at PLT0, which starts
 * `stp x16, x30, [sp, #-16]!` (after `bti c` in BTI PLTs); no compiled
 * function starts by saving x16. */
bool td_tramp_arch_is_lazy_plt(uintptr_t code)
{
	int i = td_tramp_insn(code, 0) == TD_A64_BTI_C;
	return td_tramp_insn(code, i) == 0xa9bf7bf0u;
}

/* PLT entry: [bti c;] adrp x16, GOT page; ldr x17, [x16, #off]; add x16,
 * x16, #off; br x17. Returns the GOT slot it jumps through. */
void **td_tramp_arch_plt_slot(uintptr_t code)
{
	int i = td_tramp_insn(code, 0) == TD_A64_BTI_C;
	uintptr_t pc = code + 4 * (uintptr_t)i;
	uint32_t adrp = td_tramp_insn(pc, 0), ldr = td_tramp_insn(pc, 1), br = td_tramp_insn(pc, 3);
	if ((adrp & 0x9f00001fu) != 0x90000010u)  /* adrp x16 */
		return NULL;
	if ((ldr & 0xffc003ffu) != 0xf9400211u)   /* ldr x17, [x16, #imm] */
		return NULL;
	if (br != 0xd61f0220u)                    /* br x17 */
		return NULL;
	int64_t imm = (int64_t)((((adrp >> 5) & 0x7ffffu) << 2) | ((adrp >> 29) & 3u));
	imm = (imm << 43) >> 43;                  /* 21-bit signed page count */
	uintptr_t page = (pc & ~(uintptr_t)0xfff) + (uintptr_t)(imm << 12);
	uintptr_t off = ((ldr >> 10) & 0xfffu) * 8;
	return (void **)(page + off);
}

/* Index of target in the sorted slots, or n. */
static size_t td_tramp_slot_find(void *const *const *slots, size_t n, uintptr_t target)
{
	size_t a = 0, b = n;
	while (a < b) {
		size_t m = (a + b) / 2;
		if ((uintptr_t)slots[m] < target)
			a = m + 1;
		else
			b = m;
	}
	return a < n && (uintptr_t)slots[a] == target ? a : n;
}

/* GOT loads on aarch64 are `adrp xN, page` then `ldr xT, [xN, #off]` (a few
 * instructions apart at most). A use is a call when the loaded register is
 * next branched through (`blr xT` / `br xT`) before anything else writes
 * it; anything else takes the pointer's value. */
void td_tramp_arch_slot_uses(const unsigned char *text, size_t len, void *const *const *slots,
			     unsigned char *uses, size_t n)
{
	if (n == 0 || len < 8)
		return;
	uintptr_t lo = (uintptr_t)slots[0], hi = (uintptr_t)slots[n - 1];
	size_t nw = len / 4;
	uintptr_t base = (uintptr_t)text;
	for (size_t i = 0; i < nw; i++) {
		uint32_t w;
		memcpy(&w, text + 4 * i, 4);
		if ((w & 0x9f000000u) != 0x90000000u) /* adrp */
			continue;
		unsigned rn = w & 31;
		int64_t imm = (int64_t)((((w >> 5) & 0x7ffffu) << 2) | ((w >> 29) & 3u));
		imm = (imm << 43) >> 43;
		uintptr_t page = ((base + 4 * i) & ~(uintptr_t)0xfff) + (uintptr_t)(imm << 12);
		if (page + 0x8000 < lo || page > hi)
			continue;
		for (size_t j = i + 1; j < nw && j <= i + 4; j++) {
			uint32_t l;
			memcpy(&l, text + 4 * j, 4);
			/* ldr xT, [xN, #imm12*8] */
			if ((l & 0xffc00000u) != 0xf9400000u || ((l >> 5) & 31) != rn)
				continue;
			uintptr_t target = page + ((l >> 10) & 0xfffu) * 8;
			size_t k = td_tramp_slot_find(slots, n, target);
			if (k == n)
				break;
			unsigned rt = l & 31;
			unsigned char use = TD_SLOT_OTHER;
			for (size_t q = j + 1; q < nw && q <= j + 4; q++) {
				uint32_t b;
				memcpy(&b, text + 4 * q, 4);
				if (b == (0xd63f0000u | rt << 5) || b == (0xd61f0000u | rt << 5)) {
					use = TD_SLOT_CALL; /* blr / br through the loaded pointer */
					break;
				}
				if ((b & 31) == rt) /* most writes name their target in bits 0-4 */
					break;
			}
			uses[k] |= use;
			break;
		}
	}
}
