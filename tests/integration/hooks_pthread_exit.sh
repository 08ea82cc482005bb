#!/usr/bin/env bash
# pthread_exit two hooked frames deep (hk_exit_outer tail-calls
# hk_exit_inner, which calls pthread_exit) on 4 threads, and pthread_cancel
# of 2 threads blocked in read() inside the hooked hk_block, with cleanup
# handlers outside it: same output (exit codes, PTHREAD_CANCELED, cleanup
# handlers run), every region closed and counted once, and the tail call's
# call site is the original caller (exiter), not our exit trampoline.
source "$(dirname "$0")/lib.bash"
source "$HERE/hooks_lib.bash"
PROG=$TARGETS/hooks_pthread_exit
[ -x "$PROG" ] || { echo "missing $PROG"; exit 1; }
PROFILE_ENV="TDPROBE_REGIONS=hk_* TDPROBE_SUMMARY=no" same_run pexit "$PROG"
R=$(report_of pexit)
[ -n "$R" ] || { fail "no report"; finish; }
echo "  output: $(tr '\n' ' ' <"$WORK/pexit.out1")"
expect_calls "$R" '*' hk_exit_outer 4
expect_calls "$R" '*' hk_exit_inner 4
expect_calls "$R" '*' hk_block 2
expect_calls "$R" '*' hk_work 9
sites=$(calls sites "$R" hk_exit_inner | awk '{ print $2 }' | sort -u | tr '\n' ' ')
[ "$sites" = "exiter " ] && ok "hk_exit_inner called from: $sites" || fail "hk_exit_inner sites: '$sites'"
finish
