#!/bin/sh
# hostile-buddyinfo.sh - implausible buddyinfo seeds (issue 12 item 1): counts whose pages
# overflow 64 bits, 1e8 blocks per order, negative counts, more free pages than the
# recorded mem_bytes; and vmstat.before, whose LRU counts size the model's compaction pool
# (docs/policies.md): a count above the recorded memory, alone or summed, or not a plain
# number. Ingest stores the header text as it is; replay --frag buddyinfo refuses the
# seed with one line naming the order (the counter) and the count, exit 1, the database
# byte-identical, and the same trace still replays with --frag none.
# Fixture: SYNTHETIC tests/data/synthetic-anon-tiny (mem_bytes 1 GiB = 262144 4K pages).
. "$(dirname "$0")/../test-lib.sh"
. "$(dirname "$0")/trace-lib.inc"
. "$(dirname "$0")/hostile-lib.inc"

plan 76

[ "$(cat "$TINY/header/mem_bytes")" = 1073741824 ] && [ "$(cat "$TINY/header/page_size")" = 4096 ]
ok $? "fixture records 1 GiB of 4K pages"

N="Node 0, zone   Normal"
i=0
# seed CASE PATTERN TEXT [FILE]: ingest a copy of TINY with TEXT as its header FILE
# (default buddyinfo.before), then both replay --dry-run and a storing replay refuse it
# (8 checks)
seed() {
	i=$((i + 1))
	rm -rf "$T/bo$i"
	cp -r "$TINY" "$T/bo$i"
	printf '%s\n' "$3" > "$T/bo$i/header/${4:-buddyinfo.before}"
	"$FT" ingest -q -o "$T/bo$i.db" "$T/bo$i" || diag "cannot ingest case $i"
	refused "$1, --dry-run" 1 "$2" "$T/bo$i.db" \
		"$FT" replay "$T/bo$i.db" -P mcpage:2 --frag buddyinfo --dry-run
	refused "$1, stored" 1 "$2" "$T/bo$i.db" \
		"$FT" replay "$T/bo$i.db" -P mcpage:2 --frag buddyinfo
}

seed "2^53 order-10 blocks (pages overflow 64 bits)" \
	"order 10 count 9007199254740992$" "$N 0 0 0 0 0 0 0 0 0 0 9007199254740992"
seed "1e8 blocks per order" \
	"order [0-9]+ count 100000000: more free pages than the 262144 pages of the recorded memory$" \
	"$N 100000000 100000000 100000000 100000000 100000000 100000000 100000000 100000000 100000000 100000000 100000000"
seed "a negative count" \
	"bad buddyinfo line .*-5.*3 counts, want 11$" "$N 1 2 3 -5 0 0 0 0 0 0 0"
seed "a count above 2^64" \
	"order 0 count 18446744073709551616$" "$N 18446744073709551616 0 0 0 0 0 0 0 0 0 0"
seed "257 order-10 blocks in 1 GiB" \
	"order 10 count 257: more free pages than the 262144 pages of the recorded memory$" \
	"$N 0 0 0 0 0 0 0 0 0 0 257"

# the compaction pool: vmstat.before's LRU counts (the buddyinfo seed is the fixture's)
seed "an LRU count above the recorded memory" \
	"implausible vmstat: nr_active_anon 262145: more LRU pages than the 262144 pages of the recorded memory$" \
	"nr_free_pages 1
nr_active_anon 262145" vmstat.before
seed "LRU counts summing above the recorded memory" \
	"implausible vmstat: nr_active_file 62145: more LRU pages than the 262144 pages" \
	"nr_inactive_anon 200000
nr_active_file 62145" vmstat.before
seed "a negative LRU count" \
	"bad vmstat line 'nr_inactive_file -5': want 'name value'$" \
	"nr_inactive_file -5" vmstat.before
seed "an LRU count above 2^64" \
	"implausible vmstat: nr_inactive_anon 18446744073709551616: " \
	"nr_inactive_anon 18446744073709551616" vmstat.before
# all of memory on the LRU is plausible
rm -rf "$T/lru"; cp -r "$TINY" "$T/lru"
printf 'nr_inactive_anon 200000\nnr_active_file 62144\n' > "$T/lru/header/vmstat.before"
"$FT" ingest -q -o "$T/lru.db" "$T/lru" &&
	timeout 60 "$FT" replay "$T/lru.db" -P mcpage:2 --frag buddyinfo --dry-run > /dev/null
ok $? "LRU counts summing to all of 1 GiB accepted"

# the last database is still fine for the models that do not use the seed
timeout 60 "$FT" replay "$T/bo$i.db" -P mcpage:2 --dry-run > "$T/none.out" 2> "$T/none.err"
ok $? "the same trace replays with --frag none"
# and all of memory free is plausible: the bound is inclusive
rm -rf "$T/full"; cp -r "$TINY" "$T/full"
echo "$N 0 0 0 0 0 0 0 0 0 0 256" > "$T/full/header/buddyinfo.before"
"$FT" ingest -q -o "$T/full.db" "$T/full" &&
	timeout 60 "$FT" replay "$T/full.db" -P mcpage:2 --frag buddyinfo --dry-run > /dev/null
ok $? "256 order-10 blocks (all of 1 GiB) accepted"
done_testing
