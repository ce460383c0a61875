#!/bin/sh
# tests/cli/workloads.sh - the bundled workloads (workloads/*.c, docs/workloads.md), run on
# the host as x86_64 static binaries with small sizes: their RESULT lines, exact touched
# counts, option parsing, 2M alignment of the VMA and determinism for a given seed.
#
# Fault counts (minflt) are asserted exactly only in the guest tests, under a known policy.
# On the host THP or mTHP may be enabled, and some hosts back read faults with a real page
# instead of the zero page, so minflt is asserted here only for --nohugepage writes (no
# THP or mTHP there, one fault per page) and with a small margin for a host with NUMA
# balancing, which adds hinting faults. pagemap PFNs need root: the tests run as root.
. "$(dirname "$0")/../test-lib.sh"

W="$TOP/build/workloads/x86_64"
plan 99

# run NAME ARGS...: run a workload; stdout in $T/out, stderr in $T/err, exit status in $rc
run() {
	_ctx="$*"
	_w=$1; shift
	"$W/$_w" "$@" >"$T/out" 2>"$T/err"
	rc=$?
}
# val KEY [FILE]: the value of KEY in the last RESULT line of FILE ($T/out)
val() {
	sed -n "s/^RESULT .* $1=\([^ ]*\).*/\1/p" "${2:-$T/out}" | tail -1
}
# is KEY WANT [FILE]: the RESULT field KEY equals WANT
is() {
	_g=$(val "$1" "${3:-}")
	[ "$_g" = "$2" ]
	_s=$?
	ok $_s "$_ctx: $1=$2"
	[ $_s = 0 ] || diag "got $1='$_g'; stdout: $(cat "${3:-$T/out}"); stderr: $(cat "$T/err")"
}
# within KEY LO HI [FILE]: LO <= KEY <= HI
within() {
	_g=$(val "$1" "${4:-}")
	[ -n "$_g" ] && [ "$_g" -ge "$2" ] && [ "$_g" -le "$3" ]
	_s=$?
	ok $_s "$_ctx: $2 <= $1 <= $3"
	[ $_s = 0 ] || diag "got $1='$_g'"
}
# status WANT: the last run exited WANT
status() {
	[ "$rc" = "$1" ]
	_s=$?
	ok $_s "$_ctx: exit $1"
	[ $_s = 0 ] || diag "exit $rc; stderr: $(cat "$T/err")"
}
# one_result: exactly one line on stdout, a RESULT line ending in status=0
one_result() {
	[ "$(wc -l <"$T/out")" = 1 ] && grep -q '^RESULT [a-z-]* .* status=0$' "$T/out"
	ok $? "$_ctx: one RESULT line, status=0"
}

for w in anon-touch pf-loop malloc-churn sparse fork-cow clockres; do
	[ -x "$W/$w" ]
	ok $? "$w is built (make workloads)"
done

# anon-touch: exact counts, stride arithmetic, size suffixes, alignment.
run anon-touch 4M --nohugepage
status 0
one_result
is size 4194304
is touched 1024
is writes 1024
is majflt 0
within minflt 1024 1040
addr=$(val addr)
[ -n "$addr" ] && [ $((addr % 2097152)) = 0 ]
ok $? "anon-touch: addr $addr is 2M aligned"

run anon-touch 4M --nohugepage --read-first
status 0
is touched 1024
within minflt 1024 2064

# --between: the buffer read between two writes is faulted in before the measured phase
run anon-touch 4M --nohugepage --between 64K
status 0
is touched 1024
within minflt 1024 1040

run anon-touch 1M --stride 100
status 0
is writes 10486
is touched 256

run anon-touch 1M --stride 6000
is writes 175
is touched 175

run anon-touch 12K
is size 12288
is touched 3

run anon-touch 1G --stride 1G
status 0
is size 1073741824
is touched 1

# --pagemap-check: order 0 counts every present page as a block of its own; blocks are the
# naturally aligned blocks inside the VMA whether touched or not. --nohugepage: only the
# touched pages are present whatever this host's THP and per-size mTHP knobs say (a 16K
# `always` maps each untouched neighbour too).
run anon-touch 4M --stride 8K --nohugepage --pagemap-check 0
status 0
is blocks 1024
is contig_blocks 512
is contig_aligned 512
run anon-touch 4M --pagemap-check 9
status 0
is contig_order 9
is blocks 2
within contig_blocks 0 2
run anon-touch 4M --pagemap-check 2
is blocks 256
within contig_blocks 0 256

# --hold: the VMA is exactly [addr, addr + SIZE) and has no neighbour on either side.
"$W/anon-touch" 4M --hold 10 >"$T/hold.out" 2>&1 &
hp=$!
i=0
while [ $i -lt 100 ] && ! grep -q '^RESULT' "$T/hold.out"; do
	sleep 0.1
	i=$((i + 1))
