# The aarch64 hook trampoline keeps every AAPCS64 argument and return kind:
# td-vm-abi gives the same output with all its libtdvm functions hooked as
# regions, and the report counts each hooked call.
cd /tmp
plain=$(/tdprobe/targets/td-vm-abi); prc=$?
out=$(TDPROBE_OUTPUT=/tmp/abi.json TDPROBE_SUMMARY=no TDPROBE_REGIONS='vm_abi_*' \
	LD_PRELOAD=/tdprobe/lib/libtdprobe.so /tdprobe/targets/td-vm-abi 2>/tmp/abi.err); rc=$?
cat /tmp/abi.err
echo "$out"
echo "exit status: $prc without the preload, $rc with it"
[ "$rc" = "$prc" ] && [ "$out" = "$plain" ] || { echo "FAIL: output or exit status changed"; echo "$plain"; exit 1; }
[ $rc = 0 ] || exit 1
# calls per hooked function in the main thread, summed over its call sites
# (vm_abi_ints: once from main, once nested inside vm_abi_nest; the
# recursion binds locally inside the library, so one hooked call); the
# process-wide merge ("regions" at the top level) is not read
awk '/^  "regions"/ { exit } /"function":/ { f = $2; gsub(/[",]/, "", f) }
     /"calls":/ && f != "" { c = $2; gsub(/,/, "", c); n[f] += c; f = "" }
     END { for (k in n) print k, n[k] }' /tmp/abi.json | sort >/tmp/calls.txt
cat /tmp/calls.txt
want="vm_abi_big 1
vm_abi_hfa 1
vm_abi_ints 2
vm_abi_ld 1
vm_abi_nest 1
vm_abi_recurse 1
vm_abi_varargs 1"
[ "$(cat /tmp/calls.txt)" = "$want" ] || { echo "FAIL: expected calls:"; echo "$want"; exit 1; }
echo "all 7 functions hooked, calls counted exactly (nesting included)"
