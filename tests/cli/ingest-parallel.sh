#!/bin/sh
# ingest-parallel.sh - the parallel decode (tracer/pdecode.h) stores the database the
# serial graph stores (FT_INGEST_SERIAL=1), on every real guest trace under tests/data:
# with the default pieces (one per stream file here) and with every packet a piece of its
# own (FT_TEST_INGEST_PIECE_BYTES=1). The fixtures of tests/data have one packet per
# stream; tests/data-packets/x86_64-pf-loop-packets, recorded with 16 KiB sub-buffers,
# has many (and x86_64-pf-loop-batch too, its faults in anon_fault_batch events), cut into pieces decoded apart and merged back (tests/data's fixtures must stay
# one packet per stream: "pieces=2 streams=2" below; replay.sh checks both directories).
# The SQL dumps are compared, the ingest time left out. FT_TEST_INGEST_PIECES_LOG
# says the parallel path stored it, with as many pieces as the LTTng indexes list packets.
# A stream whose index does not tile it goes to the serial graph, which stores the same.
. "$(dirname "$0")/../test-lib.sh"
. "$(dirname "$0")/trace-lib.inc"

traces="$(real_traces)
$TOP/tests/data-packets/x86_64-pf-loop-packets
$TOP/tests/data-packets/x86_64-pf-loop-batch"
n=$(echo "$traces" | grep -c .)
plan $((3 + 4 * n))
ok $([ "$n" -gt 0 ]; echo $?) "real guest traces found: $n"

dump() { sqlite3 "$1" .dump | sed "s/,'[0-9-]*T[0-9:]*Z',/,TIME,/"; }
# packets listed by the LTTng indexes of a trace (56-byte 1.0 entries or longer)
packets() {
	for i in "$1"/trace/kernel/index/*.idx; do
		od -An -tu1 -j12 -N4 "$i" | awk -v z="$(stat -c %s "$i")" \
			'{ print (z - 16) / ($1 * 16777216 + $2 * 65536 + $3 * 256 + $4) }'
	done | awk '{ s += $1 } END { print s }'
}

for d in $traces; do
	name=$(basename "$d")
	FT_INGEST_SERIAL=1 "$FT" ingest -q -o "$T/serial.db" "$d"
	dump "$T/serial.db" > "$T/serial.sql"
	rm -f "$T/log"
	FT_TEST_INGEST_PIECES_LOG="$T/log" "$FT" ingest -q -o "$T/par.db" "$d"
	check "$name: default pieces: the serial graph's database" cmp "$T/serial.sql" \
		"$(dump "$T/par.db" > "$T/par.sql"; echo "$T/par.sql")"
	check "$name: ... stored by the parallel path ($(cat "$T/log" 2>/dev/null))" \
		grep -q '^pieces=2 streams=2 ' "$T/log"
	rm -f "$T/log" "$T/par.db"
	FT_TEST_INGEST_PIECES_LOG="$T/log" FT_TEST_INGEST_PIECE_BYTES=1 \
		"$FT" ingest -q -o "$T/par.db" "$d"
	check "$name: a piece per packet: the serial graph's database" cmp "$T/serial.sql" \
		"$(dump "$T/par.db" > "$T/par.sql"; echo "$T/par.sql")"
	want=$(packets "$d")
	check "$name: ... stored by the parallel path in $want pieces ($(cat "$T/log" 2>/dev/null))" \
		grep -q "^pieces=$want streams=2 " "$T/log"
	rm -f "$T/serial.db" "$T/par.db"
done

# the fixture of many packets per stream: many pieces, so streams were cut
d=$(echo "$traces" | grep x86_64-pf-loop-packets)
ok $([ -n "$d" ] && [ "$(packets "$d")" -gt 8 ]; echo $?) \
	"a fixture of many packets per stream: $d, $(packets "$d") packets"

# an index that lists only a prefix of its stream: babeltrace2 reads the whole file, the
# parallel path cannot cut it and leaves it to the serial graph
d=$(echo "$traces" | grep x86_64-malloc-churn)
cp -r "$d" "$T/prefix"
i=$T/prefix/trace/kernel/index/chan0_1.idx
head -c $(( $(stat -c %s "$i") - 72 )) "$i" > "$T/idx" && cat "$T/idx" > "$i"
FT_INGEST_SERIAL=1 "$FT" ingest -q -o "$T/serial.db" "$T/prefix"
rm -f "$T/log"
FT_TEST_INGEST_PIECES_LOG="$T/log" "$FT" ingest -q -o "$T/par.db" "$T/prefix"
ok $(cmp -s "$(dump "$T/serial.db" > "$T/a"; echo "$T/a")" \
	"$(dump "$T/par.db" > "$T/b"; echo "$T/b")" && [ ! -e "$T/log" ]; echo $?) \
	"an index covering a prefix of its stream: the serial graph stores it, the same"
done_testing
