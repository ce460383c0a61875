#!/bin/sh
# Guest test: the deterministic guest clock (issue 24). anon-touch 64M recorded twice with
# `foliotrace record --clock icount`: both headers and `query summary` say clock icount
# (accelerator tcg), and the summed anon_fault latency of the workload's processes is the
# same within 1% in the two recordings. The sums are read from each database by
# fault-latency.py (Python's sqlite3 and its own event_chunk decoder, not foliotrace's),
# which is first checked against babeltrace2's reading of the CTF trace itself. On x86_64
# the guest has 1 cpu under icount (docs/guest.md, "Clock"), on arm64 2.
. "$(dirname "$0")/../test-lib.sh"
. "$(dirname "$0")/guest-lib.inc"

plan 9
want_cpus=2
[ "$ARCH" = x86_64 ] && want_cpus=1
for r in 1 2; do
	s=$(date +%s)
	"$FT" record --arch "$ARCH" --clock icount -o "$T/r$r.db" -- anon-touch 64M \
		> "$T/r$r.out" 2> "$T/r$r.err"
	ok $? "record $r of anon-touch 64M under --clock icount ($ARCH, $(( $(date +%s) - s )) s)"
	[ -s "$T/r$r.err" ] && sed 's/^/#   /' "$T/r$r.err" | tail -3
done
ctf1=$(ls -d "$T/r1.db.ctf"/*/ 2>/dev/null | head -n 1)
ctf2=$(ls -d "$T/r2.db.ctf"/*/ 2>/dev/null | head -n 1)
hdr() { cat "$1/header/$2" 2>/dev/null; }
ok $([ "$(hdr "$ctf1" clock)" = icount ] && [ "$(hdr "$ctf2" clock)" = icount ] &&
     [ "$(hdr "$ctf1" accel)" = tcg ] && [ "$(hdr "$ctf2" accel)" = tcg ]; echo $?) \
	"both headers: clock icount, accel tcg ($(hdr "$ctf1" clock)/$(hdr "$ctf1" accel), $(hdr "$ctf2" clock)/$(hdr "$ctf2" accel))"
for r in 1 2; do
	"$FT" query "$T/r$r.db" summary --format json > "$T/s$r.json"
done
check "query summary JSON of both traces: clock icount" python3 -c "
import json, sys
sys.exit(any(json.load(open('$T/s%d.json' % r))['clock'] != 'icount' for r in (1, 2)))"
"$FT" query "$T/r1.db" summary > "$T/s1.txt"
check "query summary table: clock icount" grep -Eq '^clock +icount *$' "$T/s1.txt"
ok $([ "$(hdr "$ctf1" cpus)" = $want_cpus ] && [ "$(hdr "$ctf2" cpus)" = $want_cpus ]; echo $?) \
	"the guests ran $want_cpus cpus under icount ($(hdr "$ctf1" cpus), $(hdr "$ctf2" cpus))"

# the independent reading of the database, checked against babeltrace2's of the trace
py=$(python3 "$TOP/tests/guest/fault-latency.py" "$T/r1.db" 1)
# (guest-lib.inc's events: babeltrace2's text, a batch's records one line each)
bt=$(events "${ctf1%/}" | grep '^anon_fault ' |
	sed -n 's/.*latency_ns=\([0-9]*\).*/\1/p' | awk '{ n++; s += $1 } END { printf "faults=%d latency_sum_ns=%d", n, s }')
diag "run 1: database $py; babeltrace2 $bt"
ok $([ -n "$bt" ] && [ "${py% workload_faults=*}" = "$bt" ]; echo $?) \
	"run 1: the database's anon_fault count and latency sum equal babeltrace2's of the CTF trace"

f1=$(echo "$py" | sed -n 's/.*workload_faults=\([0-9]*\).*/\1/p')
l1=$(echo "$py" | sed -n 's/.*workload_latency_sum_ns=\([0-9]*\).*/\1/p')
py2=$(python3 "$TOP/tests/guest/fault-latency.py" "$T/r2.db" 1)
f2=$(echo "$py2" | sed -n 's/.*workload_faults=\([0-9]*\).*/\1/p')
l2=$(echo "$py2" | sed -n 's/.*workload_latency_sum_ns=\([0-9]*\).*/\1/p')
diag "workload anon_fault: run 1 ${f1:-?} faults, ${l1:-?} ns; run 2 ${f2:-?} faults, ${l2:-?} ns"
ok $([ "${f1:-0}" -ge 16384 ] && [ "${f2:-0}" -ge 16384 ] && within_pct "$f2" "$f1" 1; echo $?) \
	"the workload's faults: at least 16384 in each run, the same within 1% (${f1:-?}, ${f2:-?})"
ok $([ "${l1:-0}" -gt 0 ] && within_pct "${l2:-0}" "$l1" 1; echo $?) \
	"the workload's summed anon_fault latency is the same within 1% (${l1:-?} and ${l2:-?} ns)"
done_testing
