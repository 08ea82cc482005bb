/* Closes stderr and opens a data file, which gets fd 2: tdprobe's exit
 * summary must not land in the program's file. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	close(2);
	int fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd != 2)
		return 3;
	const char *data = "program data\n";
	return write(fd, data, strlen(data)) == (ssize_t)strlen(data) ? 0 : 4;
}
