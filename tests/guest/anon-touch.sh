#!/bin/sh
# Guest test: the patched kernel's anon events and order knob, on real guests (issue 2).
# For each case a guest boots, records `anon-touch` under a policy, and the trace is read
# with babeltrace2. Fault counts are those of the workload's own VMA.
. "$(dirname "$0")/../test-lib.sh"
. "$(dirname "$0")/guest-lib.inc"

plan 36

# order0: one fault per 4K page, equal to the workload's own minflt count
o=$T/order0
guest "$o" order0 anon-touch 64M
ok $? "order0: anon-touch 64M ran in the guest ($ARCH, $(cat "$o/header/accel" 2>/dev/null))"
order0_faults "$o"
ok $([ "$(cat "$o/header/discarded_events")" = 0 ]; echo $?) "order0: LTTng discarded no event (header)"
ok $([ "$(cat "$o/header/policy")" = order0 ] && [ "$(cat "$o/header/partial")" = 0 ]; echo $?) \
	"order0: header says policy order0, complete"
# the clock behind latency_ns and the timestamps: ns resolution, not refined-jiffies' 4 ms
cs=$(cat "$o/header/clocksource") res=$(cat "$o/header/clock_min_delta_ns")
want_cs=$(guest_clocksource "$ARCH")
ok $([ "$cs" = "$want_cs" ]; echo $?) "clock: the guest runs on the $want_cs clocksource (got $cs)"
ok $([ -n "$res" ] && [ "$res" -lt 1000 ]; echo $?) \
	"clock: CLOCK_MONOTONIC steps by ${res:-?} ns in the guest, well below 1 us"
# latency_ns steps by the clock's tick: 1 ns on the TSC, 16 ns on arm64 (QEMU virt's 62.5 MHz
# counter), 4 ms on jiffies. A count of distinct values alone depends on the spread of TCG
# latencies (900-1300 on arm64), so check the smallest gap between them.
lat=$(faults_in "$o" "$pid" "$addr" 67108864 | sed 's/.*latency_ns=//' | sort -n -u)
d=$(echo "$lat" | wc -l)
step=$(echo "$lat" | awk 'NR > 1 && (m == "" || $1 - p < m) { m = $1 - p } { p = $1 } END { print m }')
ok $([ "$d" -gt 100 ] && [ -n "$step" ] && [ "$step" -lt 1000 ]; echo $?) \
	"clock: fault latencies step by ${step:-?} ns, $d distinct among $n (not jiffies-quantised)"
# exec faults the argument pages in at STACK_TOP_MAX, then moves them (patch 0005)
mv=$(events "$o" | grep -c "^anon_zap .*pid=$pid .*cause=mremap new_addr=0x[1-9A-F]")
ok $([ "$mv" = 1 ]; echo $?) "exec: the move of anon-touch's argument pages is an anon_zap mremap ($mv)"

# fixed orders: one fault per block, blocks physically contiguous
for case in "2 4096 16K" "4 1024 64K"; do
	set -- $case
	order=$1 want=$2 size=$3
	d=$T/mcpage$order
	guest "$d" "mcpage:$order" anon-touch 64M --pagemap-check "$order"
	ok $? "mcpage:$order: anon-touch ran"
	pid=$(result "$d" pid) addr=$(result "$d" addr)
	n=$(faults_in "$d" "$pid" "$addr" 67108864 | wc -l)
	within_pct "$n" "$want" 1; ok $? "mcpage:$order: $want faults within 1% (got $n)"
	bad=$(faults_in "$d" "$pid" "$addr" 67108864 | grep -cv "order=$order nr_ptes=$((1 << order)) ")
	ok $([ "$bad" = 0 ]; echo $?) "mcpage:$order: every fault maps a $size block ($bad others)"
	blocks=$(result "$d" blocks) contig=$(result "$d" contig_aligned)
	ok $([ "$blocks" = "$want" ] && [ "$contig" = "$blocks" ]; echo $?) \
		"mcpage:$order: pagemap: $contig of $blocks aligned $size blocks physically contiguous"
	v=$(( $(vmstat_delta "$d" "anon_folio_order$order") ))
	ok $([ "$v" -ge "$want" ]; echo $?) "mcpage:$order: vmstat anon_folio_order$order counts the blocks ($v)"
