#!/usr/bin/env bash
# ABI torture: every argument/return kind (10 integer args, mixed FP and
# __m128/__m256 vectors with stack spill, 64-byte structs by value and via
# hidden sret pointer, varargs with doubles (%al), long double and complex
# long double on the x87 stack, __int128, errno, -fno-plt calls, recursion
# through the PLT) through hooked functions of libtdabi.so: output
# bit-identical with all of them hooked (function pointers taken in the
# executable, in the library and through dlsym(RTLD_DEFAULT) still compare
# equal), and each function's calls counted exactly.
source "$(dirname "$0")/lib.bash"
source "$HERE/hooks_lib.bash"
PROG=$TARGETS/hooks_abi
[ -x "$PROG" ] || { echo "missing $PROG"; exit 1; }

ROUNDS=200
PROFILE_ENV="TDPROBE_REGIONS=abi_* TDPROBE_SUMMARY=no" same_run abi timeout 20 "$PROG" $ROUNDS
R=$(report_of abi)
[ -n "$R" ] || { fail "no report"; finish; }
echo "  output: $(tr '\n' ' ' <"$WORK/abi.out1" | cut -c1-160)..."
for f in abi_mixed abi_big_byval abi_ld abi_cld abi_i128 abi_errno abi_small_ret abi_pair_ret \
  abi_float abi_m128 abi_callback; do
  expect_calls "$R" hooks_abi $f $ROUNDS
done
expect_calls "$R" hooks_abi abi_many_ints $((3 * ROUNDS)) # 2 direct, 1 -fno-plt
expect_calls "$R" hooks_abi abi_varargs $((2 * ROUNDS))
expect_calls "$R" hooks_abi abi_recurse $((15 * ROUNDS))  # 10 + 5 levels via the PLT
if grep -q avx /proc/cpuinfo; then expect_calls "$R" hooks_abi abi_m256 $ROUNDS; fi
expect_calls "$R" '*' abi_many_ints $((3 * ROUNDS))
grep -q '^identity exe==lib 1 exe==dlsym 1 lib==dlsym 1$' "$WORK/abi.out1" && ok "function pointers compare equal" \
  || fail "identity: $(grep identity "$WORK/abi.out1")"
# Without regions configured nothing is patched and the output is the same too.
PROFILE_ENV="TDPROBE_SUMMARY=no" same_run abi_plain timeout 20 "$PROG" 3
finish
