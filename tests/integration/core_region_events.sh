#!/usr/bin/env bash
# Extra events per region, exactly:
# - through the perf backend's real perf_event_open groups (software events
#   here): 4 threads call a hooked library function that touches a known
#   number of fresh pages; each thread's region must show exactly that many
#   page faults;
# - on the emulated PMU, read through the rdpmc path's user-page reads:
#   emulated instructions count 6 and cycles 3 per ns of the thread's CPU
#   time, so every region must show IPC 2 and 6 instructions per ns.
source "$(dirname "$0")/lib.bash"

PROFILE_ENV="TDPROBE_BACKEND=perf TDPROBE_EVENTS=page-faults TDPROBE_REGIONS=region_touch_pages TDPROBE_SUMMARY=no"
if same_run pages "$TARGETS/region_pages"; then
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
fi

PROFILE_ENV="TDPROBE_BACKEND=emulate TDPROBE_EVENTS=instructions,cycles TDPROBE_SUMMARY=no"
PROFILE_ENV="$PROFILE_ENV TDPROBE_EMULATE=events=instructions:6,cycles:3 TDPROBE_REGIONS=emulate_lib_hot,emulate_lib_cold"
if same_run emu "$TARGETS/emulate_regions" 200 functions; then
  python3 - "$(ls "$WORK"/emu-*.json)" <<'PY' && ok "emulated per-region events: IPC 2, 6 instructions per ns" || fail "emulated region events"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["backend"]["emulated"]
regs = [x for x in r["regions"] if x["function"].startswith("emulate_lib_")]
assert len(regs) >= 2, regs
for x in regs:
    m = x["metrics"]
    ins, cyc = m["events"]["instructions"], m["events"]["cycles"]
    print(f"  {x['function']}: {x['calls']} calls, instructions {ins}, cycles {cyc}, ipc {m['ipc']:.4f}, {ins / m['cpu_ns']:.4f} instructions/ns")
    assert abs(m["ipc"] - 2) < 0.002, m["ipc"]
    assert abs(ins / m["cpu_ns"] - 6) < 0.06, ins / m["cpu_ns"]
PY
fi
finish
