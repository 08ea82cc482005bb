#!/usr/bin/env bash
# TDPROBE_BACKEND=emulate with regions, twice: marker regions ("hot",
# "cold") and hooked library functions (emulate_lib_hot/_cold, when this
# build has function hooks). Each region gets its own true fractions, the
# unregioned remainder the thread's. Each region reports every TopDown node
# within its stated error bound, and each thread's slot counts equal the
# sum over its regions plus the remainder (remainder slots x the thread's
# fractions) within the sum of the stated bounds. The reset policy
# (outermost, 3M slots: every ~3 rounds) resets the group at region entries.
# (tdprobe's own reset work at a region entry runs after the emulator
# switched to the region's fractions but before the region's start
# snapshot, so it is true-region time measured as remainder: a few us per
# reset, which is why resets are not made every round here.)
source "$(dirname "$0")/lib.bash"
[ -x "$TARGETS/emulate_regions" ] || skip "emulate_regions not built"
printf '[topdown]\nreset = outermost\nreset_threshold = 1000000\n' >"$WORK/td.ini"
SKIPPED=0

# run MODE HOT COLD REGIONS: one profiled run and its checks.
run() {
  local mode=$1 hot=$2 cold=$3 regions=$4 spec f out rc
  spec="thread:left=ret:40,bad:10,fe:20,be:30;thread:right=ret:25,bad:25,fe:25,be:25"
  spec="$spec;region:$hot=ret:10,bad:5,fe:15,be:70,mem:55;region:$cold=ret:70,bad:15,fe:10,be:5,heavy:20"
  spec="$spec;sim=bump:13,switch:17"
  PROFILE_ENV="TDPROBE_CONFIG=$WORK/td.ini TDPROBE_BACKEND=emulate TDPROBE_SUMMARY=no"
  PROFILE_ENV="$PROFILE_ENV TDPROBE_REGIONS=$regions TDPROBE_EMULATE=$spec"
  same_run "$mode" "$TARGETS/emulate_regions" 200 "$mode" || return
  if [ "$mode" = functions ] && grep -q "not built into this library" "$WORK/$mode.err1"; then
    echo "  (functions: this build has no function hooks; that half is not checked)"
    SKIPPED=1
    return
  fi
  f=$(ls "$WORK/$mode"-*.json)
  out=$(python3 "$HERE/emulate_regions.py" "$f" "$hot" "$cold"); rc=$?
  echo "$out"
  [ $rc = 0 ] && ok "$mode: regions within their bounds; thread totals = regions + remainder" \
    || fail "$mode (see above)"
}

run markers hot cold emulate_no_such_fn
run functions emulate_lib_hot emulate_lib_cold emulate_lib_hot,emulate_lib_cold
finish
