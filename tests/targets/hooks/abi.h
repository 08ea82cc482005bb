/* libtdabi: every argument and return kind of the SysV x86_64 ABI, for the
 * hook torture test (hooks_abi.c calls them; the test hooks them all). */
#ifndef TD_ABI_H
#define TD_ABI_H
#include <stdint.h>
#include <immintrin.h>

struct abi_big { long v[8]; };          /* > 16 bytes: by value on the stack, returned via sret */
struct abi_small { double x; long y; };  /* returned in xmm0 + rax */
struct abi_pair { double a, b; };        /* returned in xmm0 + xmm1 */

long abi_many_ints(long a, long b, long c, long d, long e, long f, long g, long h, long i, long j);
double abi_mixed(int a, double b, float c, long d, __m128 e, double f, double g, double h,
		 double i, double j, double k, double l, int m, double n);
struct abi_big abi_big_byval(struct abi_big b, int k, struct abi_big c);
double abi_varargs(int n, ...);
long double abi_ld(long double a, long double b);
_Complex long double abi_cld(long double a, long double b);
__int128 abi_i128(__int128 a, __int128 b, int c, __int128 d);
int abi_errno(int e);
struct abi_small abi_small_ret(double x, long y);
struct abi_pair abi_pair_ret(double a, double b);
float abi_float(float a, float b, float c, float d, float e, float f, float g, float h, float i);
__m128 abi_m128(__m128 a, __m128 b);
__m256d abi_m256(__m256d a, __m256d b) __attribute__((target("avx")));
long abi_recurse(long n);         /* calls itself through the PLT */
long abi_callback(long (*fn)(long), long x);
void *abi_addr_of_many_ints(void);
int abi_identity(int x);
void *abi_addr_of_identity(void);
#endif
