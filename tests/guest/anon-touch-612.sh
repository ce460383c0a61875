#!/bin/sh
# Guest test: the 6.12 guest kernel (issue 25): our anon events on Debian's linux-source-6.12
# under upstream's own mTHP, the kernel's per-size counters as a second witness, and the
# refusals before any boot. For each case a guest boots, records `anon-touch 64M` under a
# policy (run.sh --kernel 6.12 sets hugepages-*kB/enabled), and the trace is read with
# babeltrace2. Fault counts are those of the workload's own VMA; the kernel's
# anon_fault_alloc deltas (header/mthp_stats.before, .after) count every process's.
FT_TEST_KERNEL=6.12
. "$(dirname "$0")/../test-lib.sh"
. "$(dirname "$0")/guest-lib.inc"

plan 26

# mthp_delta OUTDIR SIZE COUNTER: a per-size counter's change across the workload
mthp_delta() {
	_a=$(awk -v s="$2" -v k="$3" '$1 == s && $2 == k { print $3 }' "$1/header/mthp_stats.after")
	_b=$(awk -v s="$2" -v k="$3" '$1 == s && $2 == k { print $3 }' "$1/header/mthp_stats.before")
	[ -n "$_a" ] && [ -n "$_b" ] && echo $(( _a - _b ))
}
# mthp_sum OUTDIR COUNTER: the counter's change summed over every size
mthp_sum() {
	awk -v k="$2" 'FNR == 1 { f++ } $2 == k { v[f] += $3 } END { print v[2] - v[1] }' \
		"$1/header/mthp_stats.before" "$1/header/mthp_stats.after"
}

# lttng_pids OUTDIR: the pids of LTTng's own processes in the trace (the lttng client, its
# session and consumer daemons): by the statedump's names and the execs' file names
lttng_pids() {
	events "$1" | awk '
		$1 == "lttng_statedump_process_state" && / name="lttng/ {
			p = $0; sub(/.* pid=/, "", p); sub(/ .*/, "", p); print p }
		$1 == "sched_process_exec" && /filename="[^"]*\/lttng[^\/"]*"/ {
			p = $0; sub(/.* tid=/, "", p); sub(/ .*/, "", p); print p }' |
		sort -un | tr '\n' ' ' | sed 's/^/ /; s/ $//'
}

# Refused before any boot: a policy upstream cannot express, 8K (no order-1 anon mTHP)
for pol in adaptive faultaround:16 mthp:8K,16K; do
	d=$T/refuse-$(echo "$pol" | tr ':,' '__')
	sh "$RUN" --arch "$ARCH" --kernel 6.12 --policy "$pol" --out "$d" -- anon-touch 1M \
		> "$d.out" 2> "$d.err"
	rc=$?
	ok $([ $rc = 2 ] && [ "$(wc -l < "$d.err")" = 1 ] && [ ! -e "$d" ] &&
		grep -q "^foliotrace: policy '$pol[^']*' cannot run on a 6.12 guest.*it runs order0, mcpage:N, mthp:SIZE" "$d.err"
		echo $?) "$pol on 6.12: refused before any boot with one line naming what 6.12 runs (exit $rc: $(cat "$d.err"))"
done

# order0: one fault per 4K page, equal to the workload's own minflt count; no mTHP at all
o=$T/order0
guest "$o" order0 anon-touch 64M
ok $? "order0: anon-touch 64M ran in the 6.12 guest ($ARCH, $(cat "$o/header/accel" 2>/dev/null))"
kver=$(cat "$o/header/kernel" 2>/dev/null)
ok $(case "$kver" in 6.12.*) true ;; *) false ;; esac; echo $?) \
	"order0: header/kernel is the 6.12 release ($kver)"
order0_faults "$o"
ne=$(grep -cv ' \[never\]$' "$o/header/mthp_enabled" 2>/dev/null)
ok $([ -s "$o/header/mthp_enabled" ] && [ "$ne" = 0 ]; echo $?) \
	"order0: header/mthp_enabled shows every size never ($ne others)"
ma=$(mthp_sum "$o" anon_fault_alloc)
ok $([ "$ma" = 0 ]; echo $?) "order0: the kernel's anon_fault_alloc moved by 0 over all sizes (got $ma)"
mv=$(events "$o" | grep -c "^anon_zap .*pid=$pid .*cause=mremap new_addr=0x[1-9A-F]")
ok $([ "$mv" = 1 ]; echo $?) "exec: the move of anon-touch's argument pages is an anon_zap mremap ($mv)"