done

# a 12K VMA cannot hold an aligned 16K block: 3 faults of 4K, reason vma_edge
d=$T/edge
guest "$d" mcpage:2 anon-touch 12K
ok $? "mcpage:2 on a 12K VMA ran"
pid=$(result "$d" pid) addr=$(result "$d" addr)
n=$(faults_in "$d" "$pid" "$addr" 12288 | grep -c 'order=0 nr_ptes=1 .*fallback=vma_edge')
ok $([ "$n" = 3 ]; echo $?) "mcpage:2 on 12K: 3 faults of 4K with fallback vma_edge (got $n)"
e=$(vmstat_delta "$d" anon_folio_fallback_vma_edge)
ok $([ "${e:-0}" -ge 3 ]; echo $?) "mcpage:2 on 12K: vmstat anon_folio_fallback_vma_edge >= 3 ($e)"

# thp: the kernel's own THP maps 2M with a PMD; a VMA too small for it gets 4K, with THP's
# reason (patch 0004)
d=$T/thp
guest "$d" thp anon-touch 4M
ok $? "thp: anon-touch 4M ran"
pid=$(result "$d" pid) addr=$(result "$d" addr)
n=$(faults_in "$d" "$pid" "$addr" 4194304 | grep -c 'order=9 nr_ptes=1 zero_page=0')
t=$(faults_in "$d" "$pid" "$addr" 4194304 | wc -l)
ok $([ "$n" = 2 ] && [ "$t" = 2 ]; echo $?) "thp: 4M takes 2 PMD faults of 2M ($n of $t)"
d=$T/thp-edge
guest "$d" thp anon-touch 12K
ok $? "thp on a 12K VMA ran"
pid=$(result "$d" pid) addr=$(result "$d" addr)
n=$(faults_in "$d" "$pid" "$addr" 12288 | grep -c 'order=0 nr_ptes=1 .*fallback=vma_edge')
ok $([ "$n" = 3 ]; echo $?) "thp on 12K: 3 faults of 4K with THP's fallback vma_edge (got $n)"

# MADV_NOHUGEPAGE: 4K under every policy
for pol in order0 mcpage:4 mthp:16K,32K,64K thp; do
	d=$T/nohuge-$(echo "$pol" | tr ':,' '__')
	guest "$d" "$pol" anon-touch 4M --nohugepage
	pid=$(result "$d" pid) addr=$(result "$d" addr)
	n=$(faults_in "$d" "$pid" "$addr" 4194304 | grep -c 'order=0 nr_ptes=1 zero_page=0')
	want=none
	[ "$pol" = order0 ] || want=nohugepage
	r=$(faults_in "$d" "$pid" "$addr" 4194304 | grep -c "fallback=$want ")
	ok $([ "$n" = 1024 ] && [ "$r" = 1024 ]; echo $?) \
		"--nohugepage under $pol: 1024 faults of 4K, fallback $want ($n, $r)"
done

# read first: zero-page mappings, then a zero-page write fault per page
d=$T/readfirst
guest "$d" mcpage:2 anon-touch 1M --read-first
ok $? "--read-first under mcpage:2 ran"
pid=$(result "$d" pid) addr=$(result "$d" addr)
z=$(faults_in "$d" "$pid" "$addr" 1048576 | grep -c 'write=0 order=0 nr_ptes=1 zero_page=1 fallback=read')
ok $([ "$z" = 256 ]; echo $?) "--read-first: 256 read faults map the zero page (got $z)"
w=$(faults_in "$d" "$pid" "$addr" 1048576 anon_zero_wp | wc -l)
ok $([ "$w" = 256 ]; echo $?) "--read-first: then 256 anon_zero_wp write faults (got $w)"
first_wp=$(events "$d" | grep -n "^anon_zero_wp .*pid=$pid .*address=$(printf '0x%X' "$addr") " | head -n 1 | cut -d: -f1)
last_rd=$(events "$d" | grep -n "^anon_fault .*pid=$pid .*zero_page=1" | tail -n 1 | cut -d: -f1)
ok $([ -n "$first_wp" ] && [ -n "$last_rd" ] && [ "$last_rd" -lt "$first_wp" ]; echo $?) \
	"--read-first: all zero-page mappings come before the write faults"
done_testing
