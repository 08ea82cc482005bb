#!/usr/bin/env bash
# TDPROBE_BACKEND=emulate with marked regions: "hot" and "cold" get their own
# true fractions, the unmarked remainder the thread's. Each region reports
# every TopDown node within its stated error bound, and each thread's slot
# counts equal the sum over its regions plus the remainder (remainder slots
# x the thread's fractions), within the sum of the stated bounds. The reset
# policy (outermost, 3M slots: every ~3 rounds) resets the group at "hot"
# entries. (tdprobe's own reset work at a region entry runs after the
# emulator switched to the region's fractions but before the region's start
# snapshot, so it is true-"hot" time measured as remainder: a few us per
# reset, which is why resets are not made every round here.)
source "$(dirname "$0")/lib.bash"
[ -x "$TARGETS/emulate_regions" ] || skip "emulate_regions not built"
printf '[topdown]\nreset = outermost\nreset_threshold = 3000000\n' >"$WORK/td.ini"
SPEC="thread:left=ret:40,bad:10,fe:20,be:30;thread:right=ret:25,bad:25,fe:25,be:25"
SPEC="$SPEC;region:hot=ret:10,bad:5,fe:15,be:70,mem:55;region:cold=ret:70,bad:15,fe:10,be:5,heavy:20"
SPEC="$SPEC;sim=bump:13,switch:17"
PROFILE_ENV="TDPROBE_CONFIG=$WORK/td.ini TDPROBE_BACKEND=emulate TDPROBE_SUMMARY=no TDPROBE_REGIONS=emulate_no_such_fn TDPROBE_EMULATE=$SPEC"
same_run regions "$TARGETS/emulate_regions" 200 || finish
f=$(ls "$WORK"/regions-*.json)
out=$(python3 - "$f" <<'PY'
import json, sys
L1 = ["retiring", "bad_speculation", "frontend_bound", "backend_bound"]
HW2 = ["heavy_operations", "branch_mispredicts", "fetch_latency", "memory_bound"]
DER = ["light_operations", "machine_clears", "fetch_bandwidth", "core_bound"]
def truth(l1, l2=None):
    l2 = l2 or [x / 2 for x in l1]
    t = dict(zip(L1 + HW2, [x / 100 for x in l1 + l2]))
    for a, b, d in zip(L1, HW2, DER):
        t[d] = t[a] - t[b]
    return t
regions = {"hot": truth([10, 5, 15, 70], [5, 2.5, 7.5, 55]),
           "cold": truth([70, 15, 10, 5], [20, 7.5, 5, 2.5])}
threads = {"left": truth([40, 10, 20, 30]), "right": truth([25, 25, 25, 25])}
r = json.load(open(sys.argv[1]))
bad = 0
for t in r["threads"]:
    if t["name"] not in threads:
        continue
    regs = {g["function"]: g for g in t.get("regions", [])}
    for name, want in regions.items():
        g = regs.get(name)
        if not g:
            print(f"FAIL: {t['name']}: no region {name}"); bad += 1; continue
        m = g["metrics"]
        worst = max(abs(m[k] - want[k]) * 100 / (m["error_pp"] * (2 if k in DER else 1)) for k in want)
        ok = worst <= 1 and g["calls"] == 200 and m["invalid_deltas"] == 0
        bad += not ok
        print(f"  {t['name']:>5} {name:>4}: ret {m['retiring']*100:5.2f} bad {m['bad_speculation']*100:5.2f} "
              f"fe {m['frontend_bound']*100:5.2f} be {m['backend_bound']*100:5.2f} mem {m['memory_bound']*100:5.2f}"
              f" bound {m['error_pp']:.2f} pp, worst {worst:.2f} of bound, calls {g['calls']} {'ok' if ok else 'WRONG'}")
    tm = t["metrics"]
    rs = [regs[n]["metrics"] for n in regions if n in regs]
    rem = tm["slots"] - sum(m["slots"] for m in rs)
    lim = tm["error_slots"] + sum(m["error_slots"] for m in rs)
    worst = 0
    for k in L1:
        expect = sum(m["slot_counts"][k] for m in rs) + rem * threads[t["name"]][k]
        worst = max(worst, abs(tm["slot_counts"][k] - expect) / lim)
    ok = rem >= 0 and worst <= 1
    bad += not ok
    print(f"  {t['name']:>5} total: slots {tm['slots']} = regions {tm['slots'] - rem} + remainder {rem}; "
          f"nodes = regions + remainder x thread fractions within {worst:.2f} of the summed bounds "
          f"({lim} slots) {'ok' if ok else 'WRONG'}")
sys.exit(1 if bad else 0)
PY
); rc=$?
echo "$out"
[ $rc = 0 ] && ok "regions within their bounds; thread totals = regions + remainder" || fail "regions (see above)"
finish
