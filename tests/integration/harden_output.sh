#!/usr/bin/env bash
# Output safety under a real preload run: symlinks planted at the final
# report name and at the first temporary names (the pid is known in advance:
# sh execs the program, keeping its pid) are never followed — the file they
# point to is unchanged and the report lands as a regular file; the report's
# mode is 0600 whatever the umask, or the configured [output] mode; an
# unwritable directory gives one line naming the fallback, which is used.
source "$(dirname "$0")/lib.bash"
LIB=$(realpath "$LIB")
cd "$WORK" || exit 1
echo "precious" >victim
mkdir out
sh -c 'ln -s "$PWD/victim" "out/r-$$.json"; for k in 0 1 2; do ln -s "$PWD/victim" "out/r-$$.json.tmp.$$.$k"; done
       exec env TDPROBE_SUMMARY=no TDPROBE_OUTPUT="$PWD/out/r-%p.json" LD_PRELOAD="$0" /bin/true' "$LIB" 2>err; rc=$?
final=$(ls out/r-*.json)
[ "$rc" = 0 ] && [ "$(cat victim)" = precious ] && ok "symlinks at the final name and 3 temporary names: victim file unchanged" \
  || fail "victim changed or rc=$rc: $(cat victim)"
[ -f "$final" ] && [ ! -L "$final" ] && report field "$final" schema >/dev/null \
  && ok "report is a regular file at $(basename "$final") (the planted link was replaced, not followed)" || fail "final report: $(ls -l out)"
n=$(find out -name '*.tmp.*' -type l | wc -l)
[ "$n" = 3 ] && ok "the 3 planted temporary-name links were left alone (O_EXCL|O_NOFOLLOW: next name taken)" || fail "$n planted links left: $(ls -l out)"
[ -z "$(find out -name '*.tmp.*' -type f)" ] && ok "no temporary file left behind" || fail "temporary file left: $(ls out)"

# Modes.
(umask 000; TDPROBE_SUMMARY=no TDPROBE_OUTPUT="$WORK/m-%p.json" LD_PRELOAD="$LIB" /bin/true)
m=$(stat -c %a m-*.json)
[ "$m" = 600 ] && ok "mode 600 with umask 000" || fail "mode $m with umask 000"
printf '[output]\nmode = 0640\nsummary = no\n' >mode.ini
(umask 077; TDPROBE_CONFIG="$WORK/mode.ini" TDPROBE_OUTPUT="$WORK/c-%p.json" LD_PRELOAD="$LIB" /bin/true)
m=$(stat -c %a c-*.json)
[ "$m" = 640 ] && ok "[output] mode = 0640 gives 640 even with umask 077" || fail "configured mode gave $m"

# Unwritable directory (a path through a regular file: even root cannot).
mkdir -p fb
TDPROBE_SUMMARY=no TDPROBE_OUTPUT="$WORK/victim/r-%p.json" TMPDIR="$WORK/fb" LD_PRELOAD="$LIB" /bin/true 2>fb.err
lines=$(grep -c '^tdprobe:' fb.err)
grep -q "writing the report to $WORK/fb/r-" fb.err && ls fb/r-*.json >/dev/null 2>&1 && [ "$lines" -le 2 ] \
  && ok "unwritable directory: '$(grep 'instead' fb.err)'" || fail "fallback: $(cat fb.err)"
finish
