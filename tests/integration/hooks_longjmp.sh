#!/usr/bin/env bash
# longjmp, _longjmp and siglongjmp out of nested hooked frames (hk_jump
# recursing 5 deep through the GOT, hk_sigjump 3 deep), alternating with
# normal calls: same output, every entry counted exactly, and the discarded
# frames closed (a later normal call would otherwise trip over them).
source "$(dirname "$0")/lib.bash"
source "$HERE/hooks_lib.bash"
PROG=$TARGETS/hooks_longjmp
[ -x "$PROG" ] || { echo "missing $PROG"; exit 1; }
ROUNDS=100
PROFILE_ENV="TDPROBE_REGIONS=hk_* TDPROBE_SUMMARY=no" same_run longjmp timeout 20 "$PROG" $ROUNDS
R=$(report_of longjmp)
[ -n "$R" ] || { fail "no report"; finish; }
echo "  output: $(cat "$WORK/longjmp.out1")"
expect_calls "$R" hooks_longjmp hk_jump $((5 * ROUNDS))
expect_calls "$R" hooks_longjmp hk_sigjump $((3 * ROUNDS))
expect_calls "$R" hooks_longjmp hk_work $((2 * ROUNDS))
finish
