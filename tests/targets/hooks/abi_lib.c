/* libtdabi: see abi.h. Built -O2 so the compiler uses the registers fully. */
#include "abi.h"
#include <errno.h>
#include <stdarg.h>

long abi_many_ints(long a, long b, long c, long d, long e, long f, long g, long h, long i, long j)
{
	return a + 2 * b + 3 * c + 5 * d + 7 * e + 11 * f + 13 * g + 17 * h + 19 * i + 23 * j;
}

double abi_mixed(int a, double b, float c, long d, __m128 e, double f, double g, double h,
		 double i, double j, double k, double l, int m, double n)
{
	float ev[4];
	_mm_storeu_ps(ev, e);
	return a + b * 3 + c * 5 + d * 7 + (ev[0] + 2 * ev[1] + 4 * ev[2] + 8 * ev[3]) + f * 11 +
	       g * 13 + h * 17 + i * 19 + j * 23 + k * 29 + l * 31 + m * 37 + n * 41;
}

struct abi_big abi_big_byval(struct abi_big b, int k, struct abi_big c)
{
	struct abi_big r;
	for (int x = 0; x < 8; x++)
		r.v[x] = b.v[x] * k - c.v[7 - x];
	return r;
}

double abi_varargs(int n, ...)
{
	va_list ap;
	double s = 0;
	va_start(ap, n);
	for (int x = 0; x < n; x++) {
		if (x % 2)
			s += va_arg(ap, double) * (x + 1);
		else
			s += va_arg(ap, int) * (x + 1);
	}
	va_end(ap);
	return s;
}

long double abi_ld(long double a, long double b)
{
	return a * b + 1.0L / 3.0L;
}

_Complex long double abi_cld(long double a, long double b)
{
	return a / 7.0L + b * 1.0iL;
}

__int128 abi_i128(__int128 a, __int128 b, int c, __int128 d)
{
	return a * b + c - d;
}

int abi_errno(int e)
{
	errno = e;
	return -1;
}

struct abi_small abi_small_ret(double x, long y)
{
	return (struct abi_small){ x * 2.5, y * 3 };
}

struct abi_pair abi_pair_ret(double a, double b)
{
	return (struct abi_pair){ a + b, a - b };
}

float abi_float(float a, float b, float c, float d, float e, float f, float g, float h, float i)
{
	return a + b * 2 + c * 3 + d * 4 + e * 5 + f * 6 + g * 7 + h * 8 + i * 9;
}

__m128 abi_m128(__m128 a, __m128 b)
{
	return _mm_add_ps(_mm_mul_ps(a, b), a);
}

__attribute__((target("avx"))) __m256d abi_m256(__m256d a, __m256d b)
{
	return _mm256_add_pd(_mm256_mul_pd(a, b), b);
}

/* GCC binds direct self-calls locally: recurse through another exported
 * function, so each level calls through the PLT. */
long tdabi_recurse_step(long n);

long abi_recurse(long n)
{
	return n <= 1 ? 1 : n + tdabi_recurse_step(n - 1);
}

long tdabi_recurse_step(long n)
{
	return abi_recurse(n);
}

/* The library's own view of functions' addresses (through its GOT). */
void *abi_addr_of_many_ints(void)
{
	return (void *)abi_many_ints;
}

int abi_identity(int x)
{
	return x;
}

void *abi_addr_of_identity(void)
{
	return (void *)abi_identity;
}

long abi_callback(long (*fn)(long), long x)
{
	return fn(x) + 1;
}
