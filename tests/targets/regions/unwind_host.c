/* A C program that dlopens a C++ library which throws. Prints how many
 * exceptions were caught and whether libunwind is mapped in the process
 * (it must be, when tdprobe keeps call-site chains longer than 1), so the
 * test can tell "libunwind loaded privately" from "never loaded". */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include <tdprobe.h>

static int mapped(const char *needle)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[1024];
	int found = 0;
	while (f && fgets(line, sizeof(line), f))
		if (strstr(line, needle))
			found = 1;
	if (f)
		fclose(f);
	return found;
}

int main(int argc, char **argv)
{
	const char *lib = argc > 1 ? argv[1] : "libregions_throw.so";
	/* A marker region first, so the thread's region state (and with
	 * callsite_depth > 1, libunwind) exists before the C++ code runs. */
	tdprobe_region_begin("host");
	tdprobe_region_end("host");
	void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		return 2;
	}
	int (*rt)(int);
	*(void **)&rt = dlsym(h, "regions_throw_roundtrip");
	int caught = rt ? rt(5) : -1;
	printf("caught %d\n", caught);
	printf("libunwind mapped: %s\n", mapped("libunwind.so") ? "yes" : "no");
	printf("unw_backtrace global: %s\n", dlsym(RTLD_DEFAULT, "unw_backtrace") ? "yes" : "no");
	/* libunwind also exports a weak `backtrace`: the global one must stay libc's. */
	Dl_info info;
	void *bt = dlsym(RTLD_DEFAULT, "backtrace");
	printf("backtrace from: %s\n", bt && dladdr(bt, &info) ? info.dli_fname : "none");
	return caught == 5 ? 0 : 1;
}
