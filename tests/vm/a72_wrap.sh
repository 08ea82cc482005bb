# -cpu cortex-a72: PMUv3 without 64-bit event counters. The 64-bit request
# is refused (EOPNOTSUPP) and retried as 32-bit; one delta of 2.2 G
# instructions crosses a 32-bit wrap and still comes out exact.
./targets/td-vm-backend access
./targets/td-vm-backend wrap 1100000000
