#!/bin/sh
# ingest-oneevent.sh - one event per fault (kernel patch 0006, docs/events.md): an anon_fault
# with alloc_orders and pfn stands for the fault's anon_alloc events. Four SYNTHETIC
# fixtures of one story (tests/data/make-synthetic.py 1000 --alloc-cases, --allocs=events,
# fields, both, packed): its faults fail allocations (then map 4K, or nothing), lose races
# after allocating, and take PMDs without an anon_alloc. The ALLOC records stored from the
# fields must be, one for one and in order, the anon_alloc events babeltrace2 reads from the
# events fixture; with both in one trace, no record twice. The packed fixture is the probe's
# packed layout (anon_fault's pid_tid and info, docs/events.md): the same records. A real
# trace of the old format keeps its own anon_alloc events.
. "$(dirname "$0")/../test-lib.sh"
. "$(dirname "$0")/trace-lib.inc"

plan 15
D=$TOP/tests/data
ALLOCS=$BUILD/testprogs/stream-allocs

for f in events fields both packed; do
	"$FT" ingest -q -o "$T/$f.db" "$D/synthetic-allocs-$f" > "$T/$f.err" 2>&1
	ok $? "ingest of the $f fixture exits 0"
	"$ALLOCS" "$T/$f.db" > "$T/$f.allocs"
done

bt_allocs "$D/synthetic-allocs-events/trace" > "$T/bt.allocs"
n=$(grep -c . "$T/bt.allocs")
fails=$(grep -c 'success=0' "$T/bt.allocs")
big=$(grep -c 'order=4 success=1' "$T/bt.allocs")
ok $([ "$n" -gt 0 ] && [ "$fails" -gt 0 ] && [ "$big" -gt 0 ]; echo $?) \
	"the story has allocations ($n), failed ones ($fails) and order-4 ones ($big)"
ok $(cmp -s "$T/bt.allocs" "$T/events.allocs"; echo $?) \
	"events: the stored ALLOC records are babeltrace2's anon_alloc events ($(grep -c . "$T/events.allocs") of $n)"
ok $(cmp -s "$T/bt.allocs" "$T/fields.allocs"; echo $?) \
	"fields: the ALLOC records made from anon_fault are those events, in order ($(grep -c . "$T/fields.allocs") of $n)"
ok $(cmp -s "$T/bt.allocs" "$T/both.allocs"; echo $?) \
	"both: anon_alloc events beside the fields are not stored again ($(grep -c . "$T/both.allocs") of $n)"
ok $(cmp -s "$T/bt.allocs" "$T/packed.allocs"; echo $?) \
	"packed: the ALLOC records unpacked from info are those events, in order ($(grep -c . "$T/packed.allocs") of $n)"
# and the events counted as they are in the trace: anon_alloc only where it is
c_fields=$(db_counts "$T/fields.db" | awk '$1 == "anon_alloc" { print $2 }')
c_both=$(db_counts "$T/both.db" | awk '$1 == "anon_alloc" { print $2 }')
ok $([ -z "$c_fields" ] && [ "$c_both" = "$n" ]; echo $?) \
	"event counts: no anon_alloc in fields, $n in both (${c_fields:-none}, ${c_both:-none})"

# the rest of the stream is the same: faults, and what replay makes of them
"$FT" query "$T/events.db" faults --format csv > "$T/events.faults"
"$FT" query "$T/fields.db" faults --format csv > "$T/fields.faults"
ok $([ -s "$T/events.faults" ] && cmp -s "$T/events.faults" "$T/fields.faults"; echo $?) \
	"fields: the fault records equal the events fixture's ($(grep -c . "$T/fields.faults") lines)"
"$FT" query "$T/packed.db" faults --format csv > "$T/packed.faults"
ok $(cmp -s "$T/events.faults" "$T/packed.faults"; echo $?) \
	"packed: the fault records (pid, tid, write, order, nr_ptes, zero page, fallback) equal them too"
for f in events fields packed; do
	"$FT" replay "$T/$f.db" --policy mcpage:4 --policy mthp:16K,32K,64K --frag buddyinfo \
		--dry-run --format csv 2> "$T/$f.replay.err" | grep -v '^elapsed_ns,' > "$T/$f.replay"
done
ok $([ "$(grep -c . "$T/events.replay")" -gt 10 ] && cmp -s "$T/events.replay" "$T/fields.replay"
     echo $?) "fields: replay --frag buddyinfo gives the events fixture's metrics (elapsed time aside)"
ok $(cmp -s "$T/events.replay" "$T/packed.replay"; echo $?) \
	"packed: and the packed fixture's too"

# a real guest trace of the old format: its anon_alloc events stored as they are
r=$D/x86_64-anon-touch-mcpage2
"$FT" ingest -q -o "$T/real.db" "$r" > /dev/null 2>&1
bt_allocs "$r/trace" > "$T/real.bt"
"$ALLOCS" "$T/real.db" > "$T/real.allocs"
ok $([ -s "$T/real.bt" ] && cmp -s "$T/real.bt" "$T/real.allocs"; echo $?) \
	"old format ($(basename "$r")): ALLOC records are its $(grep -c . "$T/real.bt") anon_alloc events"
done_testing
