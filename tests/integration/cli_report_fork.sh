#!/usr/bin/env bash
# tdprobe report merges the reports of a program that forks 4 workers into
# one table whose totals equal the sum of the parts (summed here from the
# JSON files by an independent reader, python3).
. "$(dirname "$0")/lib.bash"
TD=scripts/tdprobe
export TDPROBE_LIB=$LIB TDPROBE_REPORT=$BUILD/tdprobe-report TDPROBE_SUMMARY=no

for backend in emulate software; do
  rm -f "$WORK"/fork-*.json
  $TD run --backend $backend -o "$WORK/fork-%p.json" "$TARGETS/td-fork-workers" 4 2>"$WORK/run.err"; rc=$?
  [ "$rc" = 0 ] && ok "$backend: td-fork-workers 4 under tdprobe run -> 0" || { fail "$backend: run -> $rc"; cat "$WORK/run.err"; continue; }
  n=$(ls "$WORK"/fork-*.json 2>/dev/null | wc -l)
  [ "$n" = 5 ] && ok "$backend: 5 reports (parent + 4 workers)" || { fail "$backend: $n reports, want 5"; continue; }

  # The parts, summed by python3 straight from the files.
  python3 - "$WORK"/fork-*.json >"$WORK/want" <<'PY'
import json, sys
tot = {"cpu_ns": 0, "wall_ns": 0}
nodes = ["retiring", "bad_speculation", "frontend_bound", "backend_bound"]
counts = {k: 0 for k in nodes}
have_counts = True
threads = 0
for f in sys.argv[1:]:
    d = json.load(open(f))
    for t in d["threads"]:
        threads += 1
        m = t["metrics"]
        tot["cpu_ns"] += m["cpu_ns"]
        tot["wall_ns"] += m["wall_ns"]
        sc = m.get("slot_counts")
        if sc is None:
            have_counts = False
        else:
            for k in nodes:
                counts[k] += sc[k]
print(threads, tot["cpu_ns"], tot["wall_ns"], *([counts[k] for k in nodes] if have_counts else []))
PY
  read -r -a want <"$WORK/want"

  # The merge, as CSV: the total row of the thread table.
  $TD report --csv "$WORK"/fork-*.json >"$WORK/merged.csv" || { fail "$backend: report --csv failed"; continue; }
  total=$(grep '^total,threads,' "$WORK/merged.csv")
  IFS=, read -r -a got <<<"$total"
  # columns: kind,table,pid,tid,name,callsite,calls,threads,cpu_ns,wall_ns,slots,slots_retiring..backend
  [ "${got[7]}" = "${want[0]}" ] && ok "$backend: total over ${got[7]} threads" || fail "$backend: total threads ${got[7]} vs ${want[0]}"
  [ "${got[8]}" = "${want[1]}" ] && ok "$backend: merged cpu_ns ${got[8]} = sum of parts" || fail "$backend: merged cpu_ns ${got[8]} vs sum ${want[1]}"
  [ "${got[9]}" = "${want[2]}" ] && ok "$backend: merged wall_ns ${got[9]} = sum of parts" || fail "$backend: merged wall_ns ${got[9]} vs sum ${want[2]}"
  if [ ${#want[@]} -gt 3 ]; then
    for k in 0 1 2 3; do
      [ "${got[$((11 + k))]}" = "${want[$((3 + k))]}" ] || fail "$backend: merged slot count $k ${got[$((11 + k))]} vs ${want[$((3 + k))]}"
    done
    ok "$backend: merged L1 slot counts ${got[*]:11:4} = sum of parts"
    frac=$(awk -F, -v r="${want[3]}" -v b="${want[4]}" -v f="${want[5]}" -v k="${want[6]}" \
      '/^total,threads,/ { s = r + b + f + k; d = $24 - r / s; if (d < 0) d = -d; print (d < 1e-6) ? "ok" : "bad " $24 }' "$WORK/merged.csv")
    [ "$frac" = ok ] && ok "$backend: merged tma_retiring = summed counts / summed L1 slots" || fail "$backend: merged fraction $frac"
  else
    [ -z "${got[11]}" ] && ok "$backend: no slot counts, none made up in the merge" || fail "$backend: slot counts '${got[11]}' from nowhere"
  fi

  # One row per process with --by process, and the text table says it merged 5.
  rows=$(tdprobe_rows=$($TD report --csv --by process "$WORK"/fork-*.json | grep -c '^process,'); echo "$tdprobe_rows")
  [ "$rows" = 5 ] && ok "$backend: --by process: 5 rows" || fail "$backend: --by process rows $rows"
  $TD report "$WORK"/fork-*.json >"$WORK/merged.txt" 2>&1
  grep -q "5 processes merged" "$WORK/merged.txt" && ok "$backend: text table: $(head -1 "$WORK/merged.txt")" || fail "$backend: text header"
  ms=$(awk -v n="${want[1]}" 'BEGIN { printf "%.2f", n / 1e6 }')
  grep -E "total \\(${want[0]} threads\\) +$ms " "$WORK/merged.txt" >/dev/null && ok "$backend: text total line shows $ms cpu ms" \
    || { fail "$backend: text total lacks $ms"; grep total "$WORK/merged.txt"; }
  # Per-process detail kept: every worker's pid appears in the thread rows.
  for f in "$WORK"/fork-*.json; do
    pid=${f##*fork-}; pid=${pid%.json}
    grep -q "^thread,threads,$pid," "$WORK/merged.csv" || fail "$backend: pid $pid has no thread row"
  done
  ok "$backend: every process keeps its thread rows"
done
finish
