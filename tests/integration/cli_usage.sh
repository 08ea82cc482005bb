#!/usr/bin/env bash
# Help, version and errors of every subcommand; report errors name the file.
. "$(dirname "$0")/lib.bash"
TD=scripts/tdprobe
export TDPROBE_LIB=$LIB TDPROBE_REPORT=$BUILD/tdprobe-report

for sub in run check list report; do
  $TD $sub --help >"$WORK/h" 2>&1; rc=$?
  [ "$rc" = 0 ] && grep -q "usage: tdprobe $sub" "$WORK/h" && ok "$sub --help" || fail "$sub --help (rc $rc)"
done
$TD --help | grep -q "commands:" && ok "tdprobe --help" || fail "tdprobe --help"
v=$($TD --version) && [[ $v =~ ^tdprobe\ [0-9] ]] && ok "--version: $v" || fail "--version: $v"
$TD frobnicate >/dev/null 2>&1; [ $? = 2 ] && ok "unknown command -> 2" || fail "unknown command"
$TD >/dev/null 2>&1; [ $? = 2 ] && ok "no command -> 2" || fail "no command"

R=$BUILD/tdprobe-report
"$TARGETS/td-synth-report" -t 2 -r 1 >"$WORK/good.json"
expect() { # want-status want-text args...
  local want=$1 text=$2 rc; shift 2
  $TD report "$@" >"$WORK/o" 2>"$WORK/e"; rc=$?
  if [ "$rc" != "$want" ]; then fail "report $* -> $rc, want $want"; cat "$WORK/e"; return; fi
  if [ -z "$text" ] || grep -qF -- "$text" "$WORK/e" "$WORK/o"; then ok "report $*: $rc, '$text'"; else fail "report $*: no '$text' in: $(cat "$WORK/e")"; fi
}
expect 2 "no report file given"
expect 2 "unknown option '--frob'" --frob "$WORK/good.json"
expect 2 "--by: 'day' is not one of" --by day "$WORK/good.json"
expect 2 "--sort: unknown key 'speed'" --sort speed "$WORK/good.json"
expect 2 "--top: '0' is not a positive integer" --top 0 "$WORK/good.json"
expect 2 "--top: 'x' is not a positive integer" --top x "$WORK/good.json"
expect 2 "choose one of --csv, --json, --html" --csv --json "$WORK/good.json"
expect 2 "--html: missing value" --html
expect 1 "$WORK/none.json: No such file or directory" "$WORK/none.json"
printf '{"schema": "tdprobe/1", "process": {"pid": 1},\n "threads": [1,]}\n' >"$WORK/trail.json"
expect 1 "$WORK/trail.json: line 2, column 16: trailing comma in an array" "$WORK/trail.json"
printf '{"schema": "tdprobe/1", "process": {"pid": 1}, "threads": [{"tid": "x"}]}' >"$WORK/tid.json"
expect 1 "$WORK/tid.json: threads[0].tid: expected an integer, found string" "$WORK/tid.json"
expect 1 "are the same process" "$WORK/good.json" "$WORK/good.json"
expect 0 "tdprobe report" "$WORK/good.json"
expect 0 "wrote $WORK/x.html" --html "$WORK/x.html" "$WORK/good.json"
expect 0 "" --json -o "$WORK/m.json" "$WORK/good.json"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['schema']=='tdprobe-merged/1'" "$WORK/m.json" \
  && ok "--json -o writes valid merged JSON" || fail "--json output invalid"
finish
