#!/usr/bin/env bash
# Recursion through the GOT: hk_rec(50) ten times (every entry hooked), then
# hk_rec(2000): entries past [regions] max_depth (default 256) run uncounted;
# with max_depth = 4096 the hook's own 512-frame shadow stack is the limit.
# The program is unaffected either way.
source "$(dirname "$0")/lib.bash"
source "$HERE/hooks_lib.bash"
PROG=$TARGETS/hooks_recursion
[ -x "$PROG" ] || { echo "missing $PROG"; exit 1; }
PROFILE_ENV="TDPROBE_REGIONS=hk_* TDPROBE_SUMMARY=no" same_run rec timeout 20 "$PROG" 10
R=$(report_of rec)
expect_calls "$R" hooks_recursion hk_rec $((10 * 50 + 256))
expect_calls "$R" hooks_recursion hk_work 10
printf '[regions]\nmax_depth = 4096\n' >"$WORK/deep.ini"
PROFILE_ENV="TDPROBE_CONFIG=$WORK/deep.ini TDPROBE_REGIONS=hk_* TDPROBE_SUMMARY=no" \
  same_run deep timeout 20 "$PROG" 10
R=$(report_of deep)
expect_calls "$R" hooks_recursion hk_rec $((10 * 50 + 512))
expect_calls "$R" hooks_recursion hk_work 10
finish