# mTHP sizes: one fault per block, blocks physically contiguous, and the kernel's own
# anon_fault_alloc for the size equal to our anon_fault events of that order (all
# processes: the counter is the kernel's, for the whole guest)
for case in "2 4096 16K 16kB" "4 1024 64K 64kB"; do
	set -- $case
	order=$1 want=$2 size=$3 kb=$4
	d=$T/mthp$size
	guest "$d" "mthp:$size" anon-touch 64M --pagemap-check "$order"
	ok $? "mthp:$size: anon-touch ran in the 6.12 guest"
	pid=$(result "$d" pid) addr=$(result "$d" addr)
	n=$(faults_in "$d" "$pid" "$addr" 67108864 | wc -l)
	within_pct "$n" "$want" 1; ok $? "mthp:$size: $want faults within 1% (got $n)"
	bad=$(faults_in "$d" "$pid" "$addr" 67108864 |
		grep -cv "order=$order nr_ptes=$((1 << order)) zero_page=0 fallback=none latency_ns=[0-9]* alloc_orders=$(printf '0x%X' $((1 << order))) pfn=0x[1-9A-F]")
	ok $([ "$n" -gt 0 ] && [ "$bad" = 0 ]; echo $?) \
		"mthp:$size: every fault maps a $size folio it allocated at the first try ($bad others)"
	blocks=$(result "$d" blocks) contig=$(result "$d" contig_aligned)
	ok $([ "$blocks" = "$want" ] && [ "$contig" = "$blocks" ]; echo $?) \
		"mthp:$size: pagemap: $contig of $blocks aligned $size blocks physically contiguous"
	# The counters are read inside the trace (after lttng start, before lttng stop, by
	# init's shell builtins), so every event but LTTng's own and init's (whose shell
	# reads them) falls between the reads: the kernel's count lies between our events
	# without those processes and all of them (`lttng stop` itself faults after the last
	# read while still traced).
	lt="$(lttng_pids "$d") 1"
	all=$(events "$d" | grep -c "^anon_fault .* order=$order nr_ptes=$((1 << order)) zero_page=0 ")
	ours=$(events "$d" | grep "^anon_fault .* order=$order nr_ptes=$((1 << order)) zero_page=0 " |
		awk -v lt=" $lt " '{ p = $0; sub(/.* pid=/, "", p); sub(/ .*/, "", p) }
			index(lt, " " p " ") == 0' | wc -l)
	ka=$(mthp_delta "$d" "$kb" anon_fault_alloc)
	kf=$(mthp_delta "$d" "$kb" anon_fault_fallback)
	diag "mthp:$size: kernel anon_fault_alloc $ka, anon_fault_fallback $kf; our order-$order faults $ours, $all with LTTng's and init's (pids$lt)"
	ok $([ -n "$ka" ] && [ "$ka" -ge "$ours" ] && [ "$ka" -le "$all" ] && [ "$ka" -ge "$want" ] &&
		[ "$kf" = 0 ]; echo $?) \
		"mthp:$size: the kernel's $kb anon_fault_alloc ($ka) agrees with our order-$order anon_fault events ($ours, $all with LTTng's and init's), no fallback"
	oa=$(( $(mthp_sum "$d" anon_fault_alloc) - ${ka:-0} ))
	ok $([ "$oa" = 0 ] && [ "$(cat "$d/header/policy")" = "mthp:$size" ] &&
		grep -q "^$kb \[always\]" "$d/header/mthp_enabled"; echo $?) \
		"mthp:$size: only $kb is always (header), no other size allocated ($oa)"
done

# A 6.12 kernel that fails to build or boot: one line, naming the step. Build: the 6.12
# lttng-modules source missing (a cache of its own, so nothing cached is touched).
d=$T/nobuild
FOLIOTRACE_CACHE=$T/cache FT_LTTNG_6_12_SRC=$T/none sh "$RUN" --arch "$ARCH" --kernel 6.12 \
	--out "$d" -- anon-touch 1M > "$d.out" 2> "$d.err"
rc=$? last=$(tail -n 1 "$d.err")
ok $([ $rc = 1 ] && [ ! -e "$T/cache/kernel-6.12-$ARCH-"* ] &&
	echo "$last" | grep -q "^run.sh: the 6.12 $ARCH guest build failed: 6.12 $ARCH: source step failed: missing $T/none"
	echo $?) "a failing 6.12 build ends with one line naming the step (exit $rc: $last)"
# Boot: the built guest with an initramfs of zeros, so the kernel finds no /init
g=$(sh "$TOP/guest-kernel/build.sh" --arch "$ARCH" --kernel 6.12 --print-dir 2>/dev/null)
d=$T/noboot
mkdir -p "$T/badguest" && cp "$g"/* "$T/badguest/" &&
	dd if=/dev/zero of="$T/badguest/initrd.cpio" bs=4096 count=1 2>/dev/null
FT_GUEST_DIR=$T/badguest FT_GUEST_TIMEOUT=300 sh "$RUN" --arch "$ARCH" --kernel 6.12 \
	--out "$d" -- anon-touch 1M > "$d.out" 2> "$d.err"
rc=$? last=$(tail -n 1 "$d.err")
ok $([ $rc = 4 ] && echo "$last" | grep -q "^run.sh: the 6.12 $ARCH guest kernel did not boot to /init (boot step): .*anic"
	echo $?) "a 6.12 guest that does not boot ends with one line naming the step (exit $rc: $last)"
done_testing
