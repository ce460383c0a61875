#!/bin/sh
# Guest test: arm64 contpte on the 6.12 guest (issue 25). Each bundled workload is recorded
# under an mTHP policy with run.sh --pagemap: ft-launch reads every workload process's page
# map at its exit (guest-kernel/launch-pagemap.h, /proc/PID/pagemap and /proc/kpageflags as
# tools/mm/thpmaps --cont reads them) and counts the 64K blocks contpte can fold: 16
# present anonymous PTEs of one folio, 16 consecutive frames, the first 64K-aligned. The
# recording replayed under the same policy must give the same count as the simulator's
# contpte_runs_exit (runs intact at each address space's end), summed over the workload's
# address spaces: ft-launch reads one at each exit and at each exec that replaces one
# (malloc-churn re-executes itself without ASLR: its first address space, randomized, ends
# at that exec, and may hold a contpte block of its own).
FT_TEST_KERNEL=6.12
FT_TEST_ARCH=${FT_TEST_ARCH:-arm64}
. "$(dirname "$0")/../test-lib.sh"
. "$(dirname "$0")/guest-lib.inc"

# POLICY|CMD|MIN: MIN the fewest blocks the page maps must show (pf-loop unmaps its
# buffer before it exits, fork-cow's writes after the fork copy 4K pages out of every
# block: 0 on both sides there)
CASES="mthp:64K|anon-touch 16M|256
mthp:64K|sparse --size 64M --touches 2048|1
mthp:64K|pf-loop --size 4M --loops 4|0
mthp:64K|fork-cow --size 4M|0
mthp:16K,64K|malloc-churn --size 8M --loops 2|1
mcpage:5|anon-touch 16M|256"
plan $(( $(echo "$CASES" | wc -l) * 3 ))

i=0
while IFS='|' read -r pol cmd min; do
	i=$((i + 1))
	d=$T/c$i db=$T/c$i.db
	# shellcheck disable=SC2086
	sh "$RUN" --arch "$ARCH" --kernel 6.12 --policy "$pol" --pagemap --out "$d" -- $cmd \
		> "$d.out" 2> "$d.err"
	rc=$?
	ok $([ $rc = 0 ] && [ -s "$d/header/pagemap" ]; echo $?) \
		"$pol, $cmd: ran on the $ARCH 6.12 guest with page maps at exit (exit $rc)"
	[ $rc = 0 ] || sed 's/^/#   /' "$d.err" | tail -5
	sed 's/^/# /' "$d/header/pagemap" 2>/dev/null
	bad=$(grep -c 'error=' "$d/header/pagemap" 2>/dev/null)
	real=$(sed -n 's/.* contpte_blocks=\([0-9]*\)$/\1/p' "$d/header/pagemap" 2>/dev/null |
		awk '{ s += $1 } END { print s + 0 }')
	"$FT" ingest -q -o "$db" "$d" 2> "$d.ingest"
	sim=$("$FT" replay "$db" --policy "$pol" --format json -n 2> /dev/null |
		jq -r --arg p "$pol" '.runs[] | select(.policy == $p) | .metrics.contpte_runs_exit')
	procs=$(grep -c '^PAGEMAP' "$d/header/pagemap" 2>/dev/null)
	wl=$(sql_rows "$db" "SELECT count(*) FROM process WHERE workload = 1")
	ok $([ "${bad:-1}" = 0 ] && [ "$procs" = "$wl" ]; echo $?) \
		"$pol, $cmd: one page map per workload address space ($procs, $wl in the trace)"
	ok $([ -n "$sim" ] && [ "$sim" = "$real" ] && [ "$real" -ge "$min" ]; echo $?) \
		"$pol, $cmd: contpte-eligible 64K blocks at exit: page maps $real (at least $min), simulator's contpte_runs_exit ${sim:-none}"
done <<EOF
$CASES
EOF
done_testing
