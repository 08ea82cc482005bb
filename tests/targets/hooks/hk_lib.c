/* libtdhk: hooked functions for the longjmp, signal, thread and recursion
 * tests. Every call below goes through a PLT slot (exported, interposable). */
#include <pthread.h>
#include <setjmp.h>
#include <stdint.h>
#include <unistd.h>

volatile uint64_t hk_sink;

/* GCC binds a function's calls to itself directly, even when the symbol
 * is interposable; recursion through a pointer loaded from the GOT
 * (a GLOB_DAT slot) is what a hook can see. */

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
	uint64_t (*volatile self)(int) = hk_rec;
	if (n <= 1)
		return hk_work((uint64_t)n);
	return self(n - 1) + 1;
}

#pragma GCC diagnostic ignored "-Winfinite-recursion"

/* longjmp out of depth hooked frames (hk_jump recursing through the PLT). */
void hk_jump(jmp_buf *env, int depth, int how)
{
	void (*volatile self)(jmp_buf *, int, int) = hk_jump;
	if (depth > 0) {
		self(env, depth - 1, how);
		return;
	}
	hk_work((uint64_t)how);
	if (how == 0)
		longjmp(*env, 1);
	_longjmp(*env, 2);
}

void hk_sigjump(sigjmp_buf *env, int depth)
{
	void (*volatile self)(sigjmp_buf *, int) = hk_sigjump;
	if (depth > 0) {
		self(env, depth - 1);
		return;
	}
	siglongjmp(*env, 3);
}

/* pthread_exit from inside two nested hooked frames. */
void hk_exit_inner(int code)
{
	hk_work((uint64_t)code);
	pthread_exit((void *)(intptr_t)code);
}

void hk_exit_outer(int code)
{
	void (*volatile inner)(int) = hk_exit_inner;
	inner(code);
}

/* Blocks in a cancellation point inside a hooked frame. */
void hk_block(int fd)
{
	char c;
	for (;;)
		if (read(fd, &c, 1) <= 0)
			return;
}
