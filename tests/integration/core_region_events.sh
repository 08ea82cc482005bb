#!/usr/bin/env bash
# Extra events per region, exactly, through the perf backend's real
# perf_event_open groups (software events here): 4 threads call a hooked
# library function that touches a known number of fresh pages; each thread's
# region must show exactly that many page faults (its calls too).
source "$(dirname "$0")/lib.bash"
PROFILE_ENV="TDPROBE_BACKEND=perf TDPROBE_EVENTS=page-faults TDPROBE_REGIONS=region_touch_pages TDPROBE_SUMMARY=no"
same_run pages "$TARGETS/region_pages" || finish
python3 - "$(ls "$WORK"/pages-*.json)" <<'PY' && ok "per-region page-faults exact on 4 threads" || fail "per-region events"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["backend"]["name"] == "perf", r["backend"]
got = []
for t in r["threads"]:
    regs = [x for x in t.get("regions", []) if x["function"] == "region_touch_pages"]
    if regs:
        calls = sum(x["calls"] for x in regs)
        faults = sum(x["metrics"]["events"]["page-faults"] for x in regs)
        print(f"  tid {t['tid']} ({t['name']}): {calls} calls, {faults} page faults in the region")
        assert calls == 5, calls
        got.append(faults)
# Thread i touched 5 x 100 x (i + 1) pages: one fault each, nothing else.
assert sorted(got) == [500, 1000, 1500, 2000], got
PY
finish
