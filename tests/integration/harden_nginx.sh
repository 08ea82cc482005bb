#!/usr/bin/env bash
# nginx, master + 2 worker processes (fork), on 127.0.0.1, serving a static
# 256 kB file to 4 parallel curl loops (400 requests), without and with
# tdprobe (on_signal = TERM, QUIT), stopped by SIGQUIT (graceful)
# and by SIGTERM (fast). Checks: every response is 200 with the file's
# exact bytes (failed = 0), the master's exit status is the same, and one
# report per process (master and both workers) with all of its threads.
source "$(dirname "$0")/lib.bash"
source "$HERE/servers.bash"
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
[ -x "$NGINX" ] || skip "nginx not installed (scripts/deps test installs it)"
command -v curl >/dev/null || skip "curl not installed"
LIB=$(realpath "$LIB")
LOOPS=4 PER=100
mkdir -p "$WORK/www"
head -c 262144 /dev/urandom >"$WORK/www/blob.bin"
want=$(md5sum <"$WORK/www/blob.bin" | cut -d' ' -f1)

# run_nginx LABEL SIGNAL ENV...
run_nginx() {
  local label=$1 sig=$2; shift 2
  local port; port=$(free_port)
  local d="$WORK/$label"; mkdir -p "$d/logs" "$d/tmp"
  cat >"$d/nginx.conf" <<CONF
user root;
worker_processes 2;
daemon off;
master_process on;
pid $d/nginx.pid;
error_log $d/logs/error.log warn;
events { worker_connections 64; }
http {
  access_log off;
  client_body_temp_path $d/tmp/body;
  proxy_temp_path $d/tmp/proxy;
  fastcgi_temp_path $d/tmp/fastcgi;
  uwsgi_temp_path $d/tmp/uwsgi;
  scgi_temp_path $d/tmp/scgi;
  server {
    listen 127.0.0.1:$port;
    root $WORK/www;
  }
}
CONF
  env "$@" "$NGINX" -p "$d" -c "$d/nginx.conf" -e "$d/logs/error.log" >"$d/out" 2>"$d/err" &
  local pid=$!
  SERVER_PIDS+=("$pid")
  if ! wait_port "$port" 10; then fail "$label: nginx did not start: $(cat "$d/err" "$d/logs/error.log")"; kill -KILL $pid; return 1; fi
  local workers; workers=$(pgrep -P "$pid" | sort -n | tr '\n' ' ')
  # Each loop is one curl fetching PER URLs over keep-alive (the query
  # string makes them distinct; nginx serves the same file).
  for l in $(seq $LOOPS); do
    curl -s --max-time 20 -w '%{http_code}\n' -o "$d/resp.$l.#1" \
      "http://127.0.0.1:$port/blob.bin?[1-$PER]" >"$d/curl.$l" 2>/dev/null &
  done
  wait $(jobs -p | grep -v "^$pid\$") 2>/dev/null
  local total ok200 same bad
  total=$(cat "$d"/curl.* | grep -c '^[0-9][0-9][0-9]$')
  ok200=$(cat "$d"/curl.* | grep -c '^200$')
  same=$(md5sum "$d"/resp.* 2>/dev/null | grep -c "^$want ")
  bad=$(( 2 * LOOPS * PER - ok200 - same ))
  stop_pid "$pid" "$sig" 15 "$d/end"
  echo "  $label: $total requests, $same with the exact file, failed $bad; master $pid, workers $workers; stopped by SIG$sig: $(cat "$d/end")"
  echo "$workers" >"$d/workers"
  [ "$bad" = 0 ] || fail "$label: $bad failed requests"
}

run_nginx plain-quit QUIT
run_nginx plain-term TERM
prof=(TDPROBE_ON_SIGNAL=TERM,QUIT TDPROBE_SUMMARY=no LD_PRELOAD="$LIB")
hooks=yes
TDPROBE_REGIONS=write TDPROBE_OUTPUT=/dev/null/x LD_PRELOAD="$LIB" /bin/true 2>&1 | grep -q 'not built into this library' && hooks=no
regions=()
[ $hooks = yes ] && regions=(TDPROBE_REGIONS=epoll_wait,recv,writev,sendfile,accept4)
run_nginx quit QUIT "${prof[@]}" "${regions[@]}" TDPROBE_OUTPUT="$WORK/r-quit-%p.json"
run_nginx term TERM "${prof[@]}" TDPROBE_OUTPUT="$WORK/r-term-%p.json"

for label in quit term; do
  [ "$(cat "$WORK/$label/end")" = "$(cat "$WORK/plain-$label/end")" ] \
    && ok "$label: master ends '$(cat "$WORK/$label/end")' as without tdprobe" \
    || fail "$label: ends '$(cat "$WORK/$label/end")', without tdprobe '$(cat "$WORK/plain-$label/end")'"
  n=$(ls "$WORK"/r-$label-*.json 2>/dev/null | wc -l)
  summary=$(for f in "$WORK"/r-$label-*.json; do
      echo "$(report field "$f" process.pid)/$(report count "$f") threads/$(report field "$f" process.ended_by)"
    done | tr '\n' ' ')
  # master + 2 workers; nginx has one thread per process here.
  pids_ok=yes
  for w in $(cat "$WORK/$label/workers"); do [ -f "$WORK/r-$label-$w.json" ] || pids_ok=no; done
  [ "$n" = 3 ] && [ $pids_ok = yes ] && ok "$label: $n reports (master and both workers): $summary" \
    || fail "$label: $n reports ($summary); workers $(cat "$WORK/$label/workers")"
done
if [ $hooks = yes ]; then
  calls=$(for w in $(cat "$WORK/quit/workers"); do python3 "$HERE/hooks_calls.py" "$WORK/r-quit-$w.json"; done \
    | awk '$1 == "*" { c[$2] += $3 } END { for (k in c) printf "%s %d, ", k, c[k] }')
  grep -q 'epoll_wait [1-9]' <<<"$calls" && grep -Eq '(writev|sendfile) [1-9]' <<<"$calls" \
    && ok "hooked calls in the workers (SIGQUIT run): $calls" || fail "hooked calls in the workers: $calls"
fi
grep -hv '^tdprobe:' "$WORK"/quit/err "$WORK"/term/err | grep -q . && fail "stderr beyond tdprobe lines: $(cat "$WORK"/quit/err)"
finish
