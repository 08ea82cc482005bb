/* td_trampoline.S: common entry and exit of the function hooks (x86_64, SysV).
 *
 * A per-symbol stub (written by td_tramp.c into a W^X page) does
 *     endbr64; mov $id, %r11d; jmp *entry(%rip)
 * so on arrival at td_tramp_entry_* the stack is exactly the caller's:
 *
 *     8(%rsp) ...  stack arguments, large structs by value  (untouched)
 *     0(%rsp)      return address into the caller            (the "RA slot")
 *     %r11d        hook id
 *     %rdi %rsi %rdx %rcx %r8 %r9   integer arguments / hidden sret pointer
 *     %xmm0-7 (%ymm/%zmm)          FP and vector arguments
 *     %al          number of vector registers used by a varargs call
 *     %r10         static chain
 *
 * Entry saves every argument register, keeps %rsp 16-byte aligned and calls
 *     void *td_hook_enter(unsigned id, uintptr_t *ra_slot)
 * which decides everything (C, no decisions here): it may replace *ra_slot
 * with td_tramp_exit_* after keeping the original in its per-thread shadow
 * stack. Entry then restores all registers and jumps (not calls) to the
 * real function, so the callee sees the caller's stack unchanged.
 *
 * Exit is reached by the real function's `ret` when the slot was replaced:
 *     %rax %rdx %xmm0 %xmm1 (%ymm/%zmm 0-1)   return values
 *     %st0 %st1                               long double / complex long
 *                                             double returns (x87 stack)
 *     %rsp                                    RA slot + 8 (16-byte aligned)
 * It keeps %rbp (callee-saved) around a 64-aligned frame, saves the integer
 * and vector return registers, calls
 *     uintptr_t td_hook_exit(uintptr_t sp)
 * which pops the shadow entry and returns the original return address, then
 * restores and jumps there. The x87 stack (%st0/%st1) is left alone, not
 * saved: tdprobe's C code never uses x87 (no long double anywhere; float and
 * double are SSE on x86_64), and probing it with fxam/fnstsw cost ~80 ns per
 * call on our KVM guests. hooks_abi checks long double and complex long
 * double returns through hooked functions. Exit has no caller frame an unwinder could know
 * about, so its CFI marks the return address undefined (end of stack):
 * td_nonlocal.c puts the real addresses back before any unwinding.
 *
 * Three variants differ only in how much of the vector registers they keep:
 * sse (xmm), avx (ymm), avx512 (zmm); td_tramp.c picks one from CPUID.
 * %rax, %r10 and %r11 are preserved on entry (%r11 is reused for the jump).
 */

#define GLOBAL(name) .globl name; .hidden name; .type name, @function; name:
#define END(name) .size name, .-name

	.text

/* Argument save area: 8 GPRs then 8 vector registers of VSZ bytes. */
#define GPR_AREA 64

.macro SAVE_GPRS
	movq	%rdi, 0(%rsp)
	movq	%rsi, 8(%rsp)
	movq	%rdx, 16(%rsp)
	movq	%rcx, 24(%rsp)
	movq	%r8, 32(%rsp)
	movq	%r9, 40(%rsp)
	movq	%rax, 48(%rsp)
	movq	%r10, 56(%rsp)
.endm

.macro RESTORE_GPRS
	movq	0(%rsp), %rdi
	movq	8(%rsp), %rsi
	movq	16(%rsp), %rdx
	movq	24(%rsp), %rcx
	movq	32(%rsp), %r8
	movq	40(%rsp), %r9
	movq	48(%rsp), %rax
	movq	56(%rsp), %r10
.endm

/* With the vector registers saved in full, clear their upper halves before
 * running C: SSE code with dirty upper ymm/zmm state pays a transition
 * penalty on every instruction (~125 ns per hooked call measured here). The
 * saved copies are restored afterwards, so ymm/zmm arguments and return
 * values survive; the upper halves of the other (volatile) registers are
 * the callee's to clobber anyway. */
.macro CLEAN_UPPER vsz
.if \vsz > 16
	vzeroupper
.endif
.endm

