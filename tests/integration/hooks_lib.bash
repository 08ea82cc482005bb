# Helpers of the hooks_*.sh tests (sourced after lib.bash).
# Absolute, so that programs changing directory still find it.
LIB=$(cd "$(dirname "$LIB")" && pwd)/$(basename "$LIB")
calls() { python3 "$HERE/hooks_calls.py" "$@"; }

# expect_calls FILE THREAD FUNCTION N: exact calls of FUNCTION on THREAD
# ("*" = the process-wide regions[]).
expect_calls() {
  local got
  got=$(calls "$1" | awk -v t="$2" -v f="$3" '$1 == t && $2 == f { print $3 }')
  if [ "${got:-0}" = "$4" ]; then ok "$2 $3: $4 calls"; else fail "$2 $3: ${got:-0} calls, expected $4"; fi
}

# report_of NAME: the report a same_run NAME wrote for the program itself
# (a `timeout` wrapper in front of it is preloaded and reports too).
report_of() {
  local f
  for f in "$WORK/$1"-*.json; do
    [ -f "$f" ] || continue
    python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))["process"]["command"][0]; sys.exit(c.endswith("timeout") or c == "env")' "$f" && { echo "$f"; return; }
  done
}
