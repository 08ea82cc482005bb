#!/usr/bin/env bash
# Only interposed symbols and the tdprobe_ API leave the library: every
# dynamic symbol it defines must be in preload/tdprobe.map's global list,
# and it must not need libunwind or inih at load time.
source "$(dirname "$0")/lib.bash"
allowed=$(sed -n '/global:/,/local:/p' preload/tdprobe.map | grep -o '[A-Za-z_][A-Za-z0-9_]*;' | tr -d ';')
bad=0
while read -r sym; do
  if ! grep -qx "$sym" <<<"$allowed" && [[ "$sym" != tdprobe_* ]]; then
    fail "exported symbol not in the allowlist: $sym"; bad=1
  fi
done < <(nm -D --defined-only "$LIB" | awk '{print $3}' | sed 's/@.*//' | grep -v '^$')
n=$(nm -D --defined-only "$LIB" | wc -l)
[ $bad = 0 ] && ok "$n exported symbols, all interposers or tdprobe_*"
if readelf -d "$LIB" | grep NEEDED | grep -Eq 'unwind|inih'; then
  fail "libtdprobe.so links libunwind or inih dynamically: $(readelf -d "$LIB" | grep NEEDED | tr '\n' ' ')"
else
  ok "NEEDED: $(readelf -d "$LIB" | grep NEEDED | sed 's/.*\[\(.*\)\]/\1/' | tr '\n' ' ')"
fi
nm -D --defined-only "$LIB" | grep -q ' ini_' && fail "inih symbols exported" || ok "no ini_* symbol exported"
finish