/* ENTRY_BODY mov, reg-prefix, size: one entry variant. */
.macro ENTRY_VARIANT name, mov, r, vsz
GLOBAL(\name)
	.cfi_startproc
	endbr64
	pushq	%rbp
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset %rbp, 0
	movq	%rsp, %rbp
	.cfi_def_cfa_register %rbp
	/* Align for the vector saves and the call even if the caller did not
	 * keep the ABI's alignment; the area size is a multiple of 64. */
	andq	$-64, %rsp
	subq	$(GPR_AREA + 8 * \vsz), %rsp
	SAVE_GPRS
	\mov	%\r\()0, (GPR_AREA + 0 * \vsz)(%rsp)
	\mov	%\r\()1, (GPR_AREA + 1 * \vsz)(%rsp)
	\mov	%\r\()2, (GPR_AREA + 2 * \vsz)(%rsp)
	\mov	%\r\()3, (GPR_AREA + 3 * \vsz)(%rsp)
	\mov	%\r\()4, (GPR_AREA + 4 * \vsz)(%rsp)
	\mov	%\r\()5, (GPR_AREA + 5 * \vsz)(%rsp)
	\mov	%\r\()6, (GPR_AREA + 6 * \vsz)(%rsp)
	\mov	%\r\()7, (GPR_AREA + 7 * \vsz)(%rsp)
	CLEAN_UPPER \vsz
	movl	%r11d, %edi
	leaq	8(%rbp), %rsi
	call	td_hook_enter
	movq	%rax, %r11
	\mov	(GPR_AREA + 0 * \vsz)(%rsp), %\r\()0
	\mov	(GPR_AREA + 1 * \vsz)(%rsp), %\r\()1
	\mov	(GPR_AREA + 2 * \vsz)(%rsp), %\r\()2
	\mov	(GPR_AREA + 3 * \vsz)(%rsp), %\r\()3
	\mov	(GPR_AREA + 4 * \vsz)(%rsp), %\r\()4
	\mov	(GPR_AREA + 5 * \vsz)(%rsp), %\r\()5
	\mov	(GPR_AREA + 6 * \vsz)(%rsp), %\r\()6
	\mov	(GPR_AREA + 7 * \vsz)(%rsp), %\r\()7
	RESTORE_GPRS
	leave
	.cfi_def_cfa %rsp, 8
	.cfi_restore %rbp
	jmp	*%r11
	.cfi_endproc
END(\name)
.endm

/* Exit frame: rax 0, rdx 8, vec0 64, vec1 64+vsz. */
.macro EXIT_VARIANT name, mov, r, vsz
	.globl	\name\()_fde
	.hidden	\name\()_fde
\name\()_fde:
	.cfi_startproc
	.cfi_undefined %rip
	/* One byte before the label, so an unwinder looking up "return
	 * address - 1" lands inside this FDE and stops cleanly. */
	nop
GLOBAL(\name)
	endbr64
	pushq	%rbp
	movq	%rsp, %rbp
	andq	$-64, %rsp
	subq	$(64 + 2 * \vsz), %rsp
	movq	%rax, 0(%rsp)
	movq	%rdx, 8(%rsp)
	\mov	%\r\()0, 64(%rsp)
	\mov	%\r\()1, (64 + \vsz)(%rsp)
	CLEAN_UPPER \vsz
	leaq	8(%rbp), %rdi
	call	td_hook_exit
	movq	%rax, %r11
	\mov	64(%rsp), %\r\()0
	\mov	(64 + \vsz)(%rsp), %\r\()1
	movq	0(%rsp), %rax
	movq	8(%rsp), %rdx
	leave
	jmp	*%r11
	.cfi_endproc
END(\name)
.endm

ENTRY_VARIANT td_tramp_entry_sse, movaps, xmm, 16
ENTRY_VARIANT td_tramp_entry_avx, vmovdqa, ymm, 32
ENTRY_VARIANT td_tramp_entry_avx512, vmovdqa64, zmm, 64
EXIT_VARIANT td_tramp_exit_sse, movaps, xmm, 16
EXIT_VARIANT td_tramp_exit_avx, vmovdqa, ymm, 32
EXIT_VARIANT td_tramp_exit_avx512, vmovdqa64, zmm, 64

	.section .note.GNU-stack, "", @progbits
