#!/bin/sh
# ingest-oneevent.sh - one event per fault (kernel patch 0006, docs/events.md): an anon_fault
# with alloc_orders and pfn stands for the fault's anon_alloc events. Four SYNTHETIC
# fixtures of one story (tests/data/make-synthetic.py 1000 --alloc-cases, --allocs=events,
# fields, both, packed): its faults fail allocations (then map 4K, or nothing), lose races
# after allocating, and take PMDs without an anon_alloc. The ALLOC records stored from the
# fields must be, one for one and in order, the anon_alloc events babeltrace2 reads from the
# events fixture; with both in one trace, no record twice. The packed fixture is the probe's
# packed layout (anon_fault's pid_tid and info, docs/events.md): the same records. The batch
# fixture writes those packed faults as kernel patch 0008 does, in anon_fault_batch events of
# up to 7 records with their own times (make-synthetic.py's batched()): the same records
# again, in the parallel ingest as in the serial one; a damaged batch is refused with
# nothing stored. A real trace of the old format keeps its own anon_alloc
# events.
. "$(dirname "$0")/../test-lib.sh"
. "$(dirname "$0")/trace-lib.inc"

plan 23
D=$TOP/tests/data
ALLOCS=$BUILD/testprogs/stream-allocs

for f in events fields both packed batch; do
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
ok $(cmp -s "$T/bt.allocs" "$T/batch.allocs"; echo $?) \
	"batch: the ALLOC records unpacked from the batches' records are those events, in order ($(grep -c . "$T/batch.allocs") of $n)"
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
"$FT" query "$T/batch.db" faults --format csv > "$T/batch.faults"
nb=$(babeltrace2 "$D/synthetic-allocs-batch/trace" 2>/dev/null | grep -c ' anon_fault_batch: ')
ok $([ "$nb" -gt 100 ] && cmp -s "$T/events.faults" "$T/batch.faults"; echo $?) \
	"batch: the fault records of its $nb batches equal them too"
for f in events fields packed batch; do
	"$FT" replay "$T/$f.db" --policy mcpage:4 --policy mthp:16K,32K,64K --frag buddyinfo \
		--dry-run --format csv 2> "$T/$f.replay.err" | grep -v '^elapsed_ns,' > "$T/$f.replay"
done
ok $([ "$(grep -c . "$T/events.replay")" -gt 10 ] && cmp -s "$T/events.replay" "$T/fields.replay"
     echo $?) "fields: replay --frag buddyinfo gives the events fixture's metrics (elapsed time aside)"
ok $(cmp -s "$T/events.replay" "$T/packed.replay"; echo $?) \
	"packed: and the packed fixture's too"
ok $(cmp -s "$T/events.replay" "$T/batch.replay"; echo $?) \
	"batch: and the batch fixture's too"
bt_counts "$D/synthetic-allocs-batch/trace" > "$T/batch.btc"
db_counts "$T/batch.db" | sort > "$T/batch.dbc"
ok $(sort "$T/batch.btc" | cmp -s - "$T/batch.dbc"; echo $?) \
	"batch: the event counts are babeltrace2's, a batch counted once ($(grep anon_fault_batch "$T/batch.dbc"))"

# a REAL batched recording (pf-loop, 16K sub-buffers: many packets, with LTTng's indexes):
# the parallel ingest (a piece per packet, decoded in threads) stores the serial one's
# stream, and its
# faults are babeltrace2's count of the batches' records
r=$TOP/tests/data-packets/x86_64-pf-loop-batch
chunks() { sqlite3 "$1" "SELECT hex(data) FROM event_chunk ORDER BY trace_id, chunk"; }
rm -f "$T/pieces.log"
FT_TEST_INGEST_PIECES_LOG="$T/pieces.log" FT_TEST_INGEST_PIECE_BYTES=1 \
	"$FT" ingest -q -o "$T/batch-par.db" "$r" > /dev/null 2>&1
FT_INGEST_SERIAL=1 "$FT" ingest -q -o "$T/batch-ser.db" "$r" > /dev/null 2>&1
recs=$(babeltrace2 "$r/trace" 2>/dev/null | grep ' anon_fault_batch: ' |
	sed 's/.*_ts_length = \([0-9]*\),.*/\1/' | awk '{ n += $1 } END { print n + 0 }')
stored=$(sqlite3 "$T/batch-par.db" "SELECT sum(anon_faults) FROM process")
pieces=$(sed -n 's/^pieces=\([0-9]*\) .*/\1/p' "$T/pieces.log" 2>/dev/null)
ok $([ "${pieces:-0}" -gt 2 ] && [ -n "$(chunks "$T/batch-ser.db")" ] &&
     [ "$(chunks "$T/batch-par.db")" = "$(chunks "$T/batch-ser.db")" ] &&
     [ "$recs" -gt 2048 ] && [ "$stored" = "$recs" ]; echo $?) \
	"real batches: the parallel ingest ($(cat "$T/pieces.log" 2>/dev/null)) stores the serial one's event chunks, $stored faults of babeltrace2's $recs records"

# damaged batches (make-synthetic.py --damage-batch): arrays of different lengths, a VMA
# index past its table. One line naming it, and the database as it was.
for c in "lengths:arrays of different lengths" "index:a record's VMA index beyond its VMA table"; do
	k=${c%%:*} why=${c#*:}
	cp "$T/events.db" "$T/damaged.db"
	before=$(sqlite3 "$T/damaged.db" "SELECT count(*) FROM trace; SELECT count(*) FROM event_chunk")
	"$FT" ingest -q -o "$T/damaged.db" "$TOP/tests/data-damaged/synthetic-batch-$k" > "$T/damaged.out" 2> "$T/damaged.err"
	rc=$?
	after=$(sqlite3 "$T/damaged.db" "SELECT count(*) FROM trace; SELECT count(*) FROM event_chunk")
	ok $([ $rc != 0 ] && [ "$(wc -l < "$T/damaged.err")" = 1 ] &&
	     grep -q "anon_fault_batch with $why" "$T/damaged.err" && [ "$before" = "$after" ]
	     echo $?) "damaged batch ($k): exit $rc, one line ($(cat "$T/damaged.err")), the database as it was"
done

# a real guest trace of the old format: its anon_alloc events stored as they are
r=$D/x86_64-anon-touch-mcpage2
"$FT" ingest -q -o "$T/real.db" "$r" > /dev/null 2>&1
bt_allocs "$r/trace" > "$T/real.bt"
"$ALLOCS" "$T/real.db" > "$T/real.allocs"
ok $([ -s "$T/real.bt" ] && cmp -s "$T/real.bt" "$T/real.allocs"; echo $?) \
	"old format ($(basename "$r")): ALLOC records are its $(grep -c . "$T/real.bt") anon_alloc events"
done_testing
