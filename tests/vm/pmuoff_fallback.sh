# -cpu max,pmu=off: no PMU at all. The probe says so on one line, runs on
# the software backend, and the program is unharmed: same output, same exit
# status, marker and hooked regions still counted (calls exact).
cd /tmp
ls /sys/bus/event_source/devices/
plain=$(/tdprobe/targets/td-vm-regions 2); prc=$?
out=$(TDPROBE_OUTPUT=/tmp/r.json TDPROBE_SUMMARY=no TDPROBE_REGIONS=vm_hooked_work \
	LD_PRELOAD=/tdprobe/lib/libtdprobe.so /tdprobe/targets/td-vm-regions 2 2>/tmp/err); rc=$?
cat /tmp/err
echo "exit status $prc without, $rc with the preload"
[ "$rc" = "$prc" ] && [ "$out" = "$plain" ] || { echo "FAIL: output or exit status changed"; exit 1; }
grep -q 'backend software' /tmp/err || { echo "FAIL: expected the software backend"; exit 1; }
grep -q 'no hardware PMU' /tmp/err || { echo "FAIL: the reason does not say there is no PMU"; exit 1; }
calls=$(awk '/"name": "vmw1"/ { on = 1 } on && /"function": "vm_hooked_work"/ { f = 1 } f && /"calls":/ { gsub(/,/, "", $2); print $2; exit }' /tmp/r.json)
echo "vmw1 vm_hooked_work calls: $calls (planned 8)"
[ "$calls" = 8 ] || { echo "FAIL: calls"; exit 1; }
