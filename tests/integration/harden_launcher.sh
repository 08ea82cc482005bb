#!/usr/bin/env bash
# Programs LD_PRELOAD cannot reach: a statically linked binary and a
# set-user-ID binary owned by another user (the loader's secure mode drops
# LD_PRELOAD). `tdprobe run` says so in one line instead of silently
# producing nothing; the program still runs with its own output and status,
# and no report appears. A normal binary gets no such line and a report.
source "$(dirname "$0")/lib.bash"
TDPROBE=scripts/tdprobe
[ -x "$TDPROBE" ] || skip "scripts/tdprobe (the launcher) not in this tree"
export TDPROBE_LIB=$(realpath "$LIB") TDPROBE_SUMMARY=no
cd "$WORK" || exit 1
TDPROBE=$OLDPWD/$TDPROBE

# launch NAME BINARY: runs it plain and through the launcher.
launch() {
  local name=$1 bin=$2
  "$bin" 5 >"$name.out0" 2>/dev/null; local rc0=$?
  mkdir -p "r-$name"
  "$TDPROBE" run -o "$WORK/r-$name/%p.json" -- "$bin" 5 >"$name.out1" 2>"$name.err1"; local rc1=$?
  [ "$rc0" = "$rc1" ] && cmp -s "$name.out0" "$name.out1" && ok "$name: same output and status ($rc1)" \
    || fail "$name: status $rc0/$rc1 or output differs"
}

if [ -x "$TARGETS/t_static" ]; then
  launch static "$TARGETS/t_static"
  grep -q 'statically linked (no PT_INTERP): LD_PRELOAD cannot work there' static.err1 \
    && ok "static: '$(grep -m1 statically static.err1)'" || fail "static: no warning: $(cat static.err1)"
  [ -z "$(ls r-static)" ] && ok "static: no report (and none expected)" || fail "static: a report appeared"
else
  echo "  note: no libc.a here (libc6-dev): static case not built"
fi

if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
  cp "$TARGETS/t_dynamic" "$WORK/t_suid"
  chown nobody "$WORK/t_suid" && chmod 4755 "$WORK/t_suid"
  chmod 755 "$WORK"
  launch setuid "$WORK/t_suid"
  grep -q 'set-user/group-ID: the dynamic loader ignores LD_PRELOAD' setuid.err1 \
    && ok "setuid: '$(grep -m1 set-user setuid.err1)'" || fail "setuid: no warning: $(cat setuid.err1)"
  [ -z "$(ls r-setuid)" ] && ok "setuid: the loader really ignored us: no report" || fail "setuid: a report appeared"
else
  echo "  note: not root or no user nobody: set-user-ID case not run"
fi

launch dynamic "$TARGETS/t_dynamic"
grep -q 'cannot work\|ignores LD_PRELOAD' dynamic.err1 && fail "dynamic: spurious warning" || ok "dynamic: no warning"
[ -n "$(ls r-dynamic)" ] && ok "dynamic: report written" || fail "dynamic: no report"
finish
