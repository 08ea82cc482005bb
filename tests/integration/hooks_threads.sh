#!/usr/bin/env bash
# 8 threads hkw0..hkw7; thread i calls the hooked hk_work 1000*(i+1) times
# plus once per hk_rec(10) (i+1 times, 10 hk_rec entries each). The report's
# threads[].regions[].calls must match exactly, per thread, and the
# process-wide regions[] must be the sum.
source "$(dirname "$0")/lib.bash"
source "$HERE/hooks_lib.bash"
PROG=$TARGETS/hooks_threads
[ -x "$PROG" ] || { echo "missing $PROG"; exit 1; }
PROFILE_ENV="TDPROBE_REGIONS=hk_work,hk_rec TDPROBE_SUMMARY=no" same_run thr timeout 20 "$PROG"
R=$(report_of thr)
[ -n "$R" ] || { fail "no report"; finish; }
tw=0; tr=0
for i in 0 1 2 3 4 5 6 7; do
  expect_calls "$R" hkw$i hk_work $((1000 * (i + 1) + i + 1))
  expect_calls "$R" hkw$i hk_rec $((10 * (i + 1)))
  tw=$((tw + 1000 * (i + 1) + i + 1)); tr=$((tr + 10 * (i + 1)))
done
expect_calls "$R" '*' hk_work $tw
expect_calls "$R" '*' hk_rec $tr
finish
