/* libtdvm: see td_vm_lib.c. */
#ifndef TD_VM_LIB_H
#define TD_VM_LIB_H
#include <stdint.h>

struct vm_hfa4 { double a, b, c, d; }; /* homogeneous FP aggregate: returned in v0-v3 */
struct vm_big { long v[6]; };          /* > 16 bytes: returned through x8 */

void vm_hooked_work(uint64_t n);
long vm_abi_ints(long a, long b, long c, long d, long e, long f, long g, long h, long i, long j);
struct vm_hfa4 vm_abi_hfa(double a, double b, double c, double d, double e, double f, double g,
			  double h, float i);
struct vm_big vm_abi_big(long k, struct vm_big in);
double vm_abi_varargs(int n, ...);
long double vm_abi_ld(long double a, long double b);
long vm_abi_nest(long (*fn)(long), long x); /* fn calls back into the library: nested hooks */
long vm_abi_recurse(long n); /* recursion (binds locally on aarch64: one hooked call) */
#endif
