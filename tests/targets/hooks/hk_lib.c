/* libtdhk: hooked functions for the longjmp, signal, thread and recursion
 * tests. Every call below goes through a PLT slot (exported, interposable). */
#include <pthread.h>
#include <setjmp.h>
#include <stdint.h>
#include <unistd.h>

volatile uint64_t hk_sink;

/* GCC binds a function's calls to itself directly, even when the symbol
 * is interposable: recursion goes through an exported hkx_*_step function,
 * so each level is a call through the PLT (hkx_ is outside the hk_* glob). */
uint64_t hkx_rec_step(int n);
void hkx_jump_step(jmp_buf *env, int depth, int how);
void hkx_sigjump_step(sigjmp_buf *env, int depth);

/* A little real work, never inlined away. */
uint64_t hk_work(uint64_t x)
{
	for (int i = 0; i < 16; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	hk_sink = x;
	return x;
}

/* Recursion: hk_rec(n) makes n entries in total. */
uint64_t hk_rec(int n)
{
	if (n <= 1)
		return hk_work((uint64_t)n);
	return hkx_rec_step(n - 1) + 1;
}

uint64_t hkx_rec_step(int n)
{
	return hk_rec(n);
}

#pragma GCC diagnostic ignored "-Winfinite-recursion"

/* longjmp out of depth hooked frames (hk_jump recursing through the PLT). */
void hk_jump(jmp_buf *env, int depth, int how)
{
	if (depth > 0) {
		hkx_jump_step(env, depth - 1, how);
		hk_sink++;
		return;
	}
	hk_work((uint64_t)how);
	if (how == 0)
		longjmp(*env, 1);
	_longjmp(*env, 2);
}

void hk_sigjump(sigjmp_buf *env, int depth)
{
	if (depth > 0) {
		hkx_sigjump_step(env, depth - 1);
		hk_sink++;
		return;
	}
	siglongjmp(*env, 3);
}

void hkx_jump_step(jmp_buf *env, int depth, int how)
{
	hk_jump(env, depth, how);
}

void hkx_sigjump_step(sigjmp_buf *env, int depth)
{
	hk_sigjump(env, depth);
}

/* pthread_exit from inside two nested hooked frames. */
void hk_exit_inner(int code)
{
	hk_work((uint64_t)code);
	pthread_exit((void *)(intptr_t)code);
}

/* A tail call through the PLT: both hooks see the same return-address slot. */
void hk_exit_outer(int code)
{
	hk_exit_inner(code);
}

/* Blocks in a cancellation point inside a hooked frame. */
void hk_block(int fd)
{
	char c;
	for (;;)
		if (read(fd, &c, 1) <= 0)
			return;
}
