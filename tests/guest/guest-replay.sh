#!/bin/sh
# Guest test: replay in real guests, and the simulator against them (issue 7).
#
# Six guests in all: one recording under order0 of the five bundled workloads run one after
# another by the guest's shell (anon-touch, sparse, pf-loop, malloc-churn with small sizes,
# fork-cow), then `foliotrace guest replay` of every recorded process under order0, mcpage:2,
# mcpage:4, the descending mthp:8K,16K,32K,64K and thp (the kernel's own THP), one guest each. Then
# `foliotrace compare --sim-vs-real`, in total and per workload (--comm):
#   - the order0 replay takes the recording's fault count within 1%;
#   - for every policy, simulated faults within 1% and peak RSS within 2% of the guest's.
# FT_TEST_ARCH=arm64 runs it on the arm64 guest; FT_TEST_KERNEL=6.12 records and replays
# on the 6.12 guest (upstream mTHP), where the policies are those 6.12 runs (mthp:16K,32K,64K
# for the descending list: no order-1 anonymous mTHP), and each replay's per-size
# anon_fault_alloc counters (the kernel's own witness) equal the guest trace's anon_fault
# events of that order, every process's.
. "$(dirname "$0")/../test-lib.sh"
. "$(dirname "$0")/guest-lib.inc"

# per workload: its processes by name (comm); malloc-churn re-executes itself through
# /proc/self/exe and the trace names both it and the guest's `sh -c` shell exe, so it is
# selected by the pid its RESULT line prints
WORKLOADS="anon-touch sparse pf-loop malloc-churn fork-cow"
POLICIES="order0 mcpage:2 mcpage:4 mthp:8K,16K,32K,64K thp"
[ "$KERNEL" = 6.1 ] || POLICIES="order0 mcpage:2 mcpage:4 mthp:16K,32K,64K thp"
NPOL=$(echo $POLICIES | wc -w)
# per-size counter checks on 6.12: one per policy but order0
NMTHP=0
[ "$KERNEL" = 6.1 ] || NMTHP=$((NPOL - 1))
SCRIPT="anon-touch 16M && sparse --size 64M --touches 2048 && pf-loop --size 4M --loops 4 &&
malloc-churn --size 8M --loops 2 && fork-cow --size 4M"
SCRIPT=$(echo "$SCRIPT" | tr '\n' ' ')
DB=$T/gr.db

# 3 + 2 + NPOL (linked) + 1 (adaptive) + NPOL x (1 + 2 x (1 + 5)) + 1 (thp fallbacks) + 2
# + 2 (realloc)
plan $((3 + 2 + NPOL + 1 + NPOL * 13 + 1 + 2 + NMTHP + 2))

