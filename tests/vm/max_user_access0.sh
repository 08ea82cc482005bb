# kernel.perf_user_access=0: the page says index 0, so every counter is read
# with read(2) — the figures stay exact (constant per-snapshot cost), and
# the backend's reason says why and how to enable user-space reads.
echo 0 >/proc/sys/kernel/perf_user_access
out=$(./targets/td-vm-backend exact 2); rc=$?
echo "$out"
[ $rc = 0 ] || exit 1
echo "$out" | grep -q 'kernel.perf_user_access=0' || { echo "FAIL: reason does not name perf_user_access=0"; exit 1; }
echo "$out" | grep -q 'page index 0' || { echo "FAIL: expected page index 0 (read() fallback)"; exit 1; }
echo "read(2) fallback with exact deltas, reason stated"
