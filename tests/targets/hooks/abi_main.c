/* hooks_abi: calls every function of libtdabi with distinctive values and
 * prints every result bit-exactly (%a), errno included. Run with and
 * without the preload hooking abi_*: the output must be identical.
 * Usage: hooks_abi [rounds]; each round makes the same calls (so the
 * report's call counts are known: once per round per function, but
 * abi_many_ints 3 (twice directly, once -fno-plt), abi_recurse 15
 * (10 + 5 levels), abi_varargs 2). */
#include "abi.h"
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

long abi_noplt_calls(long x); /* abi_noplt.c, built with -fno-plt */

static long twice(long x) { return 2 * x; }

__attribute__((target("avx"), noinline)) static void call_m256(double *v)
{
	__m256d a = { 1.5, -2.5, 3.25, 1e300 };
	__m256d bb = { 2.0, 4.0, -8.0, 1e-300 };
	__m256d r = abi_m256(a, bb);
	memcpy(v, &r, 4 * sizeof(double));
}

static void round_once(int print)
{
	long r1 = abi_many_ints(1, -2, 3, -4, 5, -6, 7, -8, 9, -10);
	__m128 e = _mm_setr_ps(1.5f, -2.25f, 3.125f, 1e-3f);
	double r2 = abi_mixed(7, 0.1, 0.2f, -99, e, 1.1, 2.2, 3.3, 4.4, 5.5, 6.6, 7.7, 42, 8.8);
	struct abi_big b, c;
	for (int i = 0; i < 8; i++) {
		b.v[i] = 1000 + i;
		c.v[i] = -i * 31;
	}
	struct abi_big r3 = abi_big_byval(b, 3, c);
	double r4 = abi_varargs(6, 1, 0.5, 2, 0.25, 3, 1e10);
	double r4b = abi_varargs(9, 9, 1.5, 8, 2.5, 7, 3.5, 6, 4.5, 5);
	long double r5 = abi_ld(1.0L / 3.0L, 12345.678L);
	_Complex long double r6 = abi_cld(2.0L, -0.5L);
	__int128 r7 = abi_i128((__int128)1 << 100, 3, -7, ((__int128)5 << 70) + 11);
	errno = 0;
	int r8 = abi_errno(EDOM);
	int err8 = errno;
	struct abi_small r9 = abi_small_ret(1.25, -77);
	struct abi_pair r10 = abi_pair_ret(0.3, 0.7);
	float r11 = abi_float(0.1f, 0.2f, 0.3f, 0.4f, 0.5f, 0.6f, 0.7f, 0.8f, 0.9f);
	float m[4];
	_mm_storeu_ps(m, abi_m128(_mm_setr_ps(1, 2, 3, 4), _mm_setr_ps(0.5f, -1, 2, 1e-7f)));
	long r12 = abi_recurse(10);
	long r13 = abi_many_ints(10, 9, 8, 7, 6, 5, 4, 3, 2, 1);
	long r14 = abi_callback(twice, 21);
	long r15 = abi_noplt_calls(5);
	double v[4] = { 0 };
	if (__builtin_cpu_supports("avx"))
		call_m256(v);
	if (!print)
		return;
	printf("many_ints %ld\nmixed %a\n", r1, r2);
	for (int i = 0; i < 8; i++)
		printf("big[%d] %ld\n", i, r3.v[i]);
	printf("varargs %a %a\nld %La\ncld %La %La\n", r4, r4b, r5, __real__ r6, __imag__ r6);
	printf("i128 %016llx%016llx\n", (unsigned long long)(r7 >> 64), (unsigned long long)r7);
	printf("errno ret %d errno %d\nsmall %a %ld\npair %a %a\nfloat %a\n", r8, err8, r9.x, r9.y,
	       r10.a, r10.b, (double)r11);
	printf("m128 %a %a %a %a\nrecurse %ld\nmany2 %ld\ncallback %ld\nnoplt %ld\n", m[0], m[1], m[2],
	       m[3], r12, r13, r14, r15);
	printf("m256 %a %a %a %a\n", v[0], v[1], v[2], v[3]);
	/* Function pointers must compare equal however they were obtained:
	 * abi_identity's address is taken here and never called; the library
	 * takes abi_many_ints' address. */
	void *mine = (void *)abi_identity, *lib = abi_addr_of_identity();
	void *dl = dlsym(RTLD_DEFAULT, "abi_identity");
	void *many_lib = abi_addr_of_many_ints(), *many_dl = dlsym(RTLD_DEFAULT, "abi_many_ints");
	printf("identity exe==lib %d exe==dlsym %d lib==dlsym %d\n", mine == lib, mine == dl,
	       many_lib == many_dl);
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 1;
	for (int i = 0; i < rounds; i++)
		round_once(i == 0);
	return 0;
}
