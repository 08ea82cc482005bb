#!/usr/bin/env bash
# on_signal (opt-in): a configured signal with the default action writes the
# report, then ends the process exactly as it would have (same wait status,
# same core dump); a program's own handlers, oldact, signal(), SA_RESETHAND,
# masks and SIG_IGN behave as without us.
source "$(dirname "$0")/lib.bash"
LIB=$(realpath "$LIB"); T=$(realpath "$TARGETS/t_signal")
# The runner prints how the program ended, after the program's own output.
ws() { python3 "$HERE/waitstatus.py" "$@"; }
cd "$WORK" || exit 1

# run NAME ARGS...: same stdout and wait status with and without tdprobe.
run() {
  local name=$1; shift
  local s0 s1
  ws --core "$T" "$@" >"$name.out0" 2>"$name.err0"
  s0=$(tail -1 "$name.out0"); sed -i '$d' "$name.out0"
  mkdir -p "r-$name"
  # env execs the program with the preload; the python runner is not profiled.
  ws --core env TDPROBE_ON_SIGNAL=TERM,INT,QUIT TDPROBE_SUMMARY=no TDPROBE_OUTPUT="$WORK/r-$name/%p.json" \
    LD_PRELOAD="$LIB" "$T" "$@" >"$name.out1" 2>"$name.err1"
  s1=$(tail -1 "$name.out1"); sed -i '$d' "$name.out1"
  if [ "$s0" != "$s1" ]; then fail "$name: ends '$s0' without tdprobe, '$s1' with"; return 1; fi
  if ! cmp -s "$name.out0" "$name.out1"; then fail "$name: stdout differs"; diff "$name.out0" "$name.out1"; return 1; fi
  ok "$name: same stdout ($(wc -l <"$name.out0") lines) and end ($s0)"
  return 0
}

for sig in 15:TERM 2:INT 3:QUIT; do
  n=${sig%%:*}; name=${sig#*:}
  rm -f core core.*
  if run "default-$name" default "$n"; then
    f=$(ls r-default-$name/*.json 2>/dev/null)
    if [ -z "$f" ]; then fail "default-$name: no report"; continue; fi
    how=$(report field "$f" process.ended_by)
    cnt=$(report count "$f")
    [ "$how" = "signal SIG$name" ] && [ "$cnt" = 3 ] && ok "default-$name: report ended_by '$how', $cnt threads ($(report states "$f" | tr '\n' ' '))" \
      || fail "default-$name: ended_by '$how', $cnt threads"
  fi
done
[ "$(python3 "$HERE/waitstatus.py" --core sh -c 'kill -QUIT $$')" = "signal 3 core" ] \
  && ok "core dumps are enabled here: SIGQUIT's 'core' bit was compared above" \
  || echo "  note: no core dump on this machine (core_pattern/limits); compared the signal only"
rm -f core core.*

run handler handler && grep -q '^query: our handler' handler.out1 && ok "handler: sigaction oldact/query report the program's handler, never ours"
f=$(ls r-handler/*.json); [ "$(report field "$f" process.ended_by)" = exit ] && ok "handler: program handled SIGTERM and exited 7; report written at exit" || fail "handler report: $(report field "$f" process.ended_by)"
run reraise reraise && [ "$(report field r-reraise/*.json process.ended_by)" = "signal SIGTERM" ] && ok "reraise: handler reset SIG_DFL and raised again: report on the signal"
run ignore ignore && ok "ignore: SIG_IGN set by the program is kept, the signal is discarded"
run resethand resethand
run mask mask && cat mask.out1 | sed 's/^/    /'
run query query

# A signal ignored when the program starts (nohup, background jobs) stays ignored.
s0=$(sh -c "trap '' TERM; exec $T query"); s1=$(TDPROBE_ON_SIGNAL=TERM TDPROBE_SUMMARY=no TDPROBE_OUTPUT="$WORK/ign-%p.json" LD_PRELOAD="$LIB" sh -c "trap '' TERM; exec $T query" 2>/dev/null)
[ "$s0" = "$s1" ] && [[ "$s0" == "TERM ignored"* ]] && ok "inherited SIG_IGN: still ignored under tdprobe ($s1)" || fail "inherited ignore: '$s0' vs '$s1'"

# Not configured: nothing changes, no report on a signal.
mkdir -p off
( TDPROBE_SUMMARY=no TDPROBE_OUTPUT="$WORK/off/%p.json" LD_PRELOAD="$LIB" "$T" default 15 >/dev/null 2>&1 ) 2>/dev/null
ls off/*.json >/dev/null 2>&1 && fail "a report was written on a signal without on_signal" || ok "without on_signal: no handler of ours, no report on SIGTERM"

# Watchdog: the report writer blocks (its stderr summary goes to a full pipe
# nobody reads); after 3 s the watchdog's timer delivers the same signal with
# the default action: the process still dies of SIGTERM, the JSON is there.
mkdir -p wd
out=$(python3 - "$T" "$LIB" "$WORK/wd" <<'PY'
import os, subprocess, sys, time
# A FIFO, so the child's write end and ours are separate open files: ours is
# non-blocking to fill it, the child's blocks.
fifo = sys.argv[3] + "/fifo"
os.mkfifo(fifo)
r = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
child_w = os.open(fifo, os.O_WRONLY)
fill_w = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
env = dict(os.environ, TDPROBE_ON_SIGNAL="TERM", TDPROBE_OUTPUT=sys.argv[3] + "/%p.json", LD_PRELOAD=sys.argv[2])
t0 = time.monotonic()
p = subprocess.Popen([sys.argv[1], "default", "15"], stdout=subprocess.DEVNULL, stderr=child_w, env=env)
while True:  # tdprobe's startup line: the program is running
    try:
        if os.read(r, 4096):
            break
    except BlockingIOError:
        time.sleep(0.001)
for chunk in (4096, 1):
    try:
        while True:
            os.write(fill_w, b"x" * chunk)
    except BlockingIOError:
        pass
try:
    rc = p.wait(timeout=20)
except subprocess.TimeoutExpired:
    p.kill(); print("hung"); sys.exit(1)
print(f"{rc} {time.monotonic() - t0:.1f}")
PY
)
read -r wrc wsecs <<<"$out"
if [ "$wrc" = -15 ] && python3 -c "import sys; sys.exit(not 3.0 <= $wsecs < 10)" && ls wd/*.json >/dev/null 2>&1; then
  ok "blocked report writer: watchdog ended it with SIGTERM after ${wsecs}s (JSON written before the blocked summary)"
else
  fail "watchdog: '$out', reports: $(ls wd)"
fi

# Bad names: one line, program runs as before.
TDPROBE_ON_SIGNAL=TERM,SEGV TDPROBE_SUMMARY=no TDPROBE_OUTPUT="$WORK/bad-%p.json" LD_PRELOAD="$LIB" "$T" query >/dev/null 2>bad.err; rc=$?
[ $rc = 0 ] && grep -q "tdprobe: on_signal: 'SEGV' is not one of" bad.err && ok "on_signal = TERM,SEGV: '$(grep on_signal bad.err)'" || fail "bad name: rc=$rc $(cat bad.err)"
finish
