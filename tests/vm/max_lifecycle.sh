# Threads, fork and exec under the preload with hardware counters:
# thread exit closes the thread's perf fds; a forked child (which must never
# touch the parent's perf pages: they are not inherited, a touch is SIGSEGV)
# exits 0 and writes its own report with its own counts; an exec'd image
# starts with only its own fds and writes its own report.
cd /tmp
rm -f /tmp/lc-*.json
export TDPROBE_OUTPUT=/tmp/lc-%p.json TDPROBE_SUMMARY=no TDPROBE_REGIONS=vm_hooked_work
rc=0
for m in threads fork exec; do
	LD_PRELOAD=/tdprobe/lib/libtdprobe.so /tdprobe/targets/td-vm-lifecycle $m 2>/tmp/lc.err || { rc=1; cat /tmp/lc.err; echo "FAIL: mode $m"; }
	grep -v 'backend arm64' /tmp/lc.err
done
n=$(ls /tmp/lc-*.json | wc -l)
echo "reports written: $n (threads 1, fork 2, exec 2)"
[ "$n" = 5 ] || { echo "FAIL: expected 5 reports"; rc=1; }
# Each image counts its own first vm_hooked_work call with its own counters:
# threads report (first by pid) aside, the bodies are 10000 (fork parent),
# 14000 (fork child), 10000 (exec, before) and 6000 (exec'd image)
# instructions, each plus the same per-call cost c.
first=$(ls /tmp/lc-*.json | sort -t- -k2 -n | head -n1)
for f in /tmp/lc-*.json; do
	[ "$f" = "$first" ] && continue
	awk '/"function": "vm_hooked_work"/ { on = 1 } on && /"instructions":/ { gsub(/,/, "", $2); print $2; exit }' "$f"
done | sort -n >/tmp/lc-ins.txt
awk 'NR == 1 { c = $1 - 6000 } { v[NR] = $1 - c }
	END { ok = NR == 4 && v[1] == 6000 && v[2] == 10000 && v[3] == 10000 && v[4] == 14000
	      printf "%s fork/exec images: first hooked call = body + c with c = %d: bodies %d %d %d %d (expected 6000 10000 10000 14000)\n", ok ? "ok  " : "FAIL", c, v[1], v[2], v[3], v[4]
	      exit !ok }' /tmp/lc-ins.txt || rc=1
exit $rc
