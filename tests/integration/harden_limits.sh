#!/usr/bin/env bash
# Resource limits. (1) ulimit -n 64, a program holding 40 fds, 200 threads
# alive at once and 10 more opens while they run: with the perf backend
# (task-clock, one fd per thread) tdprobe keeps its fds within its budget,
# the other threads fall back to software with the reason in the report,
# and the program's own opens all succeed, as without us. (2) 10,000 threads
# over the run, 2,000 alive at once: every thread reported, memory per
# thread stated and bounded.
source "$(dirname "$0")/lib.bash"
T=$TARGETS/t_limits

PROFILE_ENV="TDPROBE_BACKEND=perf TDPROBE_EVENTS=task-clock TDPROBE_SUMMARY=no"
if (ulimit -n 64; same_run fds "$T" fds 40 200 10); then
  ok "ulimit -n 64: $(cat "$WORK/fds.out1")"
  f=$(ls "$WORK"/fds-*.json)
  be=$(report field "$f" backend.name)
  if [ "$be" != perf ]; then
    echo "  note: perf backend cannot run here ($(report field "$f" backend.reason)); fd budget not exercised"
  else
    n=$(report count "$f"); fb=$(report field "$f" backend.fallback_threads)
    counted=$((n - fb))
    [ "$n" = 201 ] && ok "report lists all $n threads" || fail "report has $n threads, expected 201"
    budget=$(report field "$f" backend.fd_budget)
    # 64/4 = 16 fds at most, and none at or above 64 - 16.
    [ "$counted" -ge 1 ] && [ "$counted" -le 16 ] && [ "$fb" -ge 185 ] \
      && ok "$counted threads counted by perf, $fb fell back to software; budget $budget" \
      || fail "counted $counted, fallback $fb (budget $budget)"
    reasons=$(report field "$f" backend.fallback_reasons)
    grep -q 'fd reserve\|fd budget' <<<"$reasons" && ok "reasons: $reasons" || fail "fallback reasons: $reasons"
    python3 - "$f" <<'PY' && ok "every fallen-back thread says why; counted threads have task-clock cpu_ns > 0" || fail "per-thread fallback fields"
import json, sys
r = json.load(open(sys.argv[1]))
bad = [t["tid"] for t in r["threads"] if "fallback" in t and not t["fallback"].startswith("fd ")]
zero = [t["tid"] for t in r["threads"] if "fallback" not in t and t["state"] == "exited" and not t["metrics"]["cpu_ns"]]
sys.exit(1 if bad or zero else 0)
PY
  fi
else
  fail "ulimit -n 64: the program's own fds differ under tdprobe"
fi

# stderr carries the memory figures, so compare stdout and status by hand.
"$T" churn 10000 2000 >"$WORK/churn.out0" 2>"$WORK/churn.err0"; rc0=$?
TDPROBE_SUMMARY=no TDPROBE_OUTPUT="$WORK/churn-%p.json" LD_PRELOAD="$LIB" "$T" churn 10000 2000 \
  >"$WORK/churn.out1" 2>"$WORK/churn.err1"; rc1=$?
if [ $rc0 = 0 ] && [ $rc1 = 0 ] && cmp -s "$WORK/churn.out0" "$WORK/churn.out1"; then
  ok "churn: same stdout and exit status: $(cat "$WORK/churn.out1")"
  f=$(ls "$WORK"/churn-*.json)
  n=$(report count "$f")
  [ "$n" = 10001 ] && ok "$n threads in the report ($(du -k "$f" | cut -f1) kB of JSON)" \
    || fail "churn: $n threads in the report"
  read -r _ _ r0 _ e0 _ h0 < <(grep '^memory' "$WORK/churn.err0")
  read -r _ _ r1 _ e1 _ h1 < <(grep '^memory' "$WORK/churn.err1")
  rec=$(report field "$f" backend.memory.per_thread_bytes)
  alive=$(( (h1 - h0) * 1024 / 2000 )); ever=$(( (e1 - e0) * 1024 / 10001 ))
  echo "  memory: thread record $rec B per thread ever created (kept for the report)"
  echo "  memory: peak RSS ${h0} kB without, ${h1} kB with tdprobe: +$alive B per thread alive at once (static TLS + records)"
  echo "  memory: RSS at the end +$(( e1 - e0 )) kB: $ever B per thread over the run (records + glibc's cached stacks)"
  [ "$rec" -gt 0 ] && [ "$rec" -le 1024 ] && ok "records: $rec B per thread (<= 1 KiB), bounded by the number of threads" \
    || fail "record bytes per thread: $rec"
  [ "$ever" -lt 4096 ] && [ "$alive" -lt 65536 ] && ok "RSS growth bounded: $ever B per thread ever, $alive B per live thread" \
    || fail "RSS growth: $ever B per thread ever, $alive B per live thread"
else
  fail "churn: rc $rc0/$rc1 or stdout differs"
fi
finish
