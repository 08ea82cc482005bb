# arm64 backend on the real (emulated) PMU, 8 threads each:
# exact instruction deltas, user-space reads vs read(2), more events than counters.
rc=0
./targets/td-vm-backend exact 8 || rc=1
./targets/td-vm-backend agree 8 || rc=1
./targets/td-vm-backend extra 2 4 || rc=1
exit $rc