"$FT" record --arch "$ARCH" --kernel "$KERNEL" -o "$DB" -- sh -c "$SCRIPT" > "$T/record.out" 2> "$T/record.err"
rc=$?
ok $rc "recorded the five workloads under order0 in one $ARCH $KERNEL guest"
[ $rc = 0 ] || sed 's/^/#   /' "$T/record.err" | tail -8
out=$(ls -d "$DB.ctf"/*-sh 2>/dev/null | head -n 1)
n=$(grep -c '^RESULT .* status=0$' "$out/workload.out" 2>/dev/null)
ok $([ "$n" = 6 ]; echo $?) "every workload printed RESULT status=0 (fork-cow twice; got $n)"
sql() { "$FT" query "$DB" --format csv sql "$1" | tail -n +2; }
ok $([ "$(sql "SELECT policy FROM trace WHERE trace_id = 1")" = order0 ]; echo $?) \
	"trace 1 was recorded under order0"

PARGS=$(for p in $POLICIES; do printf -- '--policy %s ' "$p"; done)
"$FT" guest replay "$DB" --arch "$ARCH" --kernel "$KERNEL" $PARGS \
	> "$T/replay.out" 2> "$T/replay.err"
rc=$?
ok $rc "guest replay under $(echo $POLICIES | tr ' ' ',') ($ARCH, $KERNEL, $(cat "$out/header/accel" 2>/dev/null))"
[ $rc = 0 ] || sed 's/^/#   /' "$T/replay.err" | tail -12
sed 's/^/# /' "$T/replay.out"
grep '^foliotrace: trace' "$T/replay.err" | sed 's/^/# /'
ok $([ "$(sql "SELECT count(*) FROM replay_run WHERE trace_id = 1 AND kind = 'guest'")" = $NPOL ]
	echo $?) "$NPOL replay_run rows of kind guest"

for p in $POLICIES; do
	g=$(sql "SELECT guest_trace_id FROM replay_run WHERE kind = 'guest' AND policy = '$p'")
	q="SELECT parent_trace_id = 1 AND policy = '$p' AND workload_status = 0 AND partial = 0"
	ok $([ -n "$g" ] && [ "$(sql "$q FROM trace WHERE trace_id = $g")" = 1 ]; echo $?) \
		"$p: guest trace $g is linked to trace 1, recorded under $p, the replayer exited 0"
done

# a simulation-only policy is simulated, and reported as such
"$FT" guest replay "$DB" --policy adaptive > "$T/adaptive.out" 2>&1
ok $([ $? = 0 ] && grep -q 'simulation-only' "$T/adaptive.out"; echo $?) \
	"adaptive: not booted, simulated instead, and said so"

# compare --sim-vs-real: total and per workload
"$FT" compare "$DB" --sim-vs-real > "$T/svr.txt" 2>&1
sed 's/^/# /' "$T/svr.txt" | grep -v 'fallback_\(alloc_failed\|uffd\|race\|nohugepage\) '
"$FT" compare "$DB" --sim-vs-real --format json > "$T/all.json" 2> "$T/all.err"
for w in $WORKLOADS; do
	sel="--comm $w"
	[ "$w" = malloc-churn ] &&
		sel="--pid $(sed -n 's/^RESULT malloc-churn pid=\([0-9]*\).*/\1/p' "$out/workload.out")"
	# compare only reads: the simulations of this selection are stored first
	"$FT" replay "$DB" $sel $PARGS > /dev/null 2>> "$T/all.err"
	"$FT" compare "$DB" --sim-vs-real $sel --format json > "$T/$w.json" 2>> "$T/all.err"
done
# val FILE POLICY METRIC FIELD
val() {
	jq -r --arg p "$2" --arg m "$3" --arg f "$4" \
		'.[] | select(.policy == $p and .metric == $m) | .[$f] | tostring' "$1" 2>/dev/null
}
err_within() { # err_within ERROR_PCT LIMIT
	[ -n "$1" ] && [ "$1" != null ] &&
		awk -v e="$1" -v l="$2" 'BEGIN { exit !(e <= l && e >= -l) }'
}

for p in $POLICIES; do
	if [ "$p" = order0 ]; then
		want=$(sql "SELECT sum(anon_faults + zero_wp) FROM process WHERE trace_id = 1")
		got=$(val "$T/all.json" order0 faults real)
		within_pct "${got:-0}" "${want:-1}" 1
		ok $? "order0: the replay takes the recording's fault count within 1% ($got/$want)"
	else
		l=$(val "$T/all.json" "$p" fault_latency_p50_ns_order_0 real)
		ok $([ -n "$l" ] && [ "$l" != null ]; echo $?) \
			"$p: real fault latency p50 per order ($l ns at order 0)"
	fi
	for f in all $WORKLOADS; do
		e=$(val "$T/$f.json" "$p" faults error_pct)
		s=$(val "$T/$f.json" "$p" faults sim) r=$(val "$T/$f.json" "$p" faults real)
		err_within "$e" 1
		ok $? "$p, $f: sim vs real faults within 1% (sim $s, real $r, error $e%)"
		e=$(val "$T/$f.json" "$p" peak_rss_bytes error_pct)
		s=$(val "$T/$f.json" "$p" peak_rss_bytes sim)
		r=$(val "$T/$f.json" "$p" peak_rss_bytes real)
		err_within "$e" 2
		ok $? "$p, $f: sim vs real peak RSS within 2% (sim $s, real $r, error $e%)"
	done
done

# 6.12: the kernel's own per-size counters (kind kernel: anon_fault_alloc per size, less the
# faults our trace gives to processes the replay did not replay) against the simulator's
# allocations of that order, and no fallback on either side
[ "$KERNEL" = 6.1 ] || for p in $POLICIES; do
	[ "$p" = order0 ] && continue
	rows=$(jq -r --arg p "$p" '.[] | select(.policy == $p and .kind == "kernel" and
		(.metric | startswith("kernel_anon_fault_alloc_"))) |
		"\(.metric | ltrimstr("kernel_anon_fault_alloc_")):\(.sim)/\(.real)/\(.error_pct)"' \
		"$T/all.json" 2>/dev/null | tr '\n' ' ')
	bad=$(jq -r --arg p "$p" '.[] | select(.policy == $p and .kind == "kernel" and
		(.metric | startswith("kernel_anon_fault_alloc_"))) |
		select(.error_pct == null or .error_pct > 1 or .error_pct < -1) | .metric' \
		"$T/all.json" 2>/dev/null)
	fb="$(val "$T/all.json" "$p" kernel_anon_fault_fallback sim)/$(val "$T/all.json" "$p" kernel_anon_fault_fallback real)"
	ok $([ -n "$rows" ] && [ -z "$bad" ] && [ "$fb" = 0/0 ]; echo $?) \
		"$p: the kernel's own anon_fault_alloc per size (sim/kernel/error%: $rows) within 1% of the simulator's, fallback $fb"
done

# thp: the kernel reports THP's fallback reasons (patch 0004) as the simulator does
fb=$(for r in vma_edge pte_populated nohugepage; do
	printf '%s:%s/%s ' $r "$(val "$T/all.json" thp fallback_$r sim)" "$(val "$T/all.json" thp fallback_$r real)"
done)
e=$(val "$T/all.json" thp fallback_vma_edge error_pct)
err_within "$e" 1
ok $? "thp: fallback reasons sim/real $fb(vma_edge error $e%)"

ok $(jq -e 'all(.[]; has("policy") and has("metric") and has("sim") and has("real") and
	has("error_pct"))' "$T/all.json" > /dev/null; echo $?) \
	"--format json: every row has policy, metric, sim, real, error_pct"
ok $([ "$(val "$T/all.json" adaptive:max=64K faults kind)" = sim-only ] &&
	[ "$(val "$T/all.json" adaptive:max=64K faults real)" = null ]; echo $?) \
	"adaptive is a simulation-only row, not left out"

# A buffer grown with mremap() again and again, as glibc's realloc() grows a large block
# (python3's lists): the SYNTHETIC realloc stream. From the second growth on, each move
# covers the moved mapping and the part mapped beside it, two VMAs the kernel does not merge,
# which 6.1 and 6.12 refuse to move in one call (EFAULT): the replayer moves them one by one.
RA=$T/ra.db
"$BUILD/testprogs/synth-db" "$RA" realloc 1 3000 > /dev/null
"$FT" guest replay "$RA" --arch "$ARCH" --kernel "$KERNEL" --policy order0 \
	> "$T/ra.out" 2> "$T/ra.err"
rc=$?
ok $rc "guest replay of the SYNTHETIC realloc stream (10 moves) under order0 ($ARCH, $KERNEL)"
[ $rc = 0 ] || sed 's/^/#   /' "$T/ra.err" | tail -4
"$FT" compare "$RA" --sim-vs-real --format json > "$T/ra.json" 2> /dev/null
s=$(val "$T/ra.json" order0 faults sim) r=$(val "$T/ra.json" order0 faults real)
ok $([ "$s" = 3000 ] && [ "$r" = 3000 ]; echo $?) \
	"  ... every one of its 3000 first touches a fault in the guest (sim $s, real $r)"
done_testing
