#!/usr/bin/env bash
# Signal storm: SIGALRM every 50 us; the handler calls the hooked hk_work,
# which the main flow calls in a loop, so signals land inside our hook code.
# No deadlock or crash, same output; the main flow's calls are counted
# exactly; the handler's calls are counted unless they interrupted tdprobe
# code (then they run uncounted, by design), so 0 < counted <= handled.
source "$(dirname "$0")/lib.bash"
source "$HERE/hooks_lib.bash"
PROG=$TARGETS/hooks_signal
[ -x "$PROG" ] || { echo "missing $PROG"; exit 1; }
N=200000
"$PROG" $N "$WORK/handled0" >"$WORK/sig.out0"; rc0=$?
timeout 25 env TDPROBE_REGIONS=hk_work TDPROBE_SUMMARY=no TDPROBE_OUTPUT="$WORK/sig-%p.json" \
  LD_PRELOAD="$LIB" "$PROG" $N "$WORK/handled1" >"$WORK/sig.out1" 2>"$WORK/sig.err1"; rc1=$?
[ "$rc0" = "$rc1" ] && ok "exit status $rc1" || fail "exit status $rc0 without, $rc1 with tdprobe"
cmp -s "$WORK/sig.out0" "$WORK/sig.out1" && ok "same output: $(cat "$WORK/sig.out1")" || fail "output differs"
R=$(report_of sig)
[ -n "$R" ] || { fail "no report"; finish; }
handled=$(cat "$WORK/handled1")
main_calls=$(calls sites "$R" hk_work | awk '$2 == "main" { s += $3 } END { print s + 0 }')
hand_calls=$(calls sites "$R" hk_work | awk '$2 == "on_alarm" { s += $3 } END { print s + 0 }')
echo "  signals handled $handled, handler calls counted $hand_calls, main-flow calls $main_calls"
[ "$main_calls" = "$N" ] && ok "main flow: $N calls" || fail "main flow: $main_calls calls, expected $N"
if [ "$hand_calls" -gt 0 ] && [ "$hand_calls" -le "$handled" ]; then
  ok "handler: $hand_calls counted of $handled"
else
  fail "handler: $hand_calls counted of $handled"
fi
finish
