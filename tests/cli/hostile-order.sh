#!/bin/sh
# hostile-order.sh - an anon_fault order above the PMD order (issue 23 item 1): the order
# byte of one fault of synthetic-anon-tiny patched to 10, 40 and 70 (the issue's
# reproducer, with and without its sites.txt) is refused by the collector as trace damage,
# one line naming the event and its order, exit 1, nothing stored: an existing database
# byte-identical (it holds another trace: the same one would be "already stored"), a new
# one not created. Order 9 (a PMD) is a fault like any other.
# Fixtures: SYNTHETIC tests/data/synthetic-anon-tiny (patched), synthetic-anon-small.
. "$(dirname "$0")/../test-lib.sh"
. "$(dirname "$0")/hostile-lib.inc"

FIX="$TOP/tests/data/synthetic-anon-tiny"
ORDERS="10 40 70"
plan $((1 + $(echo $ORDERS | wc -w) * 3 * 4 + 3))

mkdir -p "$T/db" "$T/tr" "$T/tmp"
export TMPDIR="$T/tmp"
DB="$T/db/existing.db"
"$FT" ingest -q -o "$DB" "$TOP/tests/data/synthetic-anon-small"
ok $? "an existing database to protect"

# patched NAME ORDER: a copy of the fixture whose fault at 0x55d000000000 has order ORDER
patched() {
	rm -rf "$T/tr/$1"
	cp -r "$FIX" "$T/tr/$1"
	python3 -c "
import struct, sys
p = sys.argv[1] + '/trace/stream'
b = bytearray(open(p, 'rb').read())
i = b.find(struct.pack('<4Q', 0x55d000000000, 0x55d000000000, 0x55d000021000, 0x100073) + b'\1\0')
assert i >= 0
b[i + 33] = int(sys.argv[2])
open(p, 'wb').write(b)" "$T/tr/$1" "$2"
	echo "$T/tr/$1"
}
SITES='V	1	1
C	1700000000000000000	100	100	mmap	0	21000	3	22	ffffffff	0	94351841558528	1	ok
F	1	/bin/bash	1	xmalloc	0
'

for o in $ORDERS; do
	d=$(patched o$o $o)
	refused "order $o, existing database" 1 \
		"cannot ingest .*trace damaged: anon_fault of order $o, above the PMD order 9" \
		"$DB" "$FT" ingest -o "$DB" "$d"
	refused "order $o, new database" 1 "anon_fault of order $o, above the PMD order 9" \
		"$T/db/new.db" "$FT" ingest -o "$T/db/new.db" "$d"
	printf '%s' "$SITES" > "$d/sites.txt"
	refused "order $o with the issue's sites.txt" 1 \
		"anon_fault of order $o, above the PMD order 9" \
		"$DB" "$FT" ingest -o "$DB" "$d"
done

# the PMD order itself is no damage
d=$(patched o9 9)
"$FT" ingest -q -o "$T/db/o9.db" "$d"
ok $? "order 9 is ingested"
n=$("$FT" query "$T/db/o9.db" --format csv sql \
	"SELECT COUNT(*) FROM fault_order WHERE order_ = 9" 2>&1 | tail -1)
ok $([ "$n" = 1 ]; echo $?) "order 9 counted in fault_order (got $n)"
ok $([ -z "$(ls -A "$T/tmp")" ]; echo $?) "nothing left in TMPDIR"
done_testing
