#!/usr/bin/env bash
# Time series in a real run: tdprobe run --interval 5 gives every busy
# thread a series whose last point equals the thread's totals exactly
# (cumulative counts), and the HTML report draws one chart per thread.
. "$(dirname "$0")/lib.bash"
TD=scripts/tdprobe
export TDPROBE_LIB=$LIB TDPROBE_REPORT=$BUILD/tdprobe-report TDPROBE_SUMMARY=no
DEMO=$BUILD/tdprobe-demo
[ -x "$DEMO" ] || skip "no $DEMO"

for backend in software emulate; do
  rm -f "$WORK"/s-*.json
  $TD run --backend $backend --interval 5 -o "$WORK/s-%p.json" "$DEMO" 200 >/dev/null 2>"$WORK/err"; rc=$?
  [ "$rc" = 0 ] || { fail "$backend: demo exit $rc"; cat "$WORK/err"; continue; }
  rep=$(ls "$WORK"/s-*.json)
  if python3 - "$rep" >"$WORK/py" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
bad = 0
busy = 0
for t in d["threads"]:
    s = t.get("series")
    m = t["metrics"]
    if s is None:
        print(f"thread {t['tid']} {t['name']}: no series"); bad += 1; continue
    cols, pts = s["columns"], s["points"]
    if m["cpu_ns"] < 12_000_000:
        print(f"{t['name']}: {len(pts)} points ({m['cpu_ns']} ns of CPU: too little to expect timer points)")
        continue
    busy += 1
    if len(pts) < 2:
        print(f"{t['name']}: {len(pts)} points for {m['cpu_ns']} ns of CPU"); bad += 1; continue
    last = dict(zip(cols, pts[-1]))
    if last["cpu_ns"] != m["cpu_ns"]:
        print(f"{t['name']}: last cpu_ns {last['cpu_ns']} != total {m['cpu_ns']}"); bad += 1
    for k in ("retiring", "bad_speculation", "frontend_bound", "backend_bound"):
        if k in last and last[k] != m["slot_counts"][k]:
            print(f"{t['name']}: last {k} {last[k]} != total {m['slot_counts'][k]}"); bad += 1
    # time, cpu and slots never go down; a node count may dip by a rounding
    # step of the 8-bit metric fractions within one counter epoch
    for a, b in zip(pts, pts[1:]):
        pa, pb = dict(zip(cols, a)), dict(zip(cols, b))
        for c in cols:
            slack = 2 * pb.get("slots", 0) // 255 + 2 if c not in ("t_ns", "cpu_ns", "slots") else 0
            if pb[c] + slack < pa[c]:
                print(f"{t['name']}: {c} went down from {pa[c]} to {pb[c]}"); bad += 1
    print(f"{t['name']}: {len(pts)} points, columns {','.join(cols)}, last = totals")
if busy < 1:
    print("no thread used 12 ms of CPU")
sys.exit(1 if bad or busy < 1 else 0)
PY
  then
    ok "$backend: series end at each thread's exact totals"; sed 's/^/    /' "$WORK/py"
  else
    fail "$backend: series check"; cat "$WORK/py"
  fi
  $TD report --html "$WORK/s.html" "$rep" 2>/dev/null
  n=$(grep -o '<svg ' "$WORK/s.html" | wc -l)
  [ "$n" -ge 2 ] && ok "$backend: HTML draws $n time-series charts" || fail "$backend: HTML has $n charts"
done
finish
