# Shared helpers for integration tests (sourced). $1 of each test is the
# build directory; tests run from the repository root.
set -uo pipefail
BUILD=${1:?usage: $0 BUILD_DIR}
LIB=$BUILD/libtdprobe.so
TARGETS=$BUILD/targets
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/tdprobe-it.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
FAILS=0

fail() { echo "FAIL: $*"; FAILS=$((FAILS + 1)); }
ok() { echo "  ok: $*"; }
skip() { echo "SKIP: $*"; exit 77; }
finish() { [ "$FAILS" -eq 0 ] && exit 0; echo "$FAILS check(s) failed"; exit 1; }

# report.py: JSON report checks (python3 from Debian).
report() { python3 "$HERE/report.py" "$@"; }

# same_run NAME CMD...: runs CMD without and with the preload (reports into
# $WORK/NAME-%p.json) and checks stdout and exit status are identical.
# Extra environment for the profiled run comes from $PROFILE_ENV.
same_run() {
  local name=$1; shift
  local rc0 rc1
  "$@" >"$WORK/$name.out0" 2>"$WORK/$name.err0"; rc0=$?
  # PROFILE_ENV is split into words but never globbed (TDPROBE_REGIONS=*).
  set -f
  env ${PROFILE_ENV:-} TDPROBE_OUTPUT="$WORK/$name-%p.json" LD_PRELOAD="$LIB" \
    "$@" >"$WORK/$name.out1" 2>"$WORK/$name.err1"; rc1=$?
  set +f
  if [ "$rc0" != "$rc1" ]; then fail "$name: exit status $rc0 without tdprobe, $rc1 with"; return 1; fi
  if ! cmp -s "$WORK/$name.out0" "$WORK/$name.out1"; then
    fail "$name: stdout differs under tdprobe"; diff "$WORK/$name.out0" "$WORK/$name.out1" | head; return 1
  fi
  grep -v '^tdprobe:' "$WORK/$name.err1" >"$WORK/$name.err1f"
  if ! cmp -s "$WORK/$name.err1f" "$WORK/$name.err0"; then
    fail "$name: stderr differs beyond tdprobe: lines"; diff "$WORK/$name.err0" "$WORK/$name.err1" | head; return 1
  fi
  ok "$name: same stdout ($(wc -c <"$WORK/$name.out0") bytes), stderr and exit status ($rc0)"
  return 0
}
