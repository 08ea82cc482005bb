#!/usr/bin/env bash
# tdprobe run -- xz -T2 -k FILE: xz's exit status and output unchanged, the
# summary table printed, the report lists xz's threads; tdprobe report
# renders it. A failing xz gives its own status back.
. "$(dirname "$0")/lib.bash"
TD=scripts/tdprobe
export TDPROBE_LIB=$LIB TDPROBE_REPORT=$BUILD/tdprobe-report
command -v xz >/dev/null || skip "xz not installed (Debian xz-utils)"

seq 1 150000 | sed 's/$/ tdprobe xz test line/' >"$WORK/data"
cp "$WORK/data" "$WORK/ref"
xz -T2 -k "$WORK/ref"; want=$?
$TD run -o "$WORK/xz-%p.json" -- xz -T2 -k "$WORK/data" 2>"$WORK/err"; rc=$?
[ "$rc" = "$want" ] && ok "tdprobe run -- xz -T2 -k: status $rc, as without tdprobe" || fail "status $rc, want $want"
cmp -s "$WORK/data.xz" "$WORK/ref.xz" && ok "compressed output identical ($(stat -c %s "$WORK/data.xz") bytes)" \
  || fail "xz output differs under tdprobe"
# xz closes its stderr before exiting (tuklib_exit): the summary reaches us
# through the copy of stderr the launcher hands the library (TDPROBE_LOG_FD).
if grep -q '^tdprobe: .*tid' "$WORK/err"; then
  ok "summary table printed on stderr although xz closed its fd 2"
else
  fail "no summary on stderr"; cat "$WORK/err"
fi
rep=$(ls "$WORK"/xz-*.json 2>/dev/null | head -1)
[ -n "$rep" ] || { fail "no report"; finish; }
$TD report "$rep" >"$WORK/table" || fail "tdprobe report failed"
threads=$(grep -cE '^ *[0-9]+ xz ' "$WORK/table")
[ "$threads" -ge 2 ] && ok "report table lists $threads xz threads" || { fail "report lists $threads xz threads"; cat "$WORK/table"; }
grep -q "total ($threads threads)" "$WORK/table" && ok "total row over $threads threads" || fail "no total row"
sed -n '1,3p' "$WORK/table" | sed 's/^/    /'

# xz failing (missing input): its status, not ours.
xz -T2 -k "$WORK/missing" 2>/dev/null; want=$?
$TD run -o "$WORK/xzf-%p.json" -- xz -T2 -k "$WORK/missing" 2>/dev/null; rc=$?
[ "$rc" = "$want" ] && [ "$rc" != 0 ] && ok "xz on a missing file: status $rc through tdprobe run" || fail "missing file: $rc, want $want"
finish
