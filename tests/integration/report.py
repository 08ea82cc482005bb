#!/usr/bin/env python3
"""Checks on tdprobe JSON reports, for the integration tests.

report.py threads FILE MIN_THREADS   every thread has cpu_ns > 0 (exited ones)
report.py field FILE PATH            prints a value (a.b.0.c)
report.py count FILE                 prints the number of threads
report.py states FILE                prints "state count" lines
"""
import json
import sys


def load(path):
    with open(path) as f:
        r = json.load(f)
    if r.get("schema") != "tdprobe/1":
        sys.exit(f"{path}: schema is {r.get('schema')!r}, not tdprobe/1")
    return r


def main():
    cmd, path = sys.argv[1], sys.argv[2]
    r = load(path)
    if cmd == "threads":
        need = int(sys.argv[3])
        th = r["threads"]
        if len(th) < need:
            sys.exit(f"{path}: {len(th)} threads, expected at least {need}")
        zero = [t["tid"] for t in th if t["metrics"]["cpu_ns"] <= 0]
        if zero:
            sys.exit(f"{path}: threads with cpu_ns 0: {zero}")
        names = sorted({t["name"] for t in th})
        print(f"{len(th)} threads, all with cpu_ns > 0 ({', '.join(names)})")
    elif cmd == "field":
        v = r
        for k in sys.argv[3].split("."):
            v = v[int(k)] if isinstance(v, list) else v[k]
        print(v if not isinstance(v, (dict, list)) else json.dumps(v))
    elif cmd == "count":
        print(len(r["threads"]))
    elif cmd == "states":
        from collections import Counter
        c = Counter((t["state"], t.get("ended_by")) for t in r["threads"])
        for (s, e), n in sorted(c.items(), key=str):
            print(f"{s}/{e} {n}")
    else:
        sys.exit(f"unknown command {cmd}")


if __name__ == "__main__":
    main()
