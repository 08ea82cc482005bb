/* td_trampoline.S: common entry and exit of the function hooks (aarch64, AAPCS64).
 *
 * A per-symbol stub (td_tramp_aarch64.c) does
 *     ldr x17, <page header>; movz w16, #id_lo; movk w16, #id_hi, lsl 16; br x17
 * so on arrival at td_tramp_entry_aapcs64 everything is the caller's:
 *
 *     sp           caller's stack pointer (16-byte aligned), stack arguments above
 *     x30          return address into the caller
 *     x0-x7        integer arguments, x8 indirect result location
 *     v0-v7        FP/SIMD arguments (q registers: all 128 bits kept)
 *     x16          hook id; x17 scratch (x16/x17 are IP0/IP1: any veneer or
 *                  PLT may clobber them, so no caller expects them kept)
 *
 * Unlike x86_64 the return address is in a register, not on the stack. The
 * entry frame is laid out so that x30 is saved at sp_entry - 8, and that
 * address is the "RA slot" handed to
 *     void *td_hook_enter(unsigned id, uintptr_t *ra_slot)
 * which may replace it with td_tramp_exit_aapcs64 (keeping the original in
 * its shadow stack). Entry reloads x30 from the slot, restores every
 * argument register and branches (br x17: a valid landing for a BTI "c"
 * pad) to the real function with the caller's stack unchanged. The slot
 * address identifies the call for the shadow stack: after the function's
 * ret, sp is sp_entry again, and exit passes it to
 *     uintptr_t td_hook_exit(uintptr_t sp)      (slot = sp - 8)
 * which pops the entry and returns the original return address; exit
 * restores x0-x8 and v0-v7 (return values: x0-x7, v0-v3 HFAs; x8 kept for
 * callers that rely on it) and returns there with `ret x16`.
 *
 * Exit has no caller frame an unwinder could know about: its CFI marks the
 * return address (x30) undefined, i.e. end of stack. Not kept: the upper
 * bits of SVE z0-z7 and p0-p3 (SVE-typed arguments), which the C code may
 * clobber through NEON writes.
 */

#define GLOBAL(name) .globl name; .hidden name; .type name, %function; name:
#define END(name) .size name, .-name

/* Frame: q0-q7 at 0..127, x0-x8 at 128..199, x29/x30 at 208/216; 224 bytes,
 * so the saved x30 sits at sp_entry - 8. */
#define FRAME 224
#define XOFF 128
#define FPOFF 208

.macro SAVE_ARGS
	stp	q0, q1, [sp, #0]
	stp	q2, q3, [sp, #32]
	stp	q4, q5, [sp, #64]
	stp	q6, q7, [sp, #96]
	stp	x0, x1, [sp, #XOFF + 0]
	stp	x2, x3, [sp, #XOFF + 16]
	stp	x4, x5, [sp, #XOFF + 32]
	stp	x6, x7, [sp, #XOFF + 48]
	str	x8, [sp, #XOFF + 64]
.endm

.macro RESTORE_ARGS
	ldp	q0, q1, [sp, #0]
	ldp	q2, q3, [sp, #32]
	ldp	q4, q5, [sp, #64]
	ldp	q6, q7, [sp, #96]
	ldp	x0, x1, [sp, #XOFF + 0]
	ldp	x2, x3, [sp, #XOFF + 16]
	ldp	x4, x5, [sp, #XOFF + 32]
	ldp	x6, x7, [sp, #XOFF + 48]
	ldr	x8, [sp, #XOFF + 64]
.endm

	.text
	.p2align 4
GLOBAL(td_tramp_entry_aapcs64)
	.cfi_startproc
	sub	sp, sp, #FRAME
	.cfi_def_cfa_offset FRAME
	stp	x29, x30, [sp, #FPOFF]
	.cfi_rel_offset x29, FPOFF
	.cfi_rel_offset x30, FPOFF + 8
	add	x29, sp, #FPOFF
	SAVE_ARGS
	mov	w0, w16
	add	x1, sp, #FPOFF + 8
	bl	td_hook_enter
	mov	x17, x0
	RESTORE_ARGS
	ldp	x29, x30, [sp, #FPOFF]
	.cfi_restore x29
	.cfi_restore x30
	add	sp, sp, #FRAME
	.cfi_def_cfa_offset 0
	br	x17
	.cfi_endproc
END(td_tramp_entry_aapcs64)

	.p2align 4
	.globl	td_tramp_exit_aapcs64_fde
	.hidden	td_tramp_exit_aapcs64_fde
td_tramp_exit_aapcs64_fde:
	.cfi_startproc
	.cfi_undefined x30
	/* One instruction before the label, so an unwinder looking up
	 * "return address - 1" lands inside this FDE and stops cleanly. */
	nop
GLOBAL(td_tramp_exit_aapcs64)
	sub	sp, sp, #FRAME
	stp	x29, x30, [sp, #FPOFF]
	SAVE_ARGS
	add	x0, sp, #FRAME
	bl	td_hook_exit
	mov	x16, x0
	RESTORE_ARGS
	ldp	x29, x30, [sp, #FPOFF]
	add	sp, sp, #FRAME
	ret	x16
	.cfi_endproc
END(td_tramp_exit_aapcs64)

	.section .note.GNU-stack, "", %progbits
