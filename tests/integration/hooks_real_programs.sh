#!/usr/bin/env bash
# Real programs with library functions hooked: bzip2 (BZ2_bzCompress, called
# by libbz2 itself through its PLT), xz -T2 (lzma_code), sqlite3
# (sqlite3_step, sqlite3_prepare_v2): output byte-identical, calls counted,
# call sites naming the real callers.
source "$(dirname "$0")/lib.bash"
source "$HERE/hooks_lib.bash"
head -c 3000000 /dev/urandom | base64 >"$WORK/input.txt"

if command -v bzip2 >/dev/null; then
  PROFILE_ENV="TDPROBE_REGIONS=BZ2_bzCompress TDPROBE_SUMMARY=no" same_run bz bzip2 -c "$WORK/input.txt"
  R=$(report_of bz)
  sites=$(calls sites "$R" BZ2_bzCompress | awk '{ print $2 }' | sort -u | tr '\n' ' ')
  n=$(calls "$R" | awk '$1 == "*" && $2 == "BZ2_bzCompress" { print $3 }')
  [ "${n:-0}" -gt 100 ] && ok "bzip2: BZ2_bzCompress $n calls, from $sites" || fail "bzip2: ${n:-0} calls"
  case "$sites" in *BZ2_bzWrite*) ok "bzip2: call site BZ2_bzWrite";; *) fail "bzip2: sites '$sites'";; esac
else
  echo "  (bzip2 not installed)"
fi

if command -v xz >/dev/null; then
  PROFILE_ENV="TDPROBE_REGIONS=lzma_code TDPROBE_SUMMARY=no" same_run xz xz -T2 --block-size=1MiB -c "$WORK/input.txt"
  R=$(report_of xz)
  n=$(calls "$R" | awk '$1 == "*" && $2 == "lzma_code" { print $3 }')
  sites=$(calls sites "$R" lzma_code | awk '{ print $2 }' | sort -u | tr '\n' ' ')
  [ "${n:-0}" -gt 0 ] && ok "xz: lzma_code $n calls, from $sites" || fail "xz: ${n:-0} calls"
fi

if command -v sqlite3 >/dev/null; then
  cat >"$WORK/s.sql" <<'SQL'
create table t(a integer primary key, b text);
with recursive c(x) as (select 1 union all select x + 1 from c where x < 20000)
insert into t select x, printf('%08d', x * 7919 % 100003) from c;
select count(*), sum(a) from t;
select b from t where a % 5000 = 0 order by a;
SQL
  PROFILE_ENV="TDPROBE_REGIONS=sqlite3_step,sqlite3_prepare_v2 TDPROBE_SUMMARY=no" \
    same_run sql sqlite3 :memory: ".read $WORK/s.sql"
  R=$(report_of sql)
  calls "$R" | awk '$1 == "*"' | sed 's/^/  /'
  for f in sqlite3_step sqlite3_prepare_v2; do
    n=$(calls "$R" | awk -v f=$f '$1 == "*" && $2 == f { print $3 }')
    [ "${n:-0}" -gt 0 ] && ok "sqlite3: $f $n calls" || fail "sqlite3: $f ${n:-0} calls"
  done
fi

# CPython compares function pointers taken through its GOT with ones in
# static type objects (tp_free == PyObject_GC_Del): address-taking GOT
# slots must stay as they are. Py* and the allocator hooked, a threaded
# script with hashlib/zlib/json: same output.
PY=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null)  # past any pyenv shim
if [ -n "$PY" ]; then
  cat >"$WORK/t.py" <<'PYEOF'
import hashlib, json, threading, zlib
def w(i):
    h = hashlib.sha256()
    for k in range(2000): h.update(zlib.compress(str(k * i).encode()))
    return h.hexdigest()
ts = [threading.Thread(target=w, args=(i,)) for i in range(4)]
[t.start() for t in ts]; [t.join() for t in ts]
print(w(3)[:16], json.dumps({"a": [1, 2]}))
PYEOF
  PROFILE_ENV="TDPROBE_REGIONS=Py*,malloc,free TDPROBE_SUMMARY=no" same_run py "$PY" "$WORK/t.py"
  R=$(report_of py)
  [ -n "$R" ] && calls "$R" | awk '$1 == "*"' | sort -k3 -n | tail -3 | sed 's/^/  python3 top: /'
fi

# A name found nowhere: one warning line, the program unharmed.
PROFILE_ENV="TDPROBE_REGIONS=td_no_such_function_xyz TDPROBE_SUMMARY=no" same_run missing bzip2 -c "$WORK/input.txt"
n=$(grep -c "^tdprobe: region 'td_no_such_function_xyz': no such symbol in any loaded object$" "$WORK/missing.err1")
[ "$n" = 1 ] && ok "missing name: one warning" || fail "missing name: $n warnings"
finish