done
cp "/proc/$hp/maps" "$T/maps" 2>/dev/null
kill "$hp" 2>/dev/null
wait "$hp" 2>/dev/null
addr=$(val addr "$T/hold.out")
_ctx="anon-touch --hold"
if [ -n "$addr" ] && [ -s "$T/maps" ]; then
	start=$((addr)) want_end=$((addr + 4194304)) prev_end=0 found=0 next_start=
	while IFS='- ' read -r s e rest; do
		s=$((0x$s)) e=$((0x$e))
		if [ $found = 1 ] && [ -z "$next_start" ]; then
			next_start=$s
		fi
		if [ $s = $start ]; then
			found=1 end=$e gap_below=$((s - prev_end))
		fi
		prev_end=$e
	done <"$T/maps"
	[ $found = 1 ] && [ "$end" = "$want_end" ]
	ok $? "$_ctx: the VMA at $addr spans exactly 4M"
	[ $found = 1 ] && [ "$gap_below" -gt 0 ] &&
		{ [ -z "$next_start" ] || [ "$next_start" -gt "$end" ]; }
	ok $? "$_ctx: no VMA adjacent to it"
else
	ok 1 "$_ctx: result line and /proc/PID/maps while holding"
	ok 1 "$_ctx: no VMA adjacent to it"
fi

# Usage errors exit 2 with a message; runtime success exits 0.
for args in "" "4M extra" "12345" "4X" "0" "4M --stride 0" "4M --pagemap-check 99" \
	"4M --hold -1" "4M --bogus"; do
	# shellcheck disable=SC2086 # split on purpose
	run anon-touch $args
	[ $rc = 2 ] && [ -s "$T/err" ] && [ ! -s "$T/out" ]
	ok $? "anon-touch $args: usage error, exit 2"
done
for w in anon-touch pf-loop malloc-churn sparse fork-cow clockres; do
	run $w --help
	[ $rc = 0 ] && grep -q "^usage: $w" "$T/out"
	ok $? "$w --help"
done

# pf-loop: touched = loops * pages.
run pf-loop --size 1M --loops 3
status 0
one_result
is touched 768
is loops 3
run pf-loop
is touched 32768
run pf-loop --size 12345
status 2

# sparse: distinct pages; touching every page hits every block; same seed, same pages.
run sparse --size 8M --touches 2048
status 0
one_result
is touched 2048
is distinct_64k 128
is distinct_2m 4
within minflt 1 2048
run sparse --size 64M --touches 300 --seed 42
is touched 300
sed 's/ minflt=.*//; s/ pid=[0-9]*//' "$T/out" >"$T/sparse.1"
run sparse --size 64M --touches 300 --seed 42
sed 's/ minflt=.*//; s/ pid=[0-9]*//' "$T/out" >"$T/sparse.2"
cmp -s "$T/sparse.1" "$T/sparse.2"
ok $? "sparse: the same seed gives the same blocks"
run sparse --size 8M --touches 2049
status 2

# fork-cow: one line per process, the child's first.
run fork-cow --size 1M
status 0
grep '^RESULT fork-cow pid=[0-9]* role=child ' "$T/out" >"$T/child"
grep '^RESULT fork-cow pid=[0-9]* role=parent ' "$T/out" >"$T/parent"
[ "$(wc -l <"$T/out")" = 2 ] && [ "$(sed -n 1p "$T/out")" = "$(cat "$T/child")" ]
ok $? "fork-cow: two RESULT lines, the child's first"
is touched 128 "$T/child"
is status 0 "$T/child"
is touched 256 "$T/parent"
is child_status 0 "$T/parent"
is status 0 "$T/parent"
is child_pid "$(val pid "$T/child")" "$T/parent"
within minflt 128 144 "$T/child"
within minflt 1 272 "$T/parent"

# malloc-churn: bookkeeping adds up and a seed fixes the whole sequence.
run malloc-churn --size 8M --loops 2
status 0
one_result
is aslr 0
is touched_bytes "$(val requested)"
is allocs $(($(val large) + $(val small)))
sed 's/ minflt=.*//; s/ pid=[0-9]*//' "$T/out" >"$T/churn.1"
run malloc-churn --size 8M --loops 2
sed 's/ minflt=.*//; s/ pid=[0-9]*//' "$T/out" >"$T/churn.2"
cmp -s "$T/churn.1" "$T/churn.2"
ok $? "malloc-churn: the same seed gives the same allocations"
run malloc-churn --size 8M --loops 1 --touch-fraction 0
status 0
is writes 0
is touched_bytes 0
run malloc-churn --touch-fraction 1.5
status 2

# clockres: the clock moves, and the counts are consistent.
run clockres --samples 1000
status 0
one_result
is samples 1000
within distinct 2 1000
within min_delta_ns 1 1000000000
[ -n "$(val clocksource)" ]
ok $? "clockres: names a clocksource ($(val clocksource))"
run clockres --samples 1
status 2

done_testing
