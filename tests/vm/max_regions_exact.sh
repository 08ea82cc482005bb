# Exact per-region instruction counts through the preload on 8 threads
# (per-thread groups opened by the pthread_create interposition).
# td-vm-regions prints its plan (thread, region, calls, body instructions per
# call); the report must show, for every thread and region:
#   calls == planned calls, and
#   instructions == calls * (body + c), c the same for every thread
# where c is tdprobe's own cost per call (two snapshots plus region
# bookkeeping), stated below, bounded by C_MAX, and the same on every
# thread within TOL instructions per call (a one-off path inside one call,
# e.g. a first use, spreads over that thread's calls; deterministic under
# -icount).
C_MAX=3000
TOL=64
cd /tmp
rm -f /tmp/regions.json
TDPROBE_OUTPUT=/tmp/regions.json TDPROBE_SUMMARY=no TDPROBE_REGIONS=vm_hooked_work \
	LD_PRELOAD=/tdprobe/lib/libtdprobe.so /tdprobe/targets/td-vm-regions 8 >/tmp/plan.txt 2>/tmp/err.txt
rc=$?
cat /tmp/err.txt
[ $rc = 0 ] || { echo "FAIL: td-vm-regions exited $rc under the preload"; exit 1; }
[ -s /tmp/regions.json ] || { echo "FAIL: no report"; exit 1; }
grep -q '"name": "arm64"' /tmp/regions.json || { echo "FAIL: backend is not arm64"; exit 1; }

# thread region calls instructions, from the pretty-printed report (the
# first figures per thread and region: the process-wide merge comes last)
awk '
/"name": "vmw/ { t = $2; gsub(/[",]/, "", t) }
/"function":/ { f = $2; gsub(/[",]/, "", f); want = 1 }
/"calls":/ { c = $2; gsub(/,/, "", c) }
/"instructions":/ && want { v = $2; gsub(/,/, "", v); if (!((t " " f) in seen)) print t, f, c, v; seen[t " " f] = 1; want = 0 }
' /tmp/regions.json >/tmp/measured.txt

awk -v cmax=$C_MAX -v tol=$TOL '
FNR == NR { m[$1 " " $2] = $3 " " $4; next }
$1 == "plan" {
	key = $2 " " $3
	if (!(key in m)) {
		if ($3 == "vm_hooked_work") { nohook++; next }
		printf "FAIL %s %s: not in the report\n", $2, $3; bad++; next
	}
	split(m[key], a, " ")
	n++; th[n] = $2; rg[n] = $3; calls[n] = $4; body[n] = $5; mc[n] = a[1]; mi[n] = a[2]
	c[n] = (mi[n] - calls[n] * body[n]) / calls[n]
	if (!($3 in cmin) || c[n] < cmin[$3]) cmin[$3] = c[n]
}
END {
	# One line per thread: region calls x (body + c) = expected, measured.
	# Prefixed @@TD-FIG: qemu-arm64-test repeats them at the end of its output.
	for (i = 1; i <= n; i++) {
		r = rg[i]
		ok = mc[i] == calls[i] && c[i] >= 0 && c[i] <= cmax && c[i] - cmin[r] <= tol
		if (!ok) bad++
		line[th[i]] = line[th[i]] sprintf("%s%s %d x (%d + %.0f) = %d, measured %d%s", line[th[i]] == "" ? "" : "; ",
			r, mc[i], body[i], cmin[r], calls[i] * (body[i] + cmin[r]), mi[i],
			ok ? (mi[i] == calls[i] * (body[i] + cmin[r]) ? "" : sprintf(" (+%d)", mi[i] - calls[i] * (body[i] + cmin[r]))) : sprintf(" WRONG (planned %d calls)", calls[i]))
		order[th[i]] = i
	}
	for (t in order) printf "@@TD-FIG %s: %s\n", t, line[t] | "sort"
	close("sort")
	for (r in cmin) printf "@@TD-FIG region %s: tdprobe per-call cost c = %.0f instructions (every thread within +%d of it)\n", r, cmin[r], tol
	if (nohook) printf "NOTE: vm_hooked_work is not in the report (%d threads): function hooks are not available in this aarch64 build; marker regions checked only\n", nohook
	printf "@@TD-FIG exact counts: %d thread-region figures checked, %d wrong\n", n, bad
	exit (bad || n == 0)
}' /tmp/measured.txt /tmp/plan.txt
