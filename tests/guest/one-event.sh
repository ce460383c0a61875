#!/bin/sh
# Guest test: one event per anonymous fault (kernel patch 0006, docs/events.md). Guests record
# with anon_alloc enabled besides anon_fault (FT_ANON_ALLOC=1): the ALLOC records the
# collector makes from anon_fault's alloc_orders and pfn must be, one for one and in order,
# the real anon_alloc events babeltrace2 reads from the same trace (order, success, block
# address, pfn), for the workload's processes. Cases: anon-touch 64M under
# mthp:32K,64K,128K after `--fragment order:3,pct:80,seed:7` (no free block above 32K in
# most of memory: tries at 128K and 64K fail, then 32K), and pf-loop under order0 (the common case). Then a recording with
# run.sh's default events: no anon_alloc in the trace, an ALLOC record per fault anyway.
# Races are not provoked (the workloads are single-threaded); the synthetic
# tests/cli/ingest-oneevent.sh covers their encoding.
. "$(dirname "$0")/../test-lib.sh"
. "$(dirname "$0")/guest-lib.inc"
. "$(dirname "$0")/../cli/trace-lib.inc"

plan 11
ALLOCS=$BUILD/testprogs/stream-allocs

# trace_dir DB: the CTF trace directory record kept beside DB
trace_dir() { ls -d "$1.ctf"/*/ | head -n 1; }
# workload_pids DB: the workload's pids as an ERE alternation
workload_pids() {
	"$FT" query "$1" --format csv sql "SELECT DISTINCT pid FROM process WHERE workload = 1" |
		tail -n +2 | paste -sd'|' -
}
# same DB NAME: the stored ALLOC records of the workload equal babeltrace2's anon_alloc events
same() {
	_d=$(trace_dir "$1") _p=$(workload_pids "$1")
	bt_allocs "$_d/trace" | grep -E "^pid=($_p) " > "$T/$2.bt-allocs"
	"$ALLOCS" "$1" | grep -E "^pid=($_p) " > "$T/$2.db-allocs"
	diag "$2: workload pids $_p; $(grep -c . "$T/$2.bt-allocs") anon_alloc events, $(grep -c . "$T/$2.db-allocs") ALLOC records"
	cmp -s "$T/$2.bt-allocs" "$T/$2.db-allocs" && [ -s "$T/$2.bt-allocs" ] && return 0
	diff "$T/$2.bt-allocs" "$T/$2.db-allocs" | head -5 | sed 's/^/#   /'
	return 1
}

f=$T/frag.db
FT_ANON_ALLOC=1 "$FT" record --arch "$ARCH" --mem 512M --policy mthp:32K,64K,128K \
	--fragment order:3,pct:80,seed:7 -o "$f" -- anon-touch 64M > "$T/frag.out" 2>&1
ok $? "fragmented mthp 32K-128K: record with anon_alloc exits 0 ($ARCH)" || tail -5 "$T/frag.out" | sed 's/^/#   /'
fd=$(trace_dir "$f")
ok $([ "$(cat "$fd/header/discarded_events" 2>/dev/null)" = 0 ]; echo $?) \
	"fragmented mthp 32K-128K: LTTng discarded no event"
same "$f" frag
ok $? "fragmented mthp 32K-128K: ALLOC records from anon_fault = the real anon_alloc events, in order"
failed=$(grep -c 'success=0' "$T/frag.bt-allocs") large=$(grep -c 'order=[345] success=1' "$T/frag.bt-allocs")
ok $([ "$failed" -gt 0 ] && [ "$large" -gt 0 ]; echo $?) \
	"fragmented mthp 32K-128K: the comparison covers failed tries ($failed) and large blocks ($large)"
multi=$(grep -c 'order=[34] success=0' "$T/frag.bt-allocs")
ok $([ "$multi" -gt 0 ]; echo $?) \
	"fragmented mthp 32K-128K: faults that failed more than one order ($multi failed tries below 128K)"

p=$T/pf.db
FT_ANON_ALLOC=1 "$FT" record --arch "$ARCH" -o "$p" -- pf-loop --size 16M --loops 2 \
	> "$T/pf.out" 2>&1
ok $? "pf-loop order0: record with anon_alloc exits 0" || tail -5 "$T/pf.out" | sed 's/^/#   /'
same "$p" pf
ok $? "pf-loop order0: ALLOC records from anon_fault = the real anon_alloc events, in order"
n=$(grep -c 'order=0 success=1' "$T/pf.bt-allocs")
ok $([ "$n" -ge 8192 ]; echo $?) "pf-loop order0: an order-0 allocation per fault compared ($n >= 8192)"

# run.sh's default events: one event per fault, the allocations made from it
d=$T/default.db
"$FT" record --arch "$ARCH" -o "$d" -- pf-loop --size 16M --loops 2 > "$T/default.out" 2>&1
ok $? "pf-loop order0, default events: record exits 0" || tail -5 "$T/default.out" | sed 's/^/#   /'
dd=$(trace_dir "$d")
a=$(babeltrace2 "$dd/trace" 2>/dev/null | grep -c ' anon_alloc: ')
ok $([ "$a" = 0 ]; echo $?) "default events: the trace has no anon_alloc event ($a)"
pids=$(workload_pids "$d")
r=$("$ALLOCS" "$d" | grep -E "^pid=($pids) " | grep -c 'order=0 success=1')
fl=$("$FT" query "$d" faults --format csv |
	awk -F, -v p="^($pids)\$" '$2 ~ p && $8 == 0 && $7 > 0 { n++ } END { print n + 0 }')
ok $([ "$r" -ge 8192 ] && [ "$r" -ge "$fl" ]; echo $?) \
	"default events: the workload's $r ALLOC records cover its $fl faults that mapped a new page (>= 8192)"
done_testing
