#!/usr/bin/env python3
"""Region call counts from a tdprobe report, for the hooks_*.sh tests.

hooks_calls.py FILE                  "thread-name function calls" per thread
                                     (summed over call sites), then
                                     "* function calls" from the process-wide regions[]
hooks_calls.py sites FILE FUNCTION   "thread-name symbol calls" per call site
"""
import collections
import json
import sys


def main():
    if sys.argv[1] == "sites":
        r = json.load(open(sys.argv[2]))
        for t in r["threads"]:
            for g in t.get("regions", []):
                if g["function"] == sys.argv[3]:
                    cs = g.get("callsite") or [{}]
                    print(t.get("name"), cs[0].get("symbol") or "?", g["calls"])
        return
    r = json.load(open(sys.argv[1]))
    per = collections.Counter()
    for t in r["threads"]:
        for g in t.get("regions", []):
            per[(t.get("name"), g["function"])] += g["calls"]
    for (name, fn), calls in sorted(per.items()):
        print(name, fn, calls)
    proc = collections.Counter()
    for g in r.get("regions", []):
        proc[g["function"]] += g["calls"]
    for fn, calls in sorted(proc.items()):
        print("*", fn, calls)


main()
