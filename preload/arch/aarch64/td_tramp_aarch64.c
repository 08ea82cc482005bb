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
