#!/usr/bin/env bash
# Observer effect on the vector unit: a program whose upper ymm/zmm state is
# clean must find it clean after a hooked call returns (x86_64 with XINUSE),
# or its own SSE code would run slower because tdprobe is there.
source "$(dirname "$0")/lib.bash"
[ -x "$TARGETS/t_vecstate" ] || skip "x86_64 only"
[ "$("$TARGETS/t_vecstate")" = "no xinuse" ] && skip "this CPU has no XGETBV 1 (XINUSE)"
PROFILE_ENV="TDPROBE_REGIONS=vecstate_add TDPROBE_SUMMARY=no TDPROBE_BACKEND=software"
same_run vec "$TARGETS/t_vecstate" || finish
grep -q '^clean' "$WORK/vec.out1" && ok "upper vector state clean after 1000 hooked calls" || fail "$(cat "$WORK/vec.out1")"
python3 - "$(ls "$WORK"/vec-*.json)" <<'PY' && ok "all calls hooked" || fail "calls"
import json, sys
r = json.load(open(sys.argv[1]))
calls = sum(x["calls"] for x in r["regions"])
print(f"  trampolines {r['hooks']['trampolines']}, {calls} calls")
assert calls == 1000
PY
finish
