#!/usr/bin/env bash
# A program that closes stderr and reuses fd 2 for its own file must find
# only its own data there: tdprobe writes to fd 2 only while it is still
# the file it was at startup (or to the launcher's TDPROBE_LOG_FD copy).
source "$(dirname "$0")/lib.bash"
TDPROBE_OUTPUT="$WORK/r-%p.json" LD_PRELOAD="$LIB" "$TARGETS/t_stderr_reuse" "$WORK/data" 2>"$WORK/err"; rc=$?
[ "$rc" = 0 ] && ok "program ran (exit 0)" || fail "exit $rc"
[ "$(cat "$WORK/data")" = "program data" ] && ok "the program's file holds only its data" \
  || { fail "tdprobe wrote into the program's file:"; cat "$WORK/data"; }
ls "$WORK"/r-*.json >/dev/null 2>&1 && ok "report written" || fail "no report"
exec 7>"$WORK/copy"
TDPROBE_LOG_FD=7 TDPROBE_OUTPUT="$WORK/s-%p.json" LD_PRELOAD="$LIB" "$TARGETS/t_stderr_reuse" "$WORK/data2" 2>"$WORK/err2"
exec 7>&-
grep -q '^tdprobe: report ' "$WORK/copy" && [ "$(cat "$WORK/data2")" = "program data" ] \
  && ok "with TDPROBE_LOG_FD the summary reaches the launcher's copy" || fail "TDPROBE_LOG_FD: $(cat "$WORK/copy")"
finish
