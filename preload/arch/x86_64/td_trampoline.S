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
/* Eight argument vector registers, saved (VSAVE) or loaded (VLOAD). */
.macro VSAVE mov, r, vsz, base
	\mov	%\r\()0, (\base + 0 * \vsz)(%rsp)
	\mov	%\r\()1, (\base + 1 * \vsz)(%rsp)
	\mov	%\r\()2, (\base + 2 * \vsz)(%rsp)
	\mov	%\r\()3, (\base + 3 * \vsz)(%rsp)
	\mov	%\r\()4, (\base + 4 * \vsz)(%rsp)
	\mov	%\r\()5, (\base + 5 * \vsz)(%rsp)
	\mov	%\r\()6, (\base + 6 * \vsz)(%rsp)
	\mov	%\r\()7, (\base + 7 * \vsz)(%rsp)
.endm
.macro VLOAD mov, r, vsz, base
	\mov	(\base + 0 * \vsz)(%rsp), %\r\()0
	\mov	(\base + 1 * \vsz)(%rsp), %\r\()1
	\mov	(\base + 2 * \vsz)(%rsp), %\r\()2
	\mov	(\base + 3 * \vsz)(%rsp), %\r\()3
	\mov	(\base + 4 * \vsz)(%rsp), %\r\()4
	\mov	(\base + 5 * \vsz)(%rsp), %\r\()5
	\mov	(\base + 6 * \vsz)(%rsp), %\r\()6
	\mov	(\base + 7 * \vsz)(%rsp), %\r\()7
.endm

/* xi variants ask the CPU (XGETBV 1, XINUSE) whether the upper halves of
 * ymm/zmm 0-15 are in use (bits 2 and 6). When they are not, the vector
 * registers hold nothing beyond 128 bits: only xmm is saved, with legacy SSE
 * moves, so a program whose vector state was clean finds it clean again
 * after the hooked call (restoring ymm/zmm would leave it dirty, and the
 * program's own SSE code would then pay for it). %eax, %ecx, %edx are free
 * here: the integer registers are already saved. */
.macro UPPER_IN_USE_JNZ label
	movl	$1, %ecx
	xgetbv
	testl	$0x44, %eax
	jnz	\label
.endm

.macro ENTRY_VARIANT name, mov, r, vsz, xi=0
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
.if \xi
	UPPER_IN_USE_JNZ 8f
	VSAVE movaps, xmm, \vsz, GPR_AREA
	movl	%r11d, %edi
	leaq	8(%rbp), %rsi
	call	td_hook_enter
	movq	%rax, %r11
	VLOAD movaps, xmm, \vsz, GPR_AREA
	jmp	9f
8:
.endif
	VSAVE \mov, \r, \vsz, GPR_AREA
	CLEAN_UPPER \vsz
	movl	%r11d, %edi
	leaq	8(%rbp), %rsi
	call	td_hook_enter
	movq	%rax, %r11
	VLOAD \mov, \r, \vsz, GPR_AREA
9:
	RESTORE_GPRS
	leave
	.cfi_def_cfa %rsp, 8
	.cfi_restore %rbp
	jmp	*%r11
	.cfi_endproc
END(\name)
.endm

/* Exit frame: rax 0, rdx 8, vec0 64, vec1 64+vsz. */
.macro EXIT_VARIANT name, mov, r, vsz, xi=0
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
.if \xi
	UPPER_IN_USE_JNZ 8f
	movaps	%xmm0, 64(%rsp)
	movaps	%xmm1, (64 + \vsz)(%rsp)
	leaq	8(%rbp), %rdi
	call	td_hook_exit
	movq	%rax, %r11
	movaps	64(%rsp), %xmm0
	movaps	(64 + \vsz)(%rsp), %xmm1
	jmp	9f
8:
.endif
	\mov	%\r\()0, 64(%rsp)
	\mov	%\r\()1, (64 + \vsz)(%rsp)
	CLEAN_UPPER \vsz
	leaq	8(%rbp), %rdi
	call	td_hook_exit
	movq	%rax, %r11
	\mov	64(%rsp), %\r\()0
	\mov	(64 + \vsz)(%rsp), %\r\()1
9:
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
ENTRY_VARIANT td_tramp_entry_avx_xi, vmovdqa, ymm, 32, 1
ENTRY_VARIANT td_tramp_entry_avx512_xi, vmovdqa64, zmm, 64, 1
EXIT_VARIANT td_tramp_exit_sse, movaps, xmm, 16
EXIT_VARIANT td_tramp_exit_avx, vmovdqa, ymm, 32
EXIT_VARIANT td_tramp_exit_avx512, vmovdqa64, zmm, 64
EXIT_VARIANT td_tramp_exit_avx_xi, vmovdqa, ymm, 32, 1
EXIT_VARIANT td_tramp_exit_avx512_xi, vmovdqa64, zmm, 64, 1

	.section .note.GNU-stack, "", @progbits
