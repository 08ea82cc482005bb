#!/usr/bin/env bash
# tdprobe.h: compiles as C (c99, c11, gnu11) and C++ (c++11, c++17) with
# gcc/g++ and clang/clang++ at -Wall -Wextra -Werror -pedantic; each program
# runs unchanged without the preload (weak markers resolve to NULL) and,
# under the preload, its marker region is counted exactly.
set -u
BUILD=${1:-build}
LIB=$(realpath "$BUILD/libtdprobe.so")
INC=preload/include
[ -f "$INC/tdprobe.h" ] && [ -f "$LIB" ] || { echo "missing $INC/tdprobe.h or $LIB"; exit 1; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
cat >"$TMP/m.c" <<'C'
#include <tdprobe.h>
#include <stdio.h>
int main(void)
{
	int i;
	for (i = 0; i < 123; i++) {
		tdprobe_region_begin("hdr");
		tdprobe_region_end("hdr");
	}
	puts("done");
	return 0;
}
C
cat >"$TMP/m.cpp" <<'C'
#include <tdprobe.h>
#include <cstdio>
int main()
{
	for (int i = 0; i < 123; i++) {
		tdprobe::region r("hdr");
	}
	std::puts("done");
	return 0;
}
C
fails=0
check() { # check NAME COMPILER STD SRC
	local name=$1 cc=$2 std=$3 src=$4 exe="$TMP/$1"
	command -v "$cc" >/dev/null || { echo "  (no $cc: $name not built)"; return; }
	if ! "$cc" -std="$std" -Wall -Wextra -Werror -pedantic -I"$INC" -o "$exe" "$src" 2>"$TMP/cc.err"; then
		echo "FAIL: $name: does not compile"; cat "$TMP/cc.err"; fails=$((fails + 1)); return
	fi
	local plain with calls
	plain=$("$exe"); with=$(env TDPROBE_BACKEND=software TDPROBE_SUMMARY=no TDPROBE_LOG=error \
		TDPROBE_OUTPUT="$TMP/$name.json" LD_PRELOAD="$LIB" "$exe")
	calls=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(sum(x["calls"] for t in r["threads"] for x in t.get("regions", []) if x["function"] == "hdr"))' "$TMP/$name.json" 2>/dev/null)
	echo "  $name: compiles clean; without preload '$plain', with preload '$with', hdr calls ${calls:-none} (want 123)"
	if [ "$plain" != done ] || [ "$with" != done ] || [ "${calls:-}" != 123 ]; then
		echo "FAIL: $name"; fails=$((fails + 1))
	fi
}
check gcc-c99 gcc c99 "$TMP/m.c"
check gcc-c11 gcc c11 "$TMP/m.c"
check gcc-gnu11 gcc gnu11 "$TMP/m.c"
check clang-c11 clang c11 "$TMP/m.c"
check gxx-cxx11 g++ c++11 "$TMP/m.cpp"
check gxx-cxx17 g++ c++17 "$TMP/m.cpp"
check clangxx-cxx17 clang++ c++17 "$TMP/m.cpp"
# TDPROBE_DISABLE compiles the markers out: nothing is referenced.
gcc -DTDPROBE_DISABLE -Wall -Wextra -Werror -I"$INC" -c -o "$TMP/off.o" "$TMP/m.c" &&
	! nm "$TMP/off.o" | grep -q tdprobe_ && echo "  TDPROBE_DISABLE: no tdprobe_ reference" ||
	{ echo "FAIL: TDPROBE_DISABLE"; fails=$((fails + 1)); }
# C++ RAII across exceptions: 100 parse() regions, 25 left by a throw.
CXX_PROG=$BUILD/targets/regions_markers_cxx
if [ -x "$CXX_PROG" ]; then
	plain=$("$CXX_PROG"); with=$(env TDPROBE_BACKEND=software TDPROBE_SUMMARY=no TDPROBE_LOG=error \
		TDPROBE_OUTPUT="$TMP/cxx.json" LD_PRELOAD="$LIB" "$CXX_PROG")
	got=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); t=r["threads"][0]; print(" ".join("%s=%d" % (x["function"], x["calls"]) for x in sorted(t.get("regions", []), key=lambda x: x["function"])), "unmatched=%d" % t.get("regions_unmatched_exits", -1))' "$TMP/cxx.json" 2>/dev/null)
	echo "  markers_cxx: '$plain' / '$with'; $got"
	[ "$plain" = "$with" ] && [ "$got" = "parse=100 tail=1 unmatched=0" ] || { echo "FAIL: markers_cxx"; fails=$((fails + 1)); }
fi
[ "$fails" = 0 ]
