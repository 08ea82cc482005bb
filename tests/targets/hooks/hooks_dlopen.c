/* hooks_dlopen: dlopen(path of libtddl.so) after startup, then
 * dlsym("dl_entry") called 300 times (600 dl_leaf calls inside the library
 * through its PLT) and dlsym("dl_leaf") called 100 times directly.
 * dlerror must say what it says without tdprobe. */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		printf("dlopen failed: %s\n", dlerror());
		return 1;
	}
	printf("dlerror after dlopen: %s\n", dlerror() ? "set" : "none");
	uint64_t (*entry)(uint64_t) = (uint64_t(*)(uint64_t))dlsym(h, "dl_entry");
	uint64_t (*leaf)(uint64_t) = (uint64_t(*)(uint64_t))dlsym(h, "dl_leaf");
	printf("dlerror after dlsym: %s\n", dlerror() ? "set" : "none");
	uint64_t s = 0;
	for (int i = 0; i < 300; i++)
		s += entry((uint64_t)i);
	for (int i = 0; i < 100; i++)
		s += leaf((uint64_t)i);
	printf("dlopen sum %llx\n", (unsigned long long)s);
	printf("missing: %s\n", dlsym(h, "dl_nonexistent") ? "found" : "NULL");
	printf("dlerror set: %s\n", dlerror() ? "yes" : "no");
	dlclose(h);
	return 0;
}
