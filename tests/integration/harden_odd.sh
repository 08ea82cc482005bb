#!/usr/bin/env bash
# Odd programs, with the perf backend (task-clock: one fd per thread) so
# fds are at stake: daemons closing every fd from 3 up (close loop,
# closefrom, close_range), dup2 onto every fd 3..40, _exit from a thread,
# vfork/posix_spawn children, clone() without pthreads. Same stdout and
# exit status as without us; our counters survive (the main thread's
# task-clock read has no invalid delta); no report from a vfork or
# fork-like clone child that did not exec; a thread made behind our back
# (libc's pthread_create called directly, as jemalloc does) is in the report.
source "$(dirname "$0")/lib.bash"
T=$TARGETS/t_odd
PROFILE_ENV="TDPROBE_BACKEND=perf TDPROBE_EVENTS=task-clock TDPROBE_SUMMARY=no"

# main_ok FILE: the main thread was counted by perf all along.
main_ok() {
  python3 - "$1" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
if r["backend"]["name"] != "perf":
    print("backend", r["backend"]["name"]); sys.exit(2)
m = r["threads"][0]
met = m["metrics"]
ok = "fallback" not in m and met.get("invalid_deltas", 1) == 0 and met["events"]["task-clock"] > 0
print(f"main thread: task-clock {met['events']['task-clock']} ns, invalid deltas {met.get('invalid_deltas')}, {len(r['threads'])} threads")
sys.exit(0 if ok else 1)
PY
}

for how in close closefrom range; do
  name=daemon-$how
  if same_run "$name" "$T" daemon "$how"; then
    out=$(main_ok "$WORK/$name-"*.json); rc=$?
    [ $rc = 2 ] && skip "perf backend cannot run here: $out"
    [ $rc = 0 ] && ok "$name: '$(head -1 "$WORK/$name.out1")'; our fds survived: $out" || fail "$name: $out"
  fi
done

if same_run dup2 "$T" dup2; then
  out=$(main_ok "$WORK"/dup2-*.json) && ok "dup2: '$(cat "$WORK/dup2.out1")'; ours moved aside: $out" || fail "dup2: $out"
fi

if same_run exit-thread "$T" exit-thread; then
  f=$(ls "$WORK"/exit-thread-*.json)
  [ "$(report field "$f" process.ended_by)" = _exit ] && [ "$(report count "$f")" = 3 ] \
    && ok "_exit(3) from a thread: status kept, report written on _exit with 3 threads" || fail "exit-thread report"
fi

if same_run spawn "$T" spawn; then
  n=$(ls "$WORK"/spawn-*.json | wc -l)
  cmds=$(for f in "$WORK"/spawn-*.json; do report field "$f" process.command; done | sort | tr '\n' ' ')
  # parent, true (vfork+exec), echo (posix_spawn); none from the vfork child that called _exit.
  [ "$n" = 3 ] && ok "vfork/posix_spawn: $n reports: $cmds" || fail "spawn: $n reports: $cmds"
fi

if same_run clone "$T" clone; then
  n=$(ls "$WORK"/clone-*.json | wc -l)
  [ "$n" = 1 ] && ok "clone(): '$(tr '\n' ';' <"$WORK/clone.out1")' one report (none from the fork-like clone child)" || fail "clone: $n reports"
fi
# dlclose of a library with hooked call sites, 300 times, while 4 threads
# make hooked calls: exact counts, no crash (needs function hooks).
if TDPROBE_REGIONS=getppid TDPROBE_OUTPUT=/dev/null/x LD_PRELOAD="$LIB" /bin/true 2>&1 | grep -q 'not built into this library'; then
  echo "  note: no function hooks in this build: dlclose case not run"
else
  DLC=$(realpath "$TARGETS/libtddlc.so")
  PROFILE_ENV="TDPROBE_REGIONS=dlc_work,dlc_leaf,getppid TDPROBE_SUMMARY=no"
  if same_run dlclose "$TARGETS/t_dlclose" "$DLC" 300; then
    got=$(python3 "$HERE/hooks_calls.py" "$WORK"/dlclose-*.json | awk '$1 == "*" { printf "%s %s; ", $2, $3 }')
    [ "$got" = "dlc_leaf 3000; dlc_work 300; getppid 80300; " ] \
      && ok "dlclose x300 under 4 calling threads: '$(cat "$WORK/dlclose.out1")'; hooked calls exact: $got" \
      || fail "dlclose: hooked calls $got (expected dlc_leaf 3000, dlc_work 300, getppid 80300)"
  fi
fi

# Asking to hook functions tdprobe itself interposes must not bypass the
# interposers (lazily bound programs: the hooks' versioned lookup skipped
# our unversioned definitions): threads stay registered, our fds stay ours.
if ! TDPROBE_REGIONS=getppid TDPROBE_OUTPUT=/dev/null/x LD_PRELOAD="$LIB" /bin/true 2>&1 | grep -q 'not built into this library'; then
  PROFILE_ENV="TDPROBE_REGIONS=pthread_create,close,dup2 TDPROBE_BACKEND=perf TDPROBE_EVENTS=task-clock TDPROBE_SUMMARY=no"
  if same_run hookself "$T" daemon close; then
    out=$(main_ok "$WORK"/hookself-*.json) && [ "$(report count "$WORK"/hookself-*.json)" = 3 ] \
      && ok "regions = pthread_create,close,dup2: interposers kept ($out)" || fail "hooking our interposers: $out"
    grep -q "not hooked: .*interposed by tdprobe itself" "$WORK/hookself.err1" && ok "and the user is told: '$(grep -m1 'not hooked' "$WORK/hookself.err1")'"
  fi
fi

PROFILE_ENV="TDPROBE_SUMMARY=no TDPROBE_ON_SIGNAL=TERM"
if same_run forkstorm timeout 25 "$T" forkstorm; then
  n=$(ls "$WORK"/forkstorm-*.json | wc -l)
  ok "fork while threads are being created: '$(cat "$WORK/forkstorm.out1")', $n reports, no child hung"
fi

PROFILE_ENV="TDPROBE_SUMMARY=no"
if same_run stray "$T" stray; then
  out=$(python3 - "$WORK"/stray-*.json <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
s = [t for t in r["threads"] if t["name"] == "stray"]
if not s or s[0]["metrics"]["cpu_ns"] < 1000000 or "found at exit" not in s[0].get("fallback", ""):
    print(s); sys.exit(1)
print(f"thread made by libc's pthread_create directly: found at exit, cpu_ns {s[0]['metrics']['cpu_ns']}, state '{s[0]['state']}'")
PY
) && ok "$out" || fail "stray thread: $out"
fi
finish
