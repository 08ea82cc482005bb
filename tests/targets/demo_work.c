/* The demo's work functions, in a shared library so that they can be
 * hooked as function regions (calls from the demo go through its GOT). */
#include <stdint.h>

static uint64_t demo_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

__attribute__((noinline)) uint64_t demo_chase_step(const uint32_t *next, uint32_t at, int n)
{
	for (int i = 0; i < n; i++)
		at = next[at];
	return at;
}

__attribute__((noinline)) uint64_t demo_branch_step(uint64_t *seed, int n)
{
	uint64_t acc = 0;
	for (int i = 0; i < n; i++) {
		uint64_t r = demo_rand(seed);
		if (r & 1)
			acc += r >> 3;
		else if (r & 2)
			acc ^= r;
		else
			acc -= r >> 5;
	}
	return acc;
}

__attribute__((noinline)) double demo_crunch_step(double x, int n)
{
	double a = x, b = x * 0.5, c = x * 0.25, d = x * 0.125;
	for (int i = 0; i < n; i++) {
		a = a * 1.0000001 + 0.5;
		b = b * 0.9999999 + 0.25;
		c = c * 1.0000002 - 0.125;
		d = d * 0.9999998 + 0.0625;
	}
	return a + b + c + d;
}

