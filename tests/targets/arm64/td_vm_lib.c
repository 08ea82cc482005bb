/* libtdvm: functions the arm64 VM tests hook ([regions] functions): called
 * from td-vm-regions and td-vm-abi through the PLT. Every AAPCS64 argument
 * and return kind the aarch64 trampoline must keep intact. */
#include "td_vm_lib.h"

#include <stdarg.h>

/* 2 instructions per iteration: subs + b.ne; then ret. */
void vm_hooked_work(uint64_t n)
{
	__asm__ volatile("1: subs %0, %0, #1\n\tb.ne 1b" : "+r"(n) : : "cc");
}

long vm_abi_ints(long a, long b, long c, long d, long e, long f, long g, long h, long i, long j)
{
	return a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * f + 7 * g + 8 * h + 9 * i + 10 * j;
}

struct vm_hfa4 vm_abi_hfa(double a, double b, double c, double d, double e, double f, double g,
			  double h, float i)
{
	struct vm_hfa4 r = {a + b, c * d, e - f, g * h + (double)i};
	return r;
}

struct vm_big vm_abi_big(long k, struct vm_big in)
{
	struct vm_big r;
	for (int i = 0; i < 6; i++)
		r.v[i] = in.v[i] * k + i;
	return r;
}

double vm_abi_varargs(int n, ...)
{
	va_list ap;
	double s = 0;
	va_start(ap, n);
	for (int i = 0; i < n; i++)
		s += va_arg(ap, double) * (i + 1);
	va_end(ap);
	return s;
}

long double vm_abi_ld(long double a, long double b)
{
	return a * b + 1.0L;
}

long vm_abi_nest(long (*fn)(long), long x)
{
	return fn(x) * 2;
}

long vm_abi_recurse(long n)
{
	if (n <= 0)
		return 0;
	long r = vm_abi_recurse(n - 1);
	/* Opaque to the optimiser: no turning the recursion into a loop. */
	__asm__ volatile("" : "+r"(r));
	return n + r;
}
