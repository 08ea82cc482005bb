// libtdcx: C++ functions that throw through hooked frames. Exported,
// interposable, so calls between them go through the PLT and are hooked
// (pattern "_ZN5cxlib*").
#include <exception>
#include <stdexcept>
#include <vector>

namespace cxlib_step {
int thrower_step(int depth);
}

namespace cxlib {
struct Err {
	int code;
};

int leaf(int x)
{
	return x + 1;
}

int thrower(int depth)
{
	if (depth == 0)
		throw Err{ 42 };
	// Recursion through another exported function (a PLT call each level):
	// GCC binds direct self-calls locally.
	return cxlib_step::thrower_step(depth - 1) + 1;
}

int catch_inside(int depth)
{
	try {
		return thrower(depth);
	} catch (const Err &e) {
		return e.code + 1000;
	}
}

int rethrow_it(int depth)
{
	try {
		thrower(depth);
	} catch (...) {
		throw;
	}
	return 0;
}

int ptr_rethrow(int depth)
{
	std::exception_ptr p;
	try {
		thrower(depth);
	} catch (...) {
		p = std::current_exception();
	}
	std::rethrow_exception(p);
}

int std_throw(int n)
{
	std::vector<int> v(3);
	return v.at((size_t)n);
}

struct Guard {
	int *count;
	~Guard() { *count += leaf(0); }
};

int with_cleanup(int depth, int *count)
{
	Guard g{ count };
	return thrower(depth);
}
} // namespace cxlib

namespace cxlib_step {
int thrower_step(int depth)
{
	return cxlib::thrower(depth);
}
} // namespace cxlib_step
