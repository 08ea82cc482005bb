#!/usr/bin/env bash
# C++ exceptions through hooked frames of libtdcx.so (pattern _ZN5cxlib*):
# caught in the direct caller, in an outer frame past an unhooked frame and a
# destructor that calls a hooked function while unwinding, inside the
# library, after `throw;` and std::rethrow_exception, and libstdc++'s own
# vector::at throw. Same output (no std::terminate), exact call counts.
source "$(dirname "$0")/lib.bash"
source "$HERE/hooks_lib.bash"
PROG=$TARGETS/hooks_cxx
[ -x "$PROG" ] || { echo "missing $PROG"; exit 1; }
ROUNDS=50
PROFILE_ENV="TDPROBE_REGIONS=_ZN5cxlib* TDPROBE_SUMMARY=no" same_run cxx timeout 20 "$PROG" $ROUNDS
R=$(report_of cxx)
[ -n "$R" ] || { fail "no report"; finish; }
echo "  output: $(cat "$WORK/cxx.out1")"
expect_calls "$R" hooks_cxx _ZN5cxlib7throwerEi $((14 * ROUNDS))
expect_calls "$R" hooks_cxx _ZN5cxlib4leafEi $((2 * ROUNDS))
for f in _ZN5cxlib12catch_insideEi _ZN5cxlib10rethrow_itEi _ZN5cxlib11ptr_rethrowEi \
  _ZN5cxlib9std_throwEi _ZN5cxlib12with_cleanupEiPi; do
  expect_calls "$R" hooks_cxx $f $ROUNDS
done
finish
