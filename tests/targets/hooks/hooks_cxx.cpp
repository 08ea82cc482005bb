// hooks_cxx: exceptions thrown through hooked frames of libtdcx, caught in
// the direct caller, in an outer frame (through an unhooked frame of ours
// and a destructor that calls a hooked function while unwinding), inside
// the library, after rethrow and std::rethrow_exception, and a libstdc++-
// internal throw (vector::at). Per round: thrower 14 entries, leaf 2, the
// others 1 each.
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace cxlib {
struct Err {
	int code;
};
int leaf(int x);
int thrower(int depth);
int catch_inside(int depth);
int rethrow_it(int depth);
int ptr_rethrow(int depth);
int std_throw(int n);
int with_cleanup(int depth, int *count);
} // namespace cxlib

__attribute__((noinline)) static int outer(int d, int *count)
{
	return cxlib::with_cleanup(d, count) + 1;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 50;
	long sum = 0;
	int cleanups = 0;
	for (int i = 0; i < rounds; i++) {
		try {
			sum += cxlib::thrower(3);
		} catch (cxlib::Err &e) {
			sum += e.code;
		}
		try {
			sum += outer(2, &cleanups);
		} catch (const cxlib::Err &e) {
			sum += e.code * 2;
		}
		sum += cxlib::catch_inside(2);
		try {
			cxlib::rethrow_it(1);
		} catch (cxlib::Err &e) {
			sum += e.code * 3;
		}
		try {
			cxlib::ptr_rethrow(1);
		} catch (cxlib::Err &e) {
			sum += e.code * 4;
		}
		try {
			sum += cxlib::std_throw(5);
		} catch (std::out_of_range &) {
			sum += 5;
		}
		sum += cxlib::leaf(i);
	}
	std::printf("cxx rounds %d sum %ld cleanups %d\n", rounds, sum, cleanups);
	return 0;
}
