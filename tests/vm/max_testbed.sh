# The VM test bed itself: the core PMU is there and a raw user-space read of
# INST_RETIRED is exact under -icount (no tdprobe code involved).
set -e
ls /sys/bus/event_source/devices/
for d in /sys/bus/event_source/devices/armv8_pmuv3*; do
	echo "$d: type $(cat $d/type) format: $(cd $d/format && for f in *; do printf '%s=%s ' $f $(cat $f); done)"
done
echo "perf_user_access=$(cat /proc/sys/kernel/perf_user_access) perf_event_paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)"
./targets/td-vm-rawcount 1000000
./targets/td-vm-rawcount 10
