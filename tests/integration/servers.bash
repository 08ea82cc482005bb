# Helpers for the server tests (sourced after lib.bash). Servers listen on
# 127.0.0.1 only, and the EXIT trap stops whatever is still running.
SERVER_PIDS=()
servers_stop_all() {
  for p in "${SERVER_PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; done
  rm -rf "$WORK"
}
trap servers_stop_all EXIT

# free_port: a TCP port on 127.0.0.1 nobody listens on now.
free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

# wait_port PORT SECONDS: until something accepts on 127.0.0.1:PORT.
wait_port() {
  local port=$1 end=$((SECONDS + $2))
  while [ $SECONDS -lt $end ]; do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && return 0
    sleep 0.1
  done
  return 1
}

# stop_pid PID SIGNAL SECONDS OUTFILE: signal it and wait for it to go (then
# KILL); writes how it ended to OUTFILE: "status N" (bash's wait: 128+sig
# for a signal) or "killed after Ns". Not in a subshell: wait needs the child.
stop_pid() {
  local pid=$1 sig=$2 end=$((SECONDS + $3))
  kill -"$sig" "$pid" 2>/dev/null
  while kill -0 "$pid" 2>/dev/null && [ $SECONDS -lt $end ]; do
    # a zombie is gone for our purpose; wait below reaps it
    [ "$(cut -d' ' -f3 "/proc/$pid/stat" 2>/dev/null)" = Z ] && break
    sleep 0.05
  done
  if [ "$(cut -d' ' -f3 "/proc/$pid/stat" 2>/dev/null)" != Z ] && kill -0 "$pid" 2>/dev/null; then
    kill -KILL "$pid"; wait "$pid" 2>/dev/null; echo "killed after $3s" >"$4"; return 1
  fi
  wait "$pid" 2>/dev/null; echo "status $?" >"$4"
}

# tids PID: the thread ids of a running process, sorted.
tids() { ls "/proc/$1/task" 2>/dev/null | sort -n | tr '\n' ' '; }
