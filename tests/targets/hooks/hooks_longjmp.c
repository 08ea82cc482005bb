/* hooks_longjmp: longjmp, _longjmp and siglongjmp out of nested hooked
 * frames (hk_jump/hk_sigjump recurse through the PLT), then normal calls
 * to a hooked function. Prints what a run without tdprobe prints. */
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

void hk_jump(jmp_buf *env, int depth, int how);
void hk_sigjump(sigjmp_buf *env, int depth);
uint64_t hk_work(uint64_t x);

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 100;
	volatile long sum = 0;
	for (int i = 0; i < rounds; i++) {
		jmp_buf env;
		volatile int got = 0;
		int r = setjmp(env);
		if (r == 0)
			hk_jump(&env, 4, i % 2); /* 5 hk_jump frames, 1 hk_work */
		got = r;
		sum += got;
		sigjmp_buf senv;
		r = sigsetjmp(senv, 1);
		if (r == 0)
			hk_sigjump(&senv, 2); /* 3 hk_sigjump frames */
		sum += r;
		sum += (long)(hk_work((uint64_t)i) & 1); /* 1 hk_work */
	}
	printf("longjmp rounds %d sum %ld\n", rounds, sum);
	return 0;
}
