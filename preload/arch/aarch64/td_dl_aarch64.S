/* td_dl_aarch64.S: the exported dlopen/dlmopen/dlsym/dlvsym (see
 * arch/x86_64/td_dl_x86_64.S for why they are assembly: glibc identifies
 * the caller by the return address, here x30 at the real function's entry).
 * Each wrapper saves x0-x3 and x29/x30, asks
 *     void *td_dl_decide_<fn>(same arguments)
 * restores them (x30 is the caller's return address again) and branches
 * with br x16 to the real function when it returned one, else tail-calls
 * td_dl_<fn>_c. */
#ifndef TD_UNIT_TEST

.macro DL_WRAPPER name, decide, cfunc
	.globl	\name
	.type	\name, %function
	.p2align 2
\name:
	.cfi_startproc
	stp	x29, x30, [sp, #-48]!
	.cfi_def_cfa_offset 48
	.cfi_offset x29, -48
	.cfi_offset x30, -40
	mov	x29, sp
	stp	x0, x1, [sp, #16]
	stp	x2, x3, [sp, #32]
	bl	\decide
	mov	x16, x0
	ldp	x0, x1, [sp, #16]
	ldp	x2, x3, [sp, #32]
	ldp	x29, x30, [sp], #48
	.cfi_restore x29
	.cfi_restore x30
	.cfi_def_cfa_offset 0
	cbz	x16, 1f
	br	x16
1:	b	\cfunc
	.cfi_endproc
	.size	\name, .-\name
.endm

	.text
DL_WRAPPER dlopen, td_dl_decide_open, td_dl_open_c
DL_WRAPPER dlmopen, td_dl_decide_mopen, td_dl_mopen_c
DL_WRAPPER dlsym, td_dl_decide_sym, td_dl_sym_c
DL_WRAPPER dlvsym, td_dl_decide_vsym, td_dl_vsym_c

#endif
	.section .note.GNU-stack, "", %progbits
