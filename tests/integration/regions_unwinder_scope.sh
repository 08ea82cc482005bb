#!/usr/bin/env bash
# libunwind (needed for [regions] callsite_depth > 1) is loaded privately:
# a C program that dlopens a C++ library which throws runs under the
# preload with callsite_depth = 4; libunwind must be mapped (else this test
# proves nothing), yet LD_DEBUG=bindings must show _Unwind_RaiseException
# bound to libgcc_s and never to libunwind, unw_backtrace must not be
# global, and `backtrace` must stay libc's. Output and exit code unchanged.
set -u
BUILD=${1:-build}
LIB=$BUILD/libtdprobe.so
HOST=$BUILD/targets/regions_unwind_host
THROW=$BUILD/targets/libregions_throw.so
[ -x "$HOST" ] && [ -f "$THROW" ] && [ -f "$LIB" ] || { echo "missing $HOST, $THROW or $LIB"; exit 1; }
[ -e /usr/lib/x86_64-linux-gnu/libunwind.so.8 ] || [ -e /usr/lib/aarch64-linux-gnu/libunwind.so.8 ] ||
	{ echo "skip: libunwind.so.8 not installed"; exit 77; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
THROW=$(realpath "$THROW")

plain=$(timeout 20 "$HOST" "$THROW"); rc_plain=$?
out=$(timeout 20 env TDPROBE_BACKEND=software TDPROBE_DEPTH=4 TDPROBE_OUTPUT="$TMP/r.json" \
	TDPROBE_SUMMARY=no LD_DEBUG=bindings LD_DEBUG_OUTPUT="$TMP/ld" LD_PRELOAD="$LIB" \
	"$HOST" "$THROW" 2>"$TMP/err"); rc=$?
echo "without preload (rc=$rc_plain):"; echo "$plain" | sed 's/^/  /'
echo "with preload, callsite_depth=4 (rc=$rc):"; echo "$out" | sed 's/^/  /'
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
[ "$rc" = 0 ] && [ "$rc_plain" = 0 ] || fail "exit codes $rc_plain / $rc"
[ "$(echo "$plain" | grep caught)" = "$(echo "$out" | grep caught)" ] || fail "caught count differs"
echo "$out" | grep -q "libunwind mapped: yes" ||
	fail "libunwind was not loaded with callsite_depth=4: the scope check would be vacuous"
echo "$out" | grep -q "unw_backtrace global: no" || fail "unw_backtrace reached the global scope"
echo "$out" | grep -q "backtrace from: .*libc.so" || fail "backtrace is not libc's"

bindings=$(cat "$TMP"/ld.* 2>/dev/null | grep "normal symbol \`_Unwind_RaiseException'")
echo "_Unwind_RaiseException bindings:"; echo "$bindings" | sed 's/^ *[0-9]*: */  /'
[ -n "$bindings" ] || fail "no binding of _Unwind_RaiseException seen (LD_DEBUG output missing?)"
if echo "$bindings" | grep -q "to [^ ]*libunwind"; then fail "_Unwind_RaiseException bound to libunwind"; fi
echo "$bindings" | grep -q "to [^ ]*libgcc_s" || fail "_Unwind_RaiseException not bound to libgcc_s"
any_unwind=$(cat "$TMP"/ld.* | grep -c "to [^ ]*libunwind[^ ]* .*normal symbol \`_Unwind" || true)
echo "bindings of any _Unwind_* to libunwind: $any_unwind"
[ "$any_unwind" = 0 ] || fail "$any_unwind _Unwind_* bindings went to libunwind"
[ "$fails" = 0 ]
