/* hooks_recursion: hk_rec recursing through its own PLT slot: depth 50
 * (each entry hooked) and depth 2000 (beyond the 512-frame shadow stack:
 * the deepest entries run uncounted, the program is unaffected). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

uint64_t hk_rec(int n);

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 10;
	uint64_t s = 0;
	for (int i = 0; i < rounds; i++)
		s += hk_rec(50);
	s += hk_rec(2000);
	printf("recursion %llx\n", (unsigned long long)s);
	return 0;
}
