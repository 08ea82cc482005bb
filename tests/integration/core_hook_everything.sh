#!/usr/bin/env bash
# The harshest region config: TDPROBE_REGIONS='*' hooks every function every
# loaded object imports (thousands in openssl). Debian's programs must still
# give byte-identical output and exit status, and report their hooked calls.
source "$(dirname "$0")/lib.bash"
head -c 1000000 /dev/urandom | base64 >"$WORK/in.txt"
PROFILE_ENV="TDPROBE_REGIONS=* TDPROBE_SUMMARY=no"
check() {
  local name=$1; shift
  same_run "$name" "$@" || return
  python3 - "$(ls "$WORK/$name"-*.json | head -1)" "$name" <<'PY' && ok "$name: hooked calls counted" || fail "$name: report"
import json, sys
r = json.load(open(sys.argv[1]))
h = r["hooks"]
calls = sum(x["calls"] for x in r["regions"])
assert h["functions"] > 20 and calls > 100, (h, calls)
print(f"  {sys.argv[2]}: {h['functions']} functions hooked in {h['objects']} objects, {calls} calls in {len(r['regions'])} (function, call site) entries")
PY
}
check xz xz -T2 -c "$WORK/in.txt"
check bzip2 bzip2 -c "$WORK/in.txt"
check sqlite3 sqlite3 :memory: "create table t(a); insert into t values (1),(2); select sum(a) from t;"
check python3 /usr/bin/python3 -c 'import json, threading; t = threading.Thread(target=print, args=(json.dumps({"a": [1, 2]}),)); t.start(); t.join()'
check openssl openssl sha256 "$WORK/in.txt"
finish
