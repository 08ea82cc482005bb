// tdprobe.h from C++: the RAII helper closes the region when an exception
// leaves the scope; the plain calls work too. Prints what it did, so the
// output can be compared with and without the preload.
#include <tdprobe.h>

#include <cstdio>
#include <stdexcept>

static int parse(int i)
{
	tdprobe::region r("parse");
	if (i % 4 == 3)
		throw std::runtime_error("bad");
	return i * 2;
}

int main()
{
	int ok = 0, bad = 0;
	for (int i = 0; i < 100; i++) {
		try {
			ok += parse(i) >= 0;
		} catch (const std::exception &) {
			bad++;
		}
	}
	tdprobe_region_begin("tail");
	tdprobe_region_end("tail");
	std::printf("ok %d bad %d\n", ok, bad);
	return 0;
}
