#!/bin/bash
# Regenerates the fake sysfs/proc trees the machine/check unit tests read.
# Contents follow what the kernel exposes on each machine (pmu-facts §1, §3,
# §4, §5); only the files td_machine reads are present.
set -eu
cd "$(dirname "$0")"
rm -rf machines && mkdir machines

cpuinfo_x86() { # dir vendor family model stepping name flags siblings cores ncpus
	local f=$1/proc/cpuinfo i
	mkdir -p "$1/proc"
	: >"$f"
	for ((i = 0; i < ${10}; i++)); do
		printf 'processor\t: %d\nvendor_id\t: %s\ncpu family\t: %d\nmodel\t\t: %d\nmodel name\t: %s\nstepping\t: %d\nsiblings\t: %d\ncpu cores\t: %d\nflags\t\t: %s\n\n' \
			"$i" "$2" "$3" "$4" "$6" "$5" "$8" "$9" "$7" >>"$f"
	done
}
cpuinfo_arm() { # dir implementer variant part revision ncpus
	local f=$1/proc/cpuinfo i
	mkdir -p "$1/proc"
	: >"$f"
	for ((i = 0; i < $6; i++)); do
		printf 'processor\t: %d\nBogoMIPS\t: 50.00\nFeatures\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics\nCPU implementer\t: %s\nCPU architecture: 8\nCPU variant\t: %s\nCPU part\t: %s\nCPU revision\t: %s\n\n' \
			"$i" "$2" "$3" "$4" "$5" >>"$f"
	done
}
sysctl() { # dir paranoid [perf_user_access]
	mkdir -p "$1/proc/sys/kernel"
	echo "$2" >"$1/proc/sys/kernel/perf_event_paranoid"
	if [ $# -gt 2 ]; then echo "$3" >"$1/proc/sys/kernel/perf_user_access"; fi
}
swpmus() { # dir: the PMUs every kernel has
	local d=$1/sys/bus/event_source/devices
	mkdir -p "$d"
	for p in software:1 tracepoint:2 breakpoint:5 uprobe:8 msr:9; do
		mkdir -p "$d/${p%%:*}" && echo "${p##*:}" >"$d/${p%%:*}/type"
	done
}
pmu() { # dir name type cpus events...
	local d=$1/sys/bus/event_source/devices/$2 e
	mkdir -p "$d/events" "$d/format"
	echo "$3" >"$d/type"
	[ -n "$4" ] && echo "$4" >"$d/cpus"
	shift 4
	for e in "$@"; do echo "${e#*=}" >"$d/events/${e%%=*}"; done
}
fmt_intel() {
	local d=$1/sys/bus/event_source/devices/$2/format
	echo config:0-7 >"$d/event"; echo config:8-15 >"$d/umask"
	echo config:24-31 >"$d/cmask"; echo config:23 >"$d/inv"; echo config:18 >"$d/edge"
}
GEN="cpu-cycles=event=0x3c instructions=event=0xc0 branch-instructions=event=0xc4 branch-misses=event=0xc5 cache-references=event=0x2e,umask=0x4f cache-misses=event=0x2e,umask=0x41 ref-cycles=event=0x00,umask=0x03 bus-cycles=event=0x3c,umask=0x01"
TDL1="slots=event=0x00,umask=0x4 topdown-retiring=event=0x00,umask=0x80 topdown-bad-spec=event=0x00,umask=0x81 topdown-fe-bound=event=0x00,umask=0x82 topdown-be-bound=event=0x00,umask=0x83"
TDL2="topdown-heavy-ops=event=0x00,umask=0x84 topdown-br-mispredict=event=0x00,umask=0x85 topdown-fetch-lat=event=0x00,umask=0x86 topdown-mem-bound=event=0x00,umask=0x87"
INTEL_FLAGS="fpu vme de pse tsc msr pae mce cx8 apic sep ht syscall nx lm constant_tsc arch_perfmon pebs bts rep_good nopl xtopology"

# Ice Lake client (i7-1065G7): perf-metrics L1, SMT on.
m=machines/icl
cpuinfo_x86 $m GenuineIntel 6 126 5 "Intel(R) Core(TM) i7-1065G7 CPU @ 1.30GHz" "$INTEL_FLAGS avx512f" 8 4 8
sysctl $m 2; swpmus $m
pmu $m cpu 4 "" $GEN $TDL1; fmt_intel $m cpu; echo 1 >$m/sys/bus/event_source/devices/cpu/rdpmc

# Sapphire Rapids (Xeon Platinum 8480+): perf-metrics L2.
m=machines/spr
cpuinfo_x86 $m GenuineIntel 6 143 8 "Intel(R) Xeon(R) Platinum 8480+" "$INTEL_FLAGS amx_tile" 4 2 4
sysctl $m 2; swpmus $m
pmu $m cpu 4 "" $GEN $TDL1 $TDL2; fmt_intel $m cpu; echo 1 >$m/sys/bus/event_source/devices/cpu/rdpmc

# Alder Lake hybrid (i9-12900K): cpu_core with L1+L2, cpu_atom with GP topdown events.
m=machines/adl
cpuinfo_x86 $m GenuineIntel 6 151 2 "12th Gen Intel(R) Core(TM) i9-12900K" "$INTEL_FLAGS hybrid_cpu" 24 16 24
sysctl $m 2; swpmus $m
pmu $m cpu_core 4 "0-15" $GEN $TDL1 $TDL2; fmt_intel $m cpu_core
pmu $m cpu_atom 10 "16-23" $GEN "topdown-retiring=event=0xc2,umask=0x0" "topdown-bad-spec=event=0x73,umask=0x0" "topdown-fe-bound=event=0x71,umask=0x0" "topdown-be-bound=event=0x74,umask=0x0"
fmt_intel $m cpu_atom

# Skylake client (i7-6700): pre-perf-metrics, kernel topdown aliases, SMT on.
m=machines/skl
cpuinfo_x86 $m GenuineIntel 6 94 3 "Intel(R) Core(TM) i7-6700 CPU @ 3.40GHz" "$INTEL_FLAGS" 8 4 8
sysctl $m 2; swpmus $m
pmu $m cpu 4 "" $GEN "topdown-total-slots=event=0x3c,umask=0x0,any=1" "topdown-slots-issued=event=0xe,umask=0x1" "topdown-slots-retired=event=0xc2,umask=0x2" "topdown-fetch-bubbles=event=0x9c,umask=0x1" "topdown-recovery-bubbles=event=0xd,umask=0x3,cmask=1,any=1"
fmt_intel $m cpu; echo 1 >$m/sys/bus/event_source/devices/cpu/rdpmc

# AMD Zen 4 (Ryzen 9 7950X): no perf-metrics, SMT on.
m=machines/zen4
cpuinfo_x86 $m AuthenticAMD 25 97 2 "AMD Ryzen 9 7950X 16-Core Processor" "fpu vme de pse tsc msr pae mce cx8 apic sep ht syscall nx lm constant_tsc rep_good nopl perfctr_core" 32 16 32
sysctl $m 2; swpmus $m
pmu $m cpu 4 "" "cpu-cycles=event=0x76" "instructions=event=0xc0" "branch-instructions=event=0xc2" "branch-misses=event=0xc3"
d=$m/sys/bus/event_source/devices/cpu/format; echo config:0-7,32-35 >$d/event; echo config:8-15 >$d/umask
echo 1 >$m/sys/bus/event_source/devices/cpu/rdpmc
mkdir -p $m/sys/devices/system/cpu/smt && echo 1 >$m/sys/devices/system/cpu/smt/active

# Neoverse N2 r0p3 (ACPI naming), perf_user_access off.
m=machines/n2
cpuinfo_arm $m 0x41 0x0 0xd49 3 4
sysctl $m 2 0; swpmus $m
pmu $m armv8_pmuv3_0 10 "0-3" "cpu_cycles=event=0x0011" "inst_retired=event=0x0008" "br_mis_pred=event=0x0010" "stall_slot=event=0x003f" "stall_slot_frontend=event=0x003e" "stall_slot_backend=event=0x003d" "op_retired=event=0x003a" "op_spec=event=0x003b"
d=$m/sys/bus/event_source/devices/armv8_pmuv3_0; mkdir -p $d/caps; echo 0x00000005 >$d/caps/slots
echo config:0-15 >$d/format/event; echo config1:0 >$d/format/long; echo config1:1 >$d/format/rdpmc
mkdir -p $m/sys/bus/event_source/devices/arm_spe_0 && echo 11 >$m/sys/bus/event_source/devices/arm_spe_0/type
mkdir -p $m/sys/devices/system/cpu/smt && echo 0 >$m/sys/devices/system/cpu/smt/active

# This development machine: KVM guest without vPMU (Sapphire Rapids host).
m=machines/kvm
cpuinfo_x86 $m GenuineIntel 6 143 8 "Intel(R) Xeon(R) Processor" "fpu vme de pse tsc msr pae mce cx8 apic sep ht syscall nx lm constant_tsc rep_good nopl xtopology cpuid hypervisor lahf_lm" 2 2 2
sysctl $m 2; swpmus $m
mkdir -p $m/sys/devices/system/cpu/smt && echo 0 >$m/sys/devices/system/cpu/smt/active
# No hypervisor flag, no PMU: a bare-metal kernel without a PMU driver.
m=machines/nopmu
cpuinfo_x86 $m GenuineIntel 6 143 8 "Intel(R) Xeon(R) Processor" "fpu vme de pse tsc msr pae" 2 2 2
sysctl $m 3; swpmus $m
