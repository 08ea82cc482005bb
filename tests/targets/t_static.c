/* A program the loader cannot preload into: built statically
 * (tests/integration/harden_launcher.sh), or installed set-user-ID. */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	printf("ran with %d args\n", argc - 1);
	return argc > 1 ? atoi(argv[1]) : 0;
}
