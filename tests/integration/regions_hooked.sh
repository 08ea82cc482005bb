#!/usr/bin/env bash
# Hooked regions end to end ([regions] functions, no source change): 8
# threads, worker i calls regions_lib_outer(3) 100*(i+1) times (3 nested
# regions_lib_leaf calls each) and the recursive regions_lib_fib(10) once
# (177 calls). Checks exact calls per thread, exclusive = inclusive minus
# the nested region exactly, recursion counted per call but its time once,
# call sites naming the real callers, the process-wide merge, and that
# output and exit status are unchanged.
set -u
BUILD=${1:-build}
LIB=$BUILD/libtdprobe.so
PROG=$BUILD/targets/regions_hooked
[ -x "$PROG" ] && [ -f "$LIB" ] || { echo "missing $PROG or $LIB"; exit 1; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

plain=$(timeout 20 "$PROG"); rc_plain=$?
out=$(timeout 20 env TDPROBE_BACKEND=software TDPROBE_OUTPUT="$TMP/r.json" TDPROBE_SUMMARY=no \
	TDPROBE_REGIONS='regions_lib_*' LD_PRELOAD="$LIB" "$PROG" 2>"$TMP/err"); rc=$?
echo "without preload: rc=$rc_plain '$plain'; with preload: rc=$rc '$out'"
if [ "$rc" != "$rc_plain" ] || [ "$out" != "$plain" ]; then
	echo "FAIL: program output or exit code changed"; cat "$TMP/err"; exit 1
fi
if grep -q "not built into this library" "$TMP/err"; then
	echo "skip: this libtdprobe.so has no function hooks yet"; exit 77
fi
[ -s "$TMP/r.json" ] || { echo "FAIL: no report"; cat "$TMP/err"; exit 1; }

python3 - "$TMP/r.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
bad = []
def regs(t):
    out = {}
    for x in t.get("regions", []):
        out.setdefault(x["function"], []).append(x)
    return out
workers = {t["name"]: t for t in r["threads"] if t["name"].startswith("worker")}
if len(workers) != 8:
    bad.append("expected 8 worker threads, got %s" % sorted(workers))
for i in range(8):
    t = workers.get("worker%d" % i)
    if not t:
        continue
    g = regs(t)
    outer, leaf, fib = g.get("regions_lib_outer", []), g.get("regions_lib_leaf", []), g.get("regions_lib_fib", [])
    calls = lambda l: sum(x["calls"] for x in l)
    want = 100 * (i + 1)
    print("worker%d: outer %d (want %d), leaf %d (want %d), fib %d in %d call-site entries (want 177)"
          % (i, calls(outer), want, calls(leaf), 3 * want, calls(fib), len(fib)))
    if calls(outer) != want or calls(leaf) != 3 * want or calls(fib) != 177:
        bad.append("worker%d: calls" % i)
        continue
    if len(outer) != 1 or len(leaf) != 1:
        bad.append("worker%d: outer/leaf call sites %d/%d" % (i, len(outer), len(leaf)))
        continue
    o, l = outer[0], leaf[0]
    for k in ("cpu_ns", "wall_ns"):
        if o["exclusive"][k] != o["metrics"][k] - l["metrics"][k]:
            bad.append("worker%d: outer exclusive %s %d != %d - %d" % (i, k, o["exclusive"][k], o["metrics"][k], l["metrics"][k]))
    if o["callsite"][0]["symbol"] != "worker" or l["callsite"][0]["symbol"] != "regions_lib_outer":
        bad.append("worker%d: call sites %s / %s" % (i, o["callsite"][0], l["callsite"][0]))
    # Recursion: the outermost fib entry (called from worker) has the time;
    # the inner ones (called from fib itself) count calls only.
    top = [x for x in fib if x["callsite"] and x["callsite"][0]["symbol"] == "worker"]
    inner = [x for x in fib if x["callsite"] and x["callsite"][0]["symbol"] == "regions_lib_fib"]
    if len(top) != 1 or top[0]["calls"] != 1 or sum(x["calls"] for x in inner) != 176:
        bad.append("worker%d: fib call sites %s" % (i, [(x["callsite"][0]["symbol"], x["calls"]) for x in fib]))
    elif any(x["metrics"]["deltas"] for x in inner) or top[0]["metrics"]["deltas"] != 1:
        bad.append("worker%d: recursive fib activations carry time" % i)
proc = {}
for x in r.get("regions", []):
    proc[x["function"]] = proc.get(x["function"], 0) + x["calls"]
want = {"regions_lib_outer": 3600, "regions_lib_leaf": 10800, "regions_lib_fib": 9 * 177}
print("process-wide calls:", proc, "want", want)
if proc != want:
    bad.append("process-wide calls")
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
PY
[ $? = 0 ] || exit 1

# callsite_depth = 2 through hooked frames: the unwinder stops at the exit
# trampoline of the enclosing hooked call; the chain continues with that
# call's real return address (from the hooks' shadow stack).
timeout 20 env TDPROBE_BACKEND=software TDPROBE_OUTPUT="$TMP/r2.json" TDPROBE_SUMMARY=no \
	TDPROBE_DEPTH=2 TDPROBE_REGIONS='regions_lib_*' LD_PRELOAD="$LIB" "$PROG" >/dev/null 2>&1 ||
	{ echo "FAIL: depth 2 run"; exit 1; }
python3 - "$TMP/r2.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
bad = []
for t in r["threads"]:
    if not t["name"].startswith("worker"):
        continue
    for x in t["regions"]:
        if x["function"] != "regions_lib_leaf":
            continue
        chain = [f["symbol"] for f in x["callsite"]]
        if t["name"] == "worker0":
            print("depth 2 call site of regions_lib_leaf:", " <- ".join(map(str, chain)))
        if chain != ["regions_lib_outer", "worker"]:
            bad.append("%s: leaf chain %s" % (t["name"], chain))
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
PY
