/* Does a hooked call leave the caller's vector state as it found it? A
 * program running SSE code with clean upper ymm/zmm halves must find them
 * clean after the call (XGETBV 1, XINUSE bits 2 and 6); dirty ones are its
 * own business. Prints "clean", "dirty" or "no xinuse". */
#include <cpuid.h>
#include <stdint.h>
#include <stdio.h>

double vecstate_add(double a, double b);

static uint32_t xinuse(void)
{
	uint32_t lo, hi;
	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(1));
	return lo;
}

int main(void)
{
	unsigned a, b, c, d;
	if (!__get_cpuid_count(0xd, 1, &a, &b, &c, &d) || !(a & (1u << 2)) ||
	    !__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_AVX)) {
		puts("no xinuse");
		return 0;
	}
	double x = 0;
	int dirty = 0;
	for (int i = 0; i < 1000; i++) {
		__asm__ volatile("vzeroupper");
		x = vecstate_add(x, 1.0);
		dirty += (xinuse() & 0x44) != 0;
	}
	printf("%s (x = %.0f)\n", dirty ? "dirty" : "clean", x);
	return 0;
}
