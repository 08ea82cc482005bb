#!/usr/bin/env bash
# TDPROBE_BACKEND=emulate end to end: three named threads given different
# true fractions (and the main thread the default) each report every
# TopDown node within the error bound the report states; slots equal
# width x CPU time exactly; the program's output is untouched. The
# emulated PMU also injects seqlock bumps and context switches mid-read.
source "$(dirname "$0")/lib.bash"
[ -x "$TARGETS/emulate_threads" ] || skip "emulate_threads not built"
SPEC="default=ret:40,bad:10,fe:20,be:30;thread:alpha=ret:70,bad:5,fe:10,be:15,heavy:30,br:4,fetchlat:6,mem:5"
SPEC="$SPEC;thread:beta=ret:15,bad:35,fe:30,be:20;thread:gamma=ret:10,bad:5,fe:15,be:70,mem:55;sim=bump:5,switch:7"
TRUTH="*=40,10,20,30;alpha=70,5,10,15,30,4,6,5;beta=15,35,30,20;gamma=10,5,15,70,5,2.5,7.5,55"
PROFILE_ENV="TDPROBE_BACKEND=emulate TDPROBE_SUMMARY=yes TDPROBE_EMULATE=$SPEC"
same_run threads "$TARGETS/emulate_threads" 40 || finish
f=$(ls "$WORK"/threads-*.json)
grep -q "emulated PMU" "$WORK/threads.err1" && ok "stderr says emulated PMU" || fail "no 'emulated PMU' on stderr"
out=$(python3 "$HERE/emulate_fractions.py" "$f" 4 "$TRUTH"); rc=$?
echo "$out"
[ $rc = 0 ] && ok "4 threads: every node within its stated error bound, slots = 4 x cpu_ns" || fail "fractions (see above)"
n=$(report count "$f")
[ "$n" = 4 ] && ok "4 threads in the report" || fail "$n threads"

# Extra counters through the same user-space path (offset + sext(raw),
# re-armed at every emulated context switch): instructions = 6 x cpu_ns and
# cycles = 3 x cpu_ns per thread, so IPC = 2.
PROFILE_ENV="TDPROBE_BACKEND=emulate TDPROBE_SUMMARY=no TDPROBE_EVENTS=instructions,cycles"
PROFILE_ENV="$PROFILE_ENV TDPROBE_EMULATE=events=instructions:6,cycles:3;sim=switch:3"
same_run events "$TARGETS/emulate_threads" 20 || finish
f=$(ls "$WORK"/events-*.json)
out=$(python3 - "$f" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
bad = 0
for t in r["threads"]:
    m = t["metrics"]
    ev = m.get("events", {})
    ins, cyc, cpu = ev.get("instructions", 0), ev.get("cycles", 0), m["cpu_ns"]
    # Each counter is read at its own instant (the emulated clock is a
    # syscall away), so the figures agree to a few us of CPU time, not
    # exactly; the unit tests check the exact values on a scripted clock.
    ok = cyc > 0 and abs(ins / cyc - 2) < 1e-4 and abs(ins / (6 * cpu) - 1) < 1e-3
    bad += not ok
    print(f"  {t['name']:>14}: instructions {ins} cycles {cyc} ipc {m.get('ipc')} "
          f"6 x cpu_ns {6 * cpu} {'ok' if ok else 'WRONG'}")
sys.exit(1 if bad else 0)
PY
); rc=$?
echo "$out"
[ $rc = 0 ] && ok "extra events: ipc 2 and instructions = 6 x cpu time in every thread" || fail "extra events (see above)"

# A bad spec: one tdprobe: line, the program runs on unprofiled.
env TDPROBE_BACKEND=emulate TDPROBE_EMULATE="default=ret:30" TDPROBE_OUTPUT="$WORK/bad-%p.json" \
  LD_PRELOAD="$LIB" "$TARGETS/emulate_threads" 5 >"$WORK/bad.out" 2>"$WORK/bad.err"; rc=$?
[ $rc = 0 ] && grep -q "emulate_threads: 3 threads" "$WORK/bad.out" && ok "bad spec: program ran (exit 0)" || fail "bad spec: exit $rc"
grep -q "add up to 30" "$WORK/bad.err" && ok "bad spec named: $(grep -m1 'add up' "$WORK/bad.err")" || fail "bad spec not reported: $(cat "$WORK/bad.err")"
finish
