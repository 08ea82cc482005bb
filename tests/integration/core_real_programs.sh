#!/usr/bin/env bash
# Preloads tdprobe into programs nobody here wrote (Debian's xz, sqlite3,
# python3, bzip2, openssl): output and exit status must be byte-identical to
# the runs without us, and each report must list every thread with cpu_ns > 0.
source "$(dirname "$0")/lib.bash"

head -c 4000000 /dev/urandom | base64 >"$WORK/input.txt"   # ~5.4 MB, compressible

# xz with two worker threads (1 MiB blocks so both workers get work).
if same_run xz xz -T2 --block-size=1MiB -c "$WORK/input.txt"; then
  r=$(ls "$WORK"/xz-*.json)
  out=$(report threads "$r" 3) && ok "xz: $out" || fail "xz: $out"
fi

cat >"$WORK/script.sql" <<'SQL'
create table t(a integer primary key, b text);
with recursive c(x) as (select 1 union all select x + 1 from c where x < 20000)
insert into t select x, hex(randomblob(8)) || x from c;
select count(*), sum(a) from t;
select b from t where a % 5000 = 0 order by a;
SQL
# randomblob makes the text differ between runs: print only what is stable.
sed -i 's/hex(randomblob(8)) || x/printf("%08d", x * 7919 % 100003)/' "$WORK/script.sql"
if same_run sqlite3 sqlite3 ":memory:" ".read $WORK/script.sql"; then
  out=$(report threads "$(ls "$WORK"/sqlite3-*.json)" 1) && ok "sqlite3: $out" || fail "sqlite3: $out"
fi

cat >"$WORK/threads.py" <<'PY'
import threading, hashlib
def work(i):
    h = hashlib.sha256()
    for k in range(20000):
        h.update(b"x" * 64)
    results[i] = h.hexdigest()[:8]
results = [None] * 4
ts = [threading.Thread(target=work, args=(i,), name=f"w{i}") for i in range(4)]
[t.start() for t in ts]
[t.join() for t in ts]
print(results)
PY
# Debian's interpreter itself, not a version-manager shim that execs it.
if same_run python3 /usr/bin/python3 "$WORK/threads.py"; then
  out=$(report threads "$(ls "$WORK"/python3-*.json)" 5) && ok "python3: $out" || fail "python3: $out"
fi

if same_run bzip2 bzip2 -c "$WORK/input.txt"; then
  out=$(report threads "$(ls "$WORK"/bzip2-*.json)" 1) && ok "bzip2: $out" || fail "bzip2: $out"
fi

# openssl speed prints timings that vary between runs: compare exit status and
# the shape of the output, and check the report.
openssl speed -seconds 1 sha256 >"$WORK/ossl0" 2>&1; rc0=$?
TDPROBE_OUTPUT="$WORK/openssl-%p.json" LD_PRELOAD="$LIB" openssl speed -seconds 1 sha256 >"$WORK/ossl1" 2>&1; rc1=$?
if [ "$rc0" = "$rc1" ] && [ "$(grep -c . "$WORK/ossl0")" = "$(grep -vc '^tdprobe:' "$WORK/ossl1")" ]; then
  ok "openssl speed: same exit status ($rc0) and line count"
  out=$(report threads "$(ls "$WORK"/openssl-*.json)" 1) && ok "openssl: $out" || fail "openssl: $out"
else
  fail "openssl speed: exit $rc0 vs $rc1 or output shape differs"
fi
finish
