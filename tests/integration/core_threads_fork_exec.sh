#!/usr/bin/env bash
# 500 threads ending every way (return, pthread_exit, detached, cancelled,
# still running at exit), then fork, then exec in the child: no crash, no
# hang, every thread accounted, one report per process image.
source "$(dirname "$0")/lib.bash"
PROFILE_ENV="TDPROBE_SUMMARY=no"
same_run threads "$TARGETS/t_threads" 100 || finish
n=$(ls "$WORK"/threads-*.json | wc -l)
[ "$n" = 3 ] && ok "3 reports (parent, child before exec, child after exec)" || fail "$n reports, expected 3: $(ls "$WORK")"

# The parent's report is the one with the most threads.
parent=$(for f in "$WORK"/threads-*.json; do echo "$(report count "$f") $f"; done | sort -n | tail -1 | cut -d' ' -f2)
states=$(report states "$parent" | tr '\n' ';')
expect="exited/cancel 100;exited/exit 1;exited/pthread_exit 100;exited/return 200;running at exit/None 100;"
[ "$states" = "$expect" ] && ok "parent: 501 threads: $states" || fail "parent states: $states (expected $expect)"
out=$(report threads "$parent" 501) && ok "parent: $out" || fail "$out"

ppid=$(report field "$parent" process.pid)
for f in "$WORK"/threads-*.json; do
  [ "$f" = "$parent" ] && continue
  pid=$(report field "$f" process.pid)
  [ "$pid" != "$ppid" ] || fail "$f: child report has the parent's pid"
  cnt=$(report count "$f")
  if grep -q -- '--exec-child' "$f"; then
    [ "$cnt" = 4 ] && ok "exec'd image: 4 threads, its own report $(basename "$f")" || fail "exec'd image: $cnt threads"
  else
    [ "$cnt" = 5 ] && ok "forked child before exec: 5 threads (no copy of the parent's 501)" || fail "forked child: $cnt threads"
    how=$(report field "$f" process.ended_by)
    [ "$how" = exec ] && ok "child's first report written before exec" || fail "child report ended_by=$how"
  fi
done
finish
