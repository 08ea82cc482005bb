#!/usr/bin/env bash
# [counters] cpu_time = no: regions get wall time only (no syscall on the hot
# path) and say so with a null cpu_ns; the thread keeps its CPU time.
source "$(dirname "$0")/lib.bash"
printf '[counters]\nbackend = software\ncpu_time = no\n[regions]\nfunctions = regions_bench_work\n' >"$WORK/c.ini"
TDPROBE_CONFIG="$WORK/c.ini" TDPROBE_SUMMARY=no TDPROBE_OUTPUT="$WORK/r.json" LD_PRELOAD="$LIB" \
  "$TARGETS/regions_bench" 200000 >"$WORK/out" || fail "program failed"
python3 - "$WORK/r.json" <<'PY' && ok "regions: cpu_ns null, wall_ns > 0; thread cpu_ns > 0" || fail "cpu_time = no report"
import json, sys
r = json.load(open(sys.argv[1]))
t = r["threads"][0]["metrics"]
regs = [x for x in r["regions"] if x["function"] == "regions_bench_work"]
assert regs, "no region"
calls = sum(x["calls"] for x in regs)
assert calls == 200001, calls
assert all(x["metrics"]["cpu_ns"] is None for x in regs), [x["metrics"]["cpu_ns"] for x in regs]
assert all(x["metrics"]["wall_ns"] > 0 for x in regs)
assert t["cpu_ns"] > 0 and t["wall_ns"] >= t["cpu_ns"] * 0.5, t
print(f"  {calls} calls, region wall {sum(x['metrics']['wall_ns'] for x in regs)} ns, thread cpu {t['cpu_ns']} ns")
PY
finish
