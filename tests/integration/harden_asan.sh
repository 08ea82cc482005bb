#!/usr/bin/env bash
# One pass with libtdprobe.so itself built with AddressSanitizer
# (build-asanlib/, cmake -DTD_ASAN_LIB=ON; scripts/test builds it). The
# preload must name ASan's runtime first: LD_PRELOAD="libasan.so.8
# libtdprobe.so"; leak checking is off (the hosts' own leaks are not ours).
# Programs: 500 threads + fork + exec, on_signal, daemons closing fds, dup2,
# vfork/posix_spawn, clone, _exit from a thread, ulimit -n 64 with 200 threads,
# xz -T2. Not possible under ASan: anything that calls dlopen (see below). Each must
# give the same stdout and status as without us, write its reports, and
# ASan must report nothing.
source "$(dirname "$0")/lib.bash"
ASANLIB=$(realpath "$BUILD/../build-asanlib/libtdprobe.so" 2>/dev/null)
[ -f "$ASANLIB" ] || skip "no ASan build of the library ($BUILD/../build-asanlib: cmake -DTD_ASAN_LIB=ON)"
RT=$(realpath "$(gcc -print-file-name=libasan.so)" 2>/dev/null)
[ -f "$RT" ] || skip "libasan not found (gcc -print-file-name=libasan.so)"
T=$TARGETS
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=0:exitcode=99
n=0

# arun NAME ENV... -- CMD...: plain run vs ASan-library run.
arun() {
  local name=$1; shift
  local envs=()
  while [ "$1" != -- ]; do envs+=("$1"); shift; done; shift
  "$@" >"$WORK/$name.out0" 2>/dev/null; local rc0=$?
  mkdir -p "$WORK/$name"
  env "${envs[@]}" TDPROBE_SUMMARY=no TDPROBE_OUTPUT="$WORK/$name/%p.json" LD_PRELOAD="$RT $ASANLIB" \
    "$@" >"$WORK/$name.out1" 2>"$WORK/$name.err1"; local rc1=$?
  local reports; reports=$(ls "$WORK/$name" | wc -l)
  if grep -q 'ERROR: AddressSanitizer\|runtime error:' "$WORK/$name.err1"; then
    fail "$name: ASan: $(grep -m1 -A12 'ERROR: AddressSanitizer\|runtime error' "$WORK/$name.err1")"
  elif [ "$rc0" != "$rc1" ] || ! cmp -s "$WORK/$name.out0" "$WORK/$name.out1"; then
    fail "$name: status $rc0/$rc1 or stdout differs"; head -5 "$WORK/$name.err1"
  elif [ "$reports" = 0 ]; then
    fail "$name: no report"
  else
    ok "$name: same stdout and status ($rc1), $reports report(s), ASan silent"; n=$((n + 1))
  fi
}

arun threads -- "$T/t_threads" 100
arun signal TDPROBE_ON_SIGNAL=TERM -- "$T/t_signal" default 15
arun handler TDPROBE_ON_SIGNAL=TERM -- "$T/t_signal" handler
PERF=(TDPROBE_BACKEND=perf TDPROBE_EVENTS=task-clock)
arun daemon "${PERF[@]}" -- "$T/t_odd" daemon close
arun closefrom "${PERF[@]}" -- "$T/t_odd" daemon closefrom
arun dup2 "${PERF[@]}" -- "$T/t_odd" dup2
arun spawn -- "$T/t_odd" spawn
arun clone -- "$T/t_odd" clone
# Not here: t_odd stray calls dlopen, and ASan's dlopen interceptor, whose
# real dlopen was looked up through the hooks' dlsym interposer during
# ASan's start-up, calls itself until the stack overflows (ASan build only;
# harden_odd.sh runs it on the normal build).
arun exit-thread -- "$T/t_odd" exit-thread
before=$FAILS
( ulimit -n 64; arun limits "${PERF[@]}" -- "$T/t_limits" fds 40 200 10; [ $FAILS = $before ] ) || FAILS=$((FAILS + 1))
# Not here either: function hooks. Installing them dlopens libstdc++ with
# RTLD_NOLOAD, which loops in ASan's dlopen interceptor (same gap as above).
head -c 3000000 /dev/urandom | base64 >"$WORK/in.txt"
arun xz -- xz -T2 --block-size=1MiB -c "$WORK/in.txt"
echo "  $n programs clean under the ASan build of the library"
finish
