/* td_dl_x86_64.S: the exported dlopen/dlmopen/dlsym/dlvsym.
 *
 * glibc identifies the caller of these functions by their return address
 * (RTLD_NEXT, RUNPATH/$ORIGIN of the caller, the caller's lookup scope for
 * RTLD_DEFAULT). A C wrapper calling the real function would make
 * libtdprobe the caller. So each wrapper first asks a C "decide" function,
 * with the argument registers saved and the stack untouched otherwise:
 *     void *td_dl_decide_<fn>(same arguments)
 * A non-NULL result is the real function: the wrapper tail-jumps to it and
 * the real function sees the caller's return address. NULL: the wrapper
 * tail-jumps to td_dl_<fn>_c, which calls the real function itself and
 * patches/substitutes afterwards (only where the caller cannot matter).
 * Up to four argument registers are kept (dlvsym has three, dlmopen three).
 */
#ifndef TD_UNIT_TEST

.macro DL_WRAPPER name, decide, cfunc
	.globl	\name
	.type	\name, @function
\name:
	.cfi_startproc
	endbr64
	pushq	%rdi
	.cfi_adjust_cfa_offset 8
	pushq	%rsi
	.cfi_adjust_cfa_offset 8
	pushq	%rdx
	.cfi_adjust_cfa_offset 8
	pushq	%rcx
	.cfi_adjust_cfa_offset 8
	subq	$8, %rsp			/* 8 mod 16 at entry + 40 = aligned */
	.cfi_adjust_cfa_offset 8
	call	\decide
	addq	$8, %rsp
	.cfi_adjust_cfa_offset -8
	popq	%rcx
	.cfi_adjust_cfa_offset -8
	popq	%rdx
	.cfi_adjust_cfa_offset -8
	popq	%rsi
	.cfi_adjust_cfa_offset -8
	popq	%rdi
	.cfi_adjust_cfa_offset -8
	testq	%rax, %rax
	jz	1f
	jmp	*%rax
1:	jmp	\cfunc
	.cfi_endproc
	.size	\name, .-\name
.endm

	.text
DL_WRAPPER dlopen, td_dl_decide_open, td_dl_open_c
DL_WRAPPER dlmopen, td_dl_decide_mopen, td_dl_mopen_c
DL_WRAPPER dlsym, td_dl_decide_sym, td_dl_sym_c
DL_WRAPPER dlvsym, td_dl_decide_vsym, td_dl_vsym_c

#endif
	.section .note.GNU-stack, "", @progbits
