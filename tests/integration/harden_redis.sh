#!/usr/bin/env bash
# redis-server with io-threads 2 on 127.0.0.1 under redis-benchmark (5,000
# requests per command, 16 clients), once without and once with tdprobe
# (on_signal = TERM; regions on read/write/epoll_wait when the build has
# function hooks). Checks: no failed request (INCR counter = requests,
# LLEN = requests, total_error_replies 0), the same replies to a fixed
# redis-cli script, the server stopped by SIGTERM exits as without us, and
# one report listing every thread the server had.
source "$(dirname "$0")/lib.bash"
source "$HERE/servers.bash"
for p in redis-server redis-benchmark redis-cli; do
  command -v $p >/dev/null || skip "$p not installed (scripts/deps test installs redis-server, redis-tools)"
done
N=5000
LIB=$(realpath "$LIB")
# Function hooks are in this build unless startup says they are not.
hooks=yes
TDPROBE_REGIONS=write TDPROBE_SUMMARY=no TDPROBE_OUTPUT=/dev/null/x LD_PRELOAD="$LIB" /bin/true 2>&1 \
  | grep -q 'not built into this library' && hooks=no

cat >"$WORK/script.txt" <<'R'
SET greeting hello
GET greeting
APPEND greeting ", world"
INCRBY visits 41
INCR visits
RPUSH list a b c d
LRANGE list 0 -1
HSET h f1 v1 f2 v2
HGETALL h
DEL greeting list h visits
DBSIZE
R

# run_redis LABEL ENV...: one server lifetime; figures go to $WORK/LABEL.*
run_redis() {
  local label=$1; shift
  local port; port=$(free_port)
  mkdir -p "$WORK/$label"
  env "$@" redis-server --port "$port" --bind 127.0.0.1 --io-threads 2 --io-threads-do-reads yes \
    --save '' --appendonly no --dir "$WORK/$label" --logfile "$WORK/$label/redis.log" \
    >"$WORK/$label.out" 2>"$WORK/$label.err" &
  local pid=$!
  SERVER_PIDS+=("$pid")
  if ! wait_port "$port" 10; then fail "$label: redis did not start"; cat "$WORK/$label.err"; kill -KILL $pid; return 1; fi
  redis-cli -h 127.0.0.1 -p "$port" <"$WORK/script.txt" >"$WORK/$label.replies"
  timeout 60 redis-benchmark -h 127.0.0.1 -p "$port" -n $N -c 16 -t set,incr,lpush -q \
    >"$WORK/$label.bench" 2>&1 || { fail "$label: redis-benchmark failed"; tail -3 "$WORK/$label.bench"; }
  local incr llen errs threads
  incr=$(redis-cli -h 127.0.0.1 -p "$port" GET counter:__rand_int__)
  llen=$(redis-cli -h 127.0.0.1 -p "$port" LLEN mylist)
  errs=$(redis-cli -h 127.0.0.1 -p "$port" INFO stats | tr -d '\r' | sed -n 's/^total_error_replies://p')
  io=$(redis-cli -h 127.0.0.1 -p "$port" INFO stats | tr -d '\r' | sed -n 's/^io_threaded_reads_processed://p')
  tids "$pid" >"$WORK/$label.tids"
  stop_pid "$pid" TERM 15 "$WORK/$label.end"
  failed=$(( (N - incr) + (N - llen) + errs ))
  echo "  $label: $((3 * N)) requests (SET/INCR/LPUSH x $N), INCR counter $incr, LLEN $llen, error replies $errs, io-threaded reads $io: failed $failed; threads $(wc -w <"$WORK/$label.tids"); stopped by SIGTERM: $(cat "$WORK/$label.end")"
  sed 's/^/    /' "$WORK/$label.bench" | tr '\r' '\n' | grep -a 'requests per second' | sed 's/^ *//; s/^/    /'
  [ "$failed" = 0 ] || fail "$label: $failed failed requests"
}

run_redis plain
profile=(TDPROBE_ON_SIGNAL=TERM,QUIT TDPROBE_SUMMARY=no TDPROBE_OUTPUT="$WORK/report-%p.json" LD_PRELOAD="$LIB")
[ $hooks = yes ] && profile+=(TDPROBE_REGIONS=read,write,epoll_wait)
run_redis profiled "${profile[@]}"

cmp -s "$WORK/plain.replies" "$WORK/profiled.replies" && ok "same replies to the redis-cli script ($(wc -l <"$WORK/plain.replies") lines)" \
  || { fail "replies differ"; diff "$WORK/plain.replies" "$WORK/profiled.replies"; }
[ "$(cat "$WORK/plain.end")" = "$(cat "$WORK/profiled.end")" ] && ok "SIGTERM: ends '$(cat "$WORK/plain.end")' with and without tdprobe" \
  || fail "SIGTERM: '$(cat "$WORK/plain.end")' without, '$(cat "$WORK/profiled.end")' with"
grep -v '^tdprobe:' "$WORK/profiled.err" | grep -q . && { fail "unexpected stderr under tdprobe"; cat "$WORK/profiled.err"; }

reports=("$WORK"/report-*.json)
if [ ${#reports[@]} = 1 ] && [ -f "${reports[0]}" ]; then
  f=${reports[0]}
  python3 - "$f" "$(cat "$WORK/profiled.tids")" "$hooks" <<'PY' && ok "$(cat "$WORK/check")" || fail "report: $(cat "$WORK/check")"
import json, sys
r = json.load(open(sys.argv[1]))
seen = {int(t) for t in sys.argv[2].split()}
th = {t["tid"]: t for t in r["threads"]}
missing = seen - set(th)
names = sorted(t["name"] for t in r["threads"])
out = open(sys.argv[1].rsplit("/", 1)[0] + "/check", "w")
msg = f"1 report, ended_by {r['process']['ended_by']}, {len(th)} threads ({', '.join(names)}); all {len(seen)} threads seen in /proc during the run are in it"
ok = not missing and r["process"]["ended_by"] == "exit"
busy = [t for t in r["threads"] if t["metrics"].get("cpu_ns", 0) > 0]
msg += f"; {len(busy)} with cpu_ns > 0"
if sys.argv[3] == "yes":
    calls = {}
    for g in r.get("regions", []):
        calls[g["function"]] = calls.get(g["function"], 0) + g["calls"]
    per_thread = sorted({t["name"] for t in r["threads"] for g in t.get("regions", [])})
    msg += "; hooked calls: " + ", ".join(f"{k} {v}" for k, v in sorted(calls.items()))
    msg += f" (in threads {', '.join(per_thread)})"
    ok = ok and calls.get("read", 0) > 0 and calls.get("write", 0) > 0
if missing:
    msg += f"; MISSING {sorted(missing)}"
print(msg, file=out)
sys.exit(0 if ok else 1)
PY
else
  fail "${#reports[@]} reports: ${reports[*]}"
fi
[ $hooks = no ] && echo "  note: this build has no function hooks: regions on read/write/epoll_wait not exercised"
finish
