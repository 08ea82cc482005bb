#!/usr/bin/env bash
# tdprobe check / list: the library's answer through the launcher.
# On a machine without a hardware PMU check exits 1 naming it; with
# --backend software it exits 0.
. "$(dirname "$0")/lib.bash"
TD=scripts/tdprobe
export TDPROBE_LIB=$LIB

$TD check >"$WORK/check" 2>&1; rc=$?
if ls /sys/bus/event_source/devices/cpu* >/dev/null 2>&1; then
  echo "  note: this machine has a core PMU; the no-PMU case is not checked here"
  [ "$rc" = 0 ] || [ "$rc" = 1 ] && ok "check exits $rc with a PMU" || fail "check exit $rc"
else
  [ "$rc" = 1 ] && ok "check exits 1 without a PMU" || fail "check exit $rc, want 1"
  grep -q "no hardware PMU" "$WORK/check" && ok "check names the reason: $(grep -m1 '^result' "$WORK/check")" \
    || { fail "check does not say 'no hardware PMU'"; cat "$WORK/check"; }
fi
$TD check --backend software >"$WORK/check-sw" 2>&1; rc=$?
[ "$rc" = 0 ] && ok "check --backend software exits 0" || { fail "check --backend software exit $rc"; cat "$WORK/check-sw"; }

# A bad configuration: exit 1, the file and line named.
printf '[counters]\nbackend = turbo\n' >"$WORK/bad.ini"
$TD check -c "$WORK/bad.ini" >"$WORK/check-bad" 2>&1; rc=$?
[ "$rc" = 1 ] && ok "check -c bad.ini exits 1" || fail "check -c bad.ini exit $rc"
grep -q "bad.ini:2" "$WORK/check-bad" && ok "bad config line named: $(grep -m1 'bad.ini:2' "$WORK/check-bad")" \
  || { fail "bad config not named"; cat "$WORK/check-bad"; }
$TD check -c "$WORK/missing.ini" >/dev/null 2>&1; rc=$?
[ "$rc" = 2 ] && ok "check -c missing file: usage error 2" || fail "check -c missing exit $rc"

$TD list >"$WORK/list" 2>&1; rc=$?
[ "$rc" = 0 ] && ok "list exits 0" || fail "list exit $rc"
for w in machine backends software emulate; do
  grep -q "$w" "$WORK/list" && ok "list mentions $w" || fail "list lacks $w"
done
$TD list --backend x >/dev/null 2>&1; rc=$?
[ "$rc" = 2 ] && ok "list rejects --backend (usage 2)" || fail "list --backend exit $rc"
finish
