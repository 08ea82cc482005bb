#!/usr/bin/env bash
# tdprobe run: the program's exit status comes back (signal deaths as
# 128+N), stdin/stdout pass through, an LD_PRELOAD already set is kept,
# bad flags are usage errors, static binaries are named.
. "$(dirname "$0")/lib.bash"
TD=scripts/tdprobe
export TDPROBE_LIB=$LIB TDPROBE_OUTPUT="$WORK/r-%p.json" TDPROBE_SUMMARY=no

status() { # want cmd...
  local want=$1 rc; shift
  "$@" >"$WORK/out" 2>"$WORK/err"; rc=$?
  if [ "$rc" = "$want" ]; then ok "$(printf '%q ' "$@")-> $rc"; else fail "$* -> $rc, want $want"; cat "$WORK/err"; fi
}

status 0 $TD run "$TARGETS/td-exit-status" 0
status 3 $TD run "$TARGETS/td-exit-status" 3
status 3 $TD run -- "$TARGETS/td-exit-status" 3
status 255 $TD run "$TARGETS/td-exit-status" 255
status 143 $TD run "$TARGETS/td-exit-status" -k 15
status 137 $TD run "$TARGETS/td-exit-status" -k 9
status 134 $TD run "$TARGETS/td-exit-status" -k 6
status 1 $TD run false
ls "$WORK"/r-*.json >/dev/null 2>&1 && ok "reports written ($(ls "$WORK"/r-*.json | wc -l))" || fail "no report written"

# The wrapper itself killed by SIGTERM: the program gets it, status 143.
$TD run sleep 20 & pid=$!
sleep 0.5; kill -TERM $pid; wait $pid; rc=$?
[ "$rc" = 143 ] && ok "tdprobe run sleep, wrapper sent SIGTERM -> 143" || fail "wrapper SIGTERM -> $rc, want 143"

# stdin reaches the program, stdout comes back unchanged.
out=$(printf 'hello\nworld\n' | $TD run cat)
[ "$out" = $'hello\nworld' ] && ok "stdin/stdout pass through" || fail "cat under tdprobe run gave '$out'"

# An LD_PRELOAD already set is kept, ours first.
other=$(ls /lib/x86_64-linux-gnu/libm.so.6 /lib/aarch64-linux-gnu/libm.so.6 2>/dev/null | head -1)
if [ -n "$other" ]; then
  got=$(LD_PRELOAD=$other $TD run sh -c 'printf %s "$LD_PRELOAD"')
  [ "$got" = "$(readlink -f "$LIB") $other" ] && ok "LD_PRELOAD kept: '$got'" || fail "LD_PRELOAD became '$got'"
fi

# Flags reach the library as TDPROBE_* variables.
got=$($TD run -c /dev/null -e 'f,g*' -o 'x-%p.json' --backend software --level 1 --depth 3 --interval 50 \
  sh -c 'printf "%s|" "$TDPROBE_CONFIG" "$TDPROBE_REGIONS" "$TDPROBE_OUTPUT" "$TDPROBE_BACKEND" "$TDPROBE_LEVEL" "$TDPROBE_DEPTH" "$TDPROBE_INTERVAL"' 2>/dev/null)
[ "$got" = "/dev/null|f,g*|x-%p.json|software|1|3|50|" ] && ok "flags -> env: $got" || fail "flags -> env gave '$got'"
rm -f x-*.json

# Usage errors: status 2 and a message naming the problem.
status 2 $TD run --level 3 true
grep -q "level: '3' is not 1 or 2" "$WORK/err" && ok "bad --level named" || fail "bad --level message: $(cat "$WORK/err")"
status 2 $TD run --backend magic true
status 2 $TD run --interval -5 true
status 2 $TD run --nope true
status 2 $TD run
status 2 $TD run /no/such/program
grep -q "command not found" "$WORK/err" && ok "missing program named" || fail "missing program message: $(cat "$WORK/err")"

# A static binary: LD_PRELOAD cannot work, said once; the program still runs.
if printf 'int main(void){return 7;}\n' | cc -static -x c -o "$WORK/static" - 2>/dev/null; then
  status 7 $TD run "$WORK/static"
  grep -q "statically linked (no PT_INTERP): LD_PRELOAD cannot work" "$WORK/err" && ok "static binary named" \
    || fail "no static-binary warning: $(cat "$WORK/err")"
  status 0 $TD run true
  grep -q "statically" "$WORK/err" && fail "dynamic /bin/true called static" || ok "dynamic binary not flagged"
else
  echo "  note: no static libc here (cc -static failed); static-binary check not run"
fi
finish
