#include "td_tramp.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

void td_tramp_init(struct td_tramp *tp)
{
	memset(tp, 0, sizeof(*tp));
	td_tramp_arch_select(tp);
}

int td_tramp_make(struct td_tramp *tp, unsigned first, unsigned n, void **stubs)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	unsigned per_page = (unsigned)((page - td_tramp_arch_header_size) / td_tramp_arch_stub_size);
	unsigned done = 0;

	while (done < n) {
		unsigned nr = atomic_load(&tp->nr_pages);
		if (nr >= TD_TRAMP_MAX_PAGES)
			return -ENOSPC;
		unsigned k = n - done < per_page ? n - done : per_page;
		char *p = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return -errno;
		td_tramp_arch_header(p, tp->entry);
		for (unsigned i = 0; i < k; i++) {
			char *stub = p + td_tramp_arch_header_size + i * td_tramp_arch_stub_size;
			td_tramp_arch_stub(p, stub, first + done + i);
			stubs[done + i] = stub;
		}
		__builtin___clear_cache(p, p + page);
		if (mprotect(p, page, PROT_READ | PROT_EXEC)) {
			int err = -errno;
			munmap(p, page);
			return err;
		}
		tp->pages[nr] = (struct td_tramp_page){ (uintptr_t)p, first + done, k };
		atomic_store_explicit(&tp->nr_pages, nr + 1, memory_order_release);
		done += k;
	}
	return 0;
}

bool td_tramp_lookup(const struct td_tramp *tp, uintptr_t addr, unsigned *id)
{
	unsigned nr = atomic_load_explicit(&tp->nr_pages, memory_order_acquire);
	for (unsigned i = 0; i < nr; i++) {
		const struct td_tramp_page *pg = &tp->pages[i];
		uintptr_t first = pg->base + td_tramp_arch_header_size;
		if (addr < first || addr >= first + (uintptr_t)pg->n * td_tramp_arch_stub_size)
			continue;
		if ((addr - first) % td_tramp_arch_stub_size)
			return false;
		*id = pg->first_id + (unsigned)((addr - first) / td_tramp_arch_stub_size);
		return true;
	}
	return false;
}
