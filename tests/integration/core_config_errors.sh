#!/usr/bin/env bash
# Bad input never harms the program: a config error, a bad environment value
# or an unreadable file gives one `tdprobe:` line and the program runs on
# unprofiled with its own exit status; strict = yes exits 2 before main.
source "$(dirname "$0")/lib.bash"
prog() { sh -c 'echo out; exit 3'; }

printf '[counters]\nbackend = perf\n\n[regions]\ncallsite_depth = lots\n' >"$WORK/bad.ini"
TDPROBE_CONFIG="$WORK/bad.ini" TDPROBE_OUTPUT="$WORK/r-%p.json" LD_PRELOAD="$LIB" \
  sh -c 'echo out; exit 3' >"$WORK/o" 2>"$WORK/e"; rc=$?
[ "$rc" = 3 ] && [ "$(cat "$WORK/o")" = out ] && ok "bad config: program ran, exit status 3 kept" || fail "bad config: rc=$rc out=$(cat "$WORK/o")"
grep -qx "tdprobe: $WORK/bad.ini:5: callsite_depth: expected a number, got 'lots'" "$WORK/e" \
  && ok "bad config: '$(head -1 "$WORK/e")'" || fail "bad config message: $(cat "$WORK/e")"
[ "$(wc -l <"$WORK/e")" = 1 ] && ok "bad config: exactly one stderr line" || fail "bad config: $(wc -l <"$WORK/e") lines"
ls "$WORK"/r-*.json >/dev/null 2>&1 && fail "a report was written for an unprofiled run" || ok "bad config: unprofiled (no report)"

TDPROBE_CONFIG="$WORK/nope.ini" LD_PRELOAD="$LIB" sh -c 'exit 4' 2>"$WORK/e"; rc=$?
[ "$rc" = 4 ] && grep -q "tdprobe: $WORK/nope.ini: No such file or directory" "$WORK/e" \
  && ok "missing config file: named with errno, exit status kept" || fail "missing file: rc=$rc $(cat "$WORK/e")"

TDPROBE_BACKEND=gpu LD_PRELOAD="$LIB" sh -c 'exit 5' 2>"$WORK/e"; rc=$?
[ "$rc" = 5 ] && grep -q "tdprobe: TDPROBE_BACKEND: backend: 'gpu' is not one of" "$WORK/e" \
  && ok "bad TDPROBE_BACKEND: one line, exit status kept" || fail "bad env: rc=$rc $(cat "$WORK/e")"

printf '[general]\nstrict = yes\n[output]\nsummary = perhaps\n' >"$WORK/strict.ini"
TDPROBE_CONFIG="$WORK/strict.ini" LD_PRELOAD="$LIB" sh -c 'echo main ran; exit 0' >"$WORK/o" 2>"$WORK/e"; rc=$?
[ "$rc" = 2 ] && [ ! -s "$WORK/o" ] && ok "strict = yes: exit 2 before main" || fail "strict: rc=$rc out=$(cat "$WORK/o")"

TDPROBE_DISABLE=1 TDPROBE_OUTPUT="$WORK/d-%p.json" LD_PRELOAD="$LIB" /bin/true 2>"$WORK/e"
[ ! -s "$WORK/e" ] && ! ls "$WORK"/d-*.json >/dev/null 2>&1 && ok "TDPROBE_DISABLE=1: silent, no report" || fail "disable: $(cat "$WORK/e")"

TDPROBE_OUTPUT="/nonexistent/r-%p.json" TMPDIR="$WORK" LD_PRELOAD="$LIB" /bin/true 2>"$WORK/e"
grep -q "writing the report to $WORK/r-" "$WORK/e" && ls "$WORK"/r-*.json >/dev/null \
  && ok "unwritable report directory: fallback stated and used" || fail "fallback: $(cat "$WORK/e")"
# tdprobe check validates the config first: a bad one means exit 1.
TDPROBE_CONFIG="$WORK/bad.ini" TDPROBE_MODE=check TDPROBE_BACKEND=software LD_PRELOAD="$LIB" /bin/true >"$WORK/o" 2>"$WORK/e"; rc=$?
[ "$rc" = 1 ] && grep -q "configuration error" "$WORK/o" && ok "check with a bad config: exit 1" || fail "check with bad config: rc=$rc"
TDPROBE_MODE=check TDPROBE_BACKEND=software LD_PRELOAD="$LIB" /bin/true >"$WORK/o" 2>&1; rc=$?
[ "$rc" = 0 ] && ok "check --backend software: exit 0 ($(tail -1 "$WORK/o"))" || fail "check software: rc=$rc"
TDPROBE_MODE=check LD_PRELOAD="$LIB" /bin/true >"$WORK/o" 2>&1; rc=$?
if grep -q 'cpu PMU\|core PMUs  *none' "$WORK/o" && [ ! -d /sys/bus/event_source/devices/cpu ]; then
  [ "$rc" = 1 ] && grep -q "no hardware PMU (hypervisor without vPMU)" "$WORK/o" \
    && ok "check (auto) here: exit 1, names 'no hardware PMU (hypervisor without vPMU)'" || fail "check auto: rc=$rc $(tail -1 "$WORK/o")"
fi
finish
