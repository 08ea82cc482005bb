/* A library function whose cost in page faults is known exactly: it maps
 * `pages` fresh anonymous pages (no huge pages), writes one byte to each
 * (one minor fault per page) and unmaps them. */
#define _GNU_SOURCE
#include <sys/mman.h>
#include <unistd.h>

long region_touch_pages(long pages)
{
	long pg = sysconf(_SC_PAGESIZE);
	size_t len = (size_t)(pages * pg);
	volatile char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -1;
	madvise((void *)p, len, MADV_NOHUGEPAGE);
	for (long i = 0; i < pages; i++)
		p[i * pg] = (char)i;
	munmap((void *)p, len);
	return pages;
}
