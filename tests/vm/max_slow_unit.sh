# The aarch64 Criterion unit tests on the real arm64 kernel (perf_event_open
# included, which qemu-user does not implement).
. /tdprobe/paths
rc=0
cd "$ROOT/tests/unit" || exit 1
for t in "$BUILD"/unit/test_*; do
	n=$(basename "$t")
	out=$("$t" --jobs 1 2>&1); trc=$?
	syn=$(echo "$out" | grep -a 'Synthesis' | tail -n1 | sed 's/^\[====\] //')
	if [ $trc = 0 ]; then
		echo "ok   $n: $syn"
	else
		echo "$out" | grep -a -A3 'Assertion Failed\|FAIL\|CRASH' | head -20
		echo "FAIL $n (exit $trc): $syn"
		rc=1
	fi
done
exit $rc
