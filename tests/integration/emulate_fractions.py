#!/usr/bin/env python3
"""Checks an emulate-backend report against the true fractions given to
the emulated PMU.

emulate_fractions.py REPORT WIDTH SPEC
SPEC: name=ret,bad,fe,be[,heavy,br,fetchlat,mem];...  (percent; "*" = default)
Every thread whose name is in SPEC (else "*") must report each level-1
node and each hardware level-2 node within its error_pp of the truth,
derived level-2 nodes within 2 x error_pp, slots = WIDTH x cpu_ns, and no
invalid deltas. Prints one line per thread.
"""
import json
import math
import sys

L1 = ["retiring", "bad_speculation", "frontend_bound", "backend_bound"]
HW2 = ["heavy_operations", "branch_mispredicts", "fetch_latency", "memory_bound"]
DER = ["light_operations", "machine_clears", "fetch_bandwidth", "core_bound"]


def main():
    path, width, spec = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    truth = {}
    for ent in spec.split(";"):
        name, vals = ent.split("=")
        v = [float(x) / 100 for x in vals.split(",")]
        if len(v) == 4:
            v += [x / 2 for x in v]
        truth[name] = v
    r = json.load(open(path))
    be = r["backend"]
    errs = []
    if not be.get("emulated") or "emulated PMU" not in be.get("method", ""):
        errs.append(f"backend not labelled emulated: {be}")
    for t in r["threads"]:
        m = t["metrics"]
        v = truth.get(t["name"], truth.get("*"))
        if v is None:
            continue
        bound = m["error_pp"]
        got = {k: m[k] for k in L1 + HW2 + DER}
        want = dict(zip(L1 + HW2, v))
        for a, b, d in zip(L1, HW2, DER):
            want[d] = want[a] - want[b]
        worst = 0.0
        for k in L1 + HW2 + DER:
            off = abs(got[k] - want[k]) * 100
            lim = bound * (2 if k in DER else 1)
            worst = max(worst, off / lim if lim > 0 else math.inf)
            if off > lim:
                errs.append(f"{t['name']}: {k} {got[k]:.4f} vs true {want[k]:.4f}: "
                            f"{off:.3f} pp > {lim:.3f} pp")
        if m["slots"] != width * m["cpu_ns"]:
            errs.append(f"{t['name']}: slots {m['slots']} != {width} x cpu_ns {m['cpu_ns']}")
        if m["invalid_deltas"]:
            errs.append(f"{t['name']}: {m['invalid_deltas']} invalid deltas")
        print(f"  {t['name']:>14}: ret {got['retiring']*100:5.2f} bad {got['bad_speculation']*100:5.2f} "
              f"fe {got['frontend_bound']*100:5.2f} be {got['backend_bound']*100:5.2f} "
              f"mem {got['memory_bound']*100:5.2f}  bound {bound:.3f} pp, worst {worst:.2f} of bound, "
              f"slots {m['slots']}, deltas {m['deltas']}")
    for e in errs:
        print("FAIL:", e)
    sys.exit(1 if errs else 0)


main()
