#!/usr/bin/env bash
# Marker API end to end: 8 threads call tdprobe_region_begin/end("work") a
# known number of times (worker i: 1000*(i+1), with "inner" nested every
# 10th call) -> exact calls per thread in the report, exclusive = inclusive
# minus the nested region exactly, the stray end counted, process-wide merge
# = sum over threads; output and exit code unchanged; the same program runs
# without the preload.
set -u
BUILD=${1:-build}
LIB=$BUILD/libtdprobe.so
PROG=$BUILD/targets/regions_markers
[ -x "$PROG" ] && [ -f "$LIB" ] || { echo "missing $PROG or $LIB"; exit 1; }
command -v python3 >/dev/null || { echo "skip: python3 not installed"; exit 77; }
TMP=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$TMP"' EXIT

plain=$(timeout 20 "$PROG"); rc_plain=$?
# TDPROBE_REGIONS names a function that exists nowhere: the process-wide
# regions[] is written when regions are configured.
out=$(timeout 20 env TDPROBE_BACKEND=software TDPROBE_OUTPUT="$TMP/r.json" TDPROBE_SUMMARY=no \
	TDPROBE_REGIONS=regions_test_absent_fn LD_PRELOAD="$LIB" "$PROG" 2>"$TMP/err"); rc=$?
echo "without preload: rc=$rc_plain '$plain'; with preload: rc=$rc '$out'"
if [ "$rc" != "$rc_plain" ] || [ "$out" != "$plain" ]; then
	echo "FAIL: program output or exit code changed"; cat "$TMP/err"; exit 1
fi
[ -s "$TMP/r.json" ] || { echo "FAIL: no report"; cat "$TMP/err"; exit 1; }

python3 - "$TMP/r.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
bad = []
workers = {t["name"]: t for t in r["threads"] if t["name"].startswith("worker")}
if len(workers) != 8:
    bad.append("expected 8 worker threads, got %d" % len(workers))
tot = {}
for i in range(8):
    t = workers.get("worker%d" % i)
    if not t:
        continue
    regs = {x["function"]: x for x in t.get("regions", [])}
    work, inner = regs.get("work"), regs.get("inner")
    if not work or not inner:
        bad.append("worker%d: regions %s" % (i, sorted(regs)))
        continue
    want = 1000 * (i + 1)
    print("worker%d: work calls %d (want %d), inner calls %d (want %d), work cpu %d ns excl %d ns, unmatched %d"
          % (i, work["calls"], want, inner["calls"], want // 10, work["metrics"]["cpu_ns"],
             work["exclusive"]["cpu_ns"], t.get("regions_unmatched_exits", -1)))
    if work["calls"] != want or inner["calls"] != want // 10:
        bad.append("worker%d: calls %d/%d" % (i, work["calls"], inner["calls"]))
    for k in ("cpu_ns", "wall_ns"):
        if work["exclusive"][k] != work["metrics"][k] - inner["metrics"][k]:
            bad.append("worker%d: work exclusive %s %d != %d - %d" % (i, k, work["exclusive"][k],
                       work["metrics"][k], inner["metrics"][k]))
        if inner["exclusive"][k] != inner["metrics"][k]:
            bad.append("worker%d: inner exclusive %s differs" % (i, k))
    if work["metrics"]["deltas"] != want:
        bad.append("worker%d: work deltas %d" % (i, work["metrics"]["deltas"]))
    if t.get("regions_unmatched_exits") != 1:
        bad.append("worker%d: unmatched exits %s" % (i, t.get("regions_unmatched_exits")))
    fr = work["callsite"][0] if work["callsite"] else {}
    if fr.get("symbol") != "worker" or not fr.get("module", "").endswith("regions_markers"):
        bad.append("worker%d: call site %s" % (i, fr))
    for f in ("work", "inner"):
        tot.setdefault(f, [0, 0])
        tot[f][0] += regs[f]["calls"]
        tot[f][1] += regs[f]["metrics"]["cpu_ns"]
proc = {x["function"]: x for x in r.get("regions", [])}
for f, (calls, cpu) in tot.items():
    p = proc.get(f)
    print("process: %s calls %s (sum %d)" % (f, p and p["calls"], calls))
    if not p or p["calls"] != calls or p["metrics"]["cpu_ns"] != cpu:
        bad.append("process-wide %s: %s vs sum calls %d cpu %d" % (f, p and (p["calls"], p["metrics"]["cpu_ns"]), calls, cpu))
if r.get("other_callsites_folded") != 0:
    bad.append("process other_callsites_folded %s" % r.get("other_callsites_folded"))
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
PY
[ $? = 0 ] || exit 1

# callsite_depth = 3: chains unwound through the private libunwind, still
# one entry per (thread, function) here, frame 0 the marker's caller.
timeout 20 env TDPROBE_BACKEND=software TDPROBE_OUTPUT="$TMP/r3.json" TDPROBE_SUMMARY=no \
	TDPROBE_DEPTH=3 LD_PRELOAD="$LIB" "$PROG" >/dev/null 2>"$TMP/err3" || { echo "FAIL: depth 3 run"; exit 1; }
python3 - "$TMP/r3.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
bad = []
for t in r["threads"]:
    if not t["name"].startswith("worker"):
        continue
    i = int(t["name"][6:])
    works = [x for x in t["regions"] if x["function"] == "work"]
    if len(works) != 1:
        bad.append("%s: %d work entries" % (t["name"], len(works))); continue
    w = works[0]
    cs = w["callsite"]
    if i == 0:
        print("depth 3 call site of work:", " <- ".join("%s:%s+%d" % (f["module"].rsplit("/", 1)[-1] if f["module"] else "?", f["symbol"], f["offset"]) for f in cs))
    if w["calls"] != 1000 * (i + 1) or len(cs) < 2 or cs[0]["symbol"] != "worker":
        bad.append("%s: calls %d, chain %s" % (t["name"], w["calls"], [f["symbol"] for f in cs]))
for b in bad:
    print("FAIL:", b)
print("depth 3: %s" % ("ok" if not bad else "failed"))
sys.exit(1 if bad else 0)
PY
