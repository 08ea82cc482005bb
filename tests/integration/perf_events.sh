#!/usr/bin/env bash
# TDPROBE_BACKEND=perf with software events on a real program: per-thread
# task-clock and page-faults, page-faults consistent with the pages each
# thread touched; unschedulable and misspelt events named; check/list
# exit statuses from the library (TDPROBE_MODE).
source "$(dirname "$0")/lib.bash"
[ -x "$TARGETS/perf_pages" ] || skip "perf_pages not built"
PA=3000 PB=500 PM=1000
PROFILE_ENV="TDPROBE_BACKEND=perf TDPROBE_EVENTS=task-clock,page-faults"
same_run pages "$TARGETS/perf_pages" $PA $PB $PM || finish
f=$(ls "$WORK"/pages-*.json)
out=$(python3 - "$f" $PA $PB $PM <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
pa, pb, pm = map(int, sys.argv[2:5])
be = r["backend"]
bad = []
if be["name"] != "perf":
    bad.append(f"backend {be['name']}: {be['reason']}")
want = {"pages_a": pa, "pages_b": pb}
seen = {}
for t in r["threads"]:
    m = t["metrics"]
    ev = m.get("events", {})
    tc, pf = ev.get("task-clock", 0), ev.get("page-faults", 0)
    name = t["name"] if t["parent_tid"] else "main"
    seen[name] = (tc, pf, m["cpu_ns"])
    print(f"  {name:8} tid {t['tid']}: task-clock {tc} ns, page-faults {pf}, cpu_ns {m['cpu_ns']}")
    if tc <= 0 or pf <= 0:
        bad.append(f"{name}: task-clock {tc}, page-faults {pf}")
    if m["cpu_ns"] != tc:
        bad.append(f"{name}: cpu_ns {m['cpu_ns']} != task-clock {tc}")
    n = want.get(name, pm if name == "main" else None)
    # One minor fault per fresh page, plus a little for stacks and libc.
    if n is not None and not (n <= pf <= n + 400):
        bad.append(f"{name}: {pf} page faults for {n} pages touched")
for n in ("pages_a", "pages_b", "main"):
    if n not in seen:
        bad.append(f"thread {n} missing")
if "pages_a" in seen and seen["pages_a"][0] < 40_000_000:
    bad.append(f"pages_a burnt 40 ms but task-clock says {seen['pages_a'][0]} ns")
print("BAD: " + "; ".join(bad) if bad else "ok")
PY
)
echo "$out"
case "$out" in *BAD:*) fail "per-thread perf figures (above)";;
  *) ok "3 threads: page-faults within [N, N+400] of the pages each touched, cpu_ns = task-clock, task-clock > 0";; esac

# Events the kernel cannot count here are named, the rest still counted.
if [ -z "$(ls /sys/bus/event_source/devices | grep -E '^(cpu|cpu_core|armv[89]_.*|arm_.*)$')" ]; then
  env TDPROBE_BACKEND=perf TDPROBE_EVENTS=page-faults,cycles TDPROBE_OUTPUT="$WORK/hw-%p.json" \
    LD_PRELOAD="$LIB" "$TARGETS/perf_pages" 10 10 10 >/dev/null 2>"$WORK/hw.err"; rc=$?
  line=$(grep -m1 'could not schedule' "$WORK/hw.err")
  [ $rc = 0 ] && [ -n "$line" ] && echo "$line" | grep -q "cycles (no such event" \
    && ok "unschedulable event named: $line" || fail "cycles not named (exit $rc): $(cat "$WORK/hw.err")"
fi

# A misspelt event: one tdprobe: line naming it, the program unharmed.
env TDPROBE_BACKEND=perf TDPROBE_EVENTS=page-faults,cylces TDPROBE_OUTPUT="$WORK/bad-%p.json" \
  LD_PRELOAD="$LIB" "$TARGETS/perf_pages" 10 10 10 >"$WORK/bad.out" 2>"$WORK/bad.err"; rc=$?
[ $rc = 0 ] && grep -q "perf_pages: a=10" "$WORK/bad.out" && ok "misspelt event: program ran (exit 0)" || fail "misspelt event: exit $rc"
grep -q "unknown event 'cylces'" "$WORK/bad.err" && ok "named: $(grep -m1 cylces "$WORK/bad.err")" || fail "cylces not named: $(cat "$WORK/bad.err")"

# check / list through the library, before main.
TDPROBE_MODE=check LD_PRELOAD="$LIB" /bin/true >"$WORK/check.out" 2>&1; rc=$?
echo "  $(grep '^result:' "$WORK/check.out")"
if grep -q hypervisor /proc/cpuinfo && [ ! -d /sys/bus/event_source/devices/cpu ]; then
  [ $rc = 1 ] && grep -q "no hardware PMU (hypervisor without vPMU)" "$WORK/check.out" \
    && ok "check (auto) exits 1 naming no hardware PMU (hypervisor without vPMU)" || fail "check: exit $rc: $(cat "$WORK/check.out")"
fi
TDPROBE_BACKEND=software TDPROBE_MODE=check LD_PRELOAD="$LIB" /bin/true >"$WORK/check2.out" 2>&1; rc=$?
[ $rc = 0 ] && ok "check with backend software exits 0" || fail "check software: exit $rc: $(tail -1 "$WORK/check2.out")"
TDPROBE_MODE=list LD_PRELOAD="$LIB" /bin/true >"$WORK/list.out" 2>&1; rc=$?
[ $rc = 0 ] && grep -q '^backends' "$WORK/list.out" && grep -q 'task-clock' "$WORK/list.out" \
  && ok "list exits 0 with backends and event names ($(wc -l <"$WORK/list.out") lines)" || fail "list: exit $rc"
finish
