#!/usr/bin/env bash
# Signal storm through on_signal's chaining: SIGALRM every 50 us, with
# on_signal = ALRM, TERM so our handler sits in front of the program's; the
# program's handler calls the hooked hk_work while the main flow calls it in
# a loop, so signals land inside our hook code and inside our handler.
# (1) same output, main-flow calls exact, handler calls 0 < counted <=
# handled (a call that interrupted tdprobe code runs uncounted); (2) SIGTERM
# in the middle of the storm (default action): the report is written while
# SIGALRM keeps arriving, and the process dies of SIGTERM as without us.
source "$(dirname "$0")/lib.bash"
source "$HERE/hooks_lib.bash"
PROG=$(realpath "$TARGETS/hooks_signal"); LIB=$(realpath "$LIB")
[ -x "$PROG" ] || skip "hooks_signal not built (function hooks not in this build)"
N=200000
"$PROG" $N "$WORK/handled0" >"$WORK/s.out0"; rc0=$?
timeout 25 env TDPROBE_ON_SIGNAL=ALRM,TERM TDPROBE_REGIONS=hk_work TDPROBE_SUMMARY=no \
  TDPROBE_OUTPUT="$WORK/s-%p.json" LD_PRELOAD="$LIB" "$PROG" $N "$WORK/handled1" >"$WORK/s.out1" 2>"$WORK/s.err1"; rc1=$?
[ "$rc0" = "$rc1" ] && cmp -s "$WORK/s.out0" "$WORK/s.out1" && ok "storm: same output ($(cat "$WORK/s.out1")) and status $rc1" \
  || fail "storm: status $rc0/$rc1, output '$(cat "$WORK/s.out0")' / '$(cat "$WORK/s.out1")'"
R=$(report_of s)
if [ -n "$R" ]; then
  handled=$(cat "$WORK/handled1")
  main_calls=$(calls sites "$R" hk_work | awk '$2 == "main" { s += $3 } END { print s + 0 }')
  hand_calls=$(calls sites "$R" hk_work | awk '$2 == "on_alarm" { s += $3 } END { print s + 0 }')
  echo "  SIGALRM handled $handled times through our handler; handler calls counted $hand_calls; main-flow calls $main_calls"
  [ "$main_calls" = "$N" ] && ok "main flow: exactly $N calls" || fail "main flow: $main_calls calls, expected $N"
  [ "$hand_calls" -gt 0 ] && [ "$hand_calls" -le "$handled" ] && ok "handler: $hand_calls counted of $handled" \
    || fail "handler: $hand_calls counted of $handled"
else
  fail "storm: no report"
fi

# SIGTERM during the storm.
python3 - "$PROG" >"$WORK/t.end0" <<'PY'
import os, subprocess, sys, time
p = subprocess.Popen([sys.argv[1], "100000000"], stdout=subprocess.DEVNULL)
time.sleep(0.5); p.terminate(); p.wait(timeout=20)
print(f"returncode {p.returncode}")
PY
mkdir -p "$WORK/t"
python3 - "$PROG" "$LIB" "$WORK/t" >"$WORK/t.end1" <<'PY'
import os, subprocess, sys, time
env = dict(os.environ, TDPROBE_ON_SIGNAL="ALRM,TERM", TDPROBE_REGIONS="hk_work", TDPROBE_SUMMARY="no",
           TDPROBE_OUTPUT=sys.argv[3] + "/%p.json", LD_PRELOAD=sys.argv[2])
p = subprocess.Popen([sys.argv[1], "100000000"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
time.sleep(0.5); p.terminate()
try:
    p.wait(timeout=20)
except subprocess.TimeoutExpired:
    p.kill(); print("hung"); sys.exit()
print(f"returncode {p.returncode}")
PY
[ "$(cat "$WORK/t.end0")" = "$(cat "$WORK/t.end1")" ] && ok "SIGTERM mid-storm: $(cat "$WORK/t.end1") with and without tdprobe" \
  || fail "SIGTERM mid-storm: '$(cat "$WORK/t.end0")' without, '$(cat "$WORK/t.end1")' with"
f=$(ls "$WORK"/t/*.json 2>/dev/null | head -1)
if [ -n "$f" ]; then
  how=$(report field "$f" process.ended_by)
  c=$(calls sites "$f" hk_work | awk '{ s += $3 } END { print s + 0 }')
  [ "$how" = "signal SIGTERM" ] && [ "$c" -gt 0 ] && ok "report written during the storm: ended_by '$how', $c hk_work calls" \
    || fail "mid-storm report: ended_by '$how', $c calls"
else
  fail "no report after SIGTERM mid-storm"
fi
finish
