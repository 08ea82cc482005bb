#!/usr/bin/env python3
"""Checks an emulate_regions report (see emulate_regions.sh).

emulate_regions.py REPORT HOT_REGION COLD_REGION
"""
import json
import sys

L1 = ["retiring", "bad_speculation", "frontend_bound", "backend_bound"]
HW2 = ["heavy_operations", "branch_mispredicts", "fetch_latency", "memory_bound"]
DER = ["light_operations", "machine_clears", "fetch_bandwidth", "core_bound"]


def truth(l1, l2=None):
    l2 = l2 or [x / 2 for x in l1]
    t = dict(zip(L1 + HW2, [x / 100 for x in l1 + l2]))
    for a, b, d in zip(L1, HW2, DER):
        t[d] = t[a] - t[b]
    return t


def main():
    path, hot, cold = sys.argv[1:4]
    regions = {hot: truth([10, 5, 15, 70], [5, 2.5, 7.5, 55]),
               cold: truth([70, 15, 10, 5], [20, 7.5, 5, 2.5])}
    threads = {"left": truth([40, 10, 20, 30]), "right": truth([25, 25, 25, 25])}
    r = json.load(open(path))
    bad = 0
    seen = 0
    for t in r["threads"]:
        if t["name"] not in threads:
            continue
        seen += 1
        regs = {}
        for g in t.get("regions", []):  # merge call sites of one function
            regs.setdefault(g["function"], []).append(g)
        ms = []
        for name, want in regions.items():
            gs = regs.get(name)
            if not gs or len(gs) != 1:
                print(f"FAIL: {t['name']}: region {name}: {len(gs or [])} call-site entries")
                bad += 1
                continue
            g = gs[0]
            m = g["metrics"]
            ms.append(m)
            worst = max(abs(m[k] - want[k]) * 100 / (m["error_pp"] * (2 if k in DER else 1))
                        for k in want)
            ok = worst <= 1 and g["calls"] == 200 and m["invalid_deltas"] == 0
            bad += not ok
            print(f"  {t['name']:>5} {name:>16}: ret {m['retiring']*100:5.2f} "
                  f"bad {m['bad_speculation']*100:5.2f} fe {m['frontend_bound']*100:5.2f} "
                  f"be {m['backend_bound']*100:5.2f} mem {m['memory_bound']*100:5.2f} "
                  f"bound {m['error_pp']:.2f} pp, worst {worst:.2f} of bound, "
                  f"calls {g['calls']} {'ok' if ok else 'WRONG'}")
        tm = t["metrics"]
        rem = tm["slots"] - sum(m["slots"] for m in ms)
        lim = tm["error_slots"] + sum(m["error_slots"] for m in ms)
        worst = 0
        for k in L1:
            expect = sum(m["slot_counts"][k] for m in ms) + rem * threads[t["name"]][k]
            worst = max(worst, abs(tm["slot_counts"][k] - expect) / lim)
        ok = rem >= 0 and worst <= 1
        bad += not ok
        print(f"  {t['name']:>5} total: slots {tm['slots']} = regions {tm['slots'] - rem} "
              f"+ remainder {rem}; nodes = regions + remainder x thread fractions within "
              f"{worst:.2f} of the summed bounds ({lim} slots) {'ok' if ok else 'WRONG'}")
    if seen != 2:
        print(f"FAIL: {seen} worker threads in the report, expected 2")
        bad += 1
    sys.exit(1 if bad else 0)


main()
