// A C++ library whose exceptions are thrown and caught inside it; the host
// that dlopens it is plain C, so libgcc_s's unwinder is the one in scope.
#include <stdexcept>

extern "C" int regions_throw_roundtrip(int n)
{
	int caught = 0;
	for (int i = 0; i < n; i++) {
		try {
			throw std::runtime_error("x");
		} catch (const std::runtime_error &) {
			caught++;
		}
	}
	return caught;
}
