#!/bin/sh
# Guest test: `compare --by site` of sites-demo (docs/sites.md, "Per-site metrics"), whose
# map_dense writes all 64 pages of its mmap and map_sparse every 8th of its 256. From the
# ranges the tracer recorded for them, the faults, zeroed bytes and bloat each must take
# under mcpage:4 are derived here: an aligned 16-page block inside the range is one fault
# of 64K (map_sparse: 2 of its pages touched, 14 bloat), a page of a block that crosses
# the range's edge is a 4K fault (the block leaves the VMA or meets pages already mapped:
# the neighbours were mapped and written first). Under order0 they take the workload's
# own counts (EXPECT lines).
. "$(dirname "$0")/../test-lib.sh"
. "$(dirname "$0")/guest-lib.inc"

plan 8
db=$T/demo.db
q() {
	sql_rows "$db" "$1"
}
cp "$TOP/build/testprogs/$ARCH/sites-demo-hdr" "$T/sites-demo-hdr" || diag "run make workloads first"
"$FT" record --sites --arch "$ARCH" -o "$db" -- "$T/sites-demo-hdr" > "$T/out" 2> "$T/err"
ok $? "record --sites of sites-demo exits 0"
"$FT" replay -q "$db" --comm sites-demo-hdr --policy order0 --policy mcpage:4 > /dev/null &&
	"$FT" compare "$db" --comm sites-demo-hdr --by site --format json > "$T/sites.json" &&
	"$FT" compare "$db" --comm sites-demo-hdr --format json > "$T/total.json"
ok $? "replay and compare --by site --comm sites-demo-hdr"
wout=$(ls -d "$db".ctf/*-sites-demo-hdr)/workload.out
v() {
	python3 -c '
import json, sys
for r in json.load(open(sys.argv[1])):
	if r["policy"] == sys.argv[2] and r["site"] == sys.argv[3]:
		print(r[sys.argv[4]])' "$T/sites.json" "$@"
}
# derive FN STEP: faults, zeroed, bloat under mcpage:4 of FN's range, every STEP-th page
derive() {
	set -- $(q "SELECT start, end FROM site_call WHERE site = '$1' AND start IS NOT NULL" | tr ',' ' ') "$2"
	python3 -c '
import sys
s, e, step = int(sys.argv[1]) >> 12, int(sys.argv[2]) >> 12, int(sys.argv[3])
touched = range(s, e, step)
blocks = {p & ~15 for p in touched if (p & ~15) >= s and (p & ~15) + 16 <= e}
edge = [p for p in touched if (p & ~15) not in blocks]
print(len(blocks) + len(edge), (16 * len(blocks) + len(edge)) * 4096,
      sum(16 - sum(1 for p in touched if p & ~15 == b) for b in blocks) * 4096)' "$1" "$2" "$3"
}
for fn in map_dense:1 map_sparse:8; do
	step=${fn#*:} fn=${fn%:*}
	want=$(sed -n "s/^EXPECT fn=$fn faults=//p" "$wout")
	got=$(v order0 "$fn" faults)
	ok $([ -n "$want" ] && [ "$got" = "$want" ] && [ "$(v order0 "$fn" bloat_bytes)" = 0 ]
	     echo $?) "order0: $fn took its $want faults ($got), no bloat"
	set -- $(derive "$fn" "$step")
	got="$(v mcpage:4 "$fn" faults) $(v mcpage:4 "$fn" zeroed_bytes) $(v mcpage:4 "$fn" bloat_bytes)"
	ok $([ "$got" = "$1 $2 $3" ]; echo $?) \
		"mcpage:4: $fn faults, zeroed, bloat: $got; derived from its range: $1 $2 $3"
done
ok $(python3 "$TOP/tests/cli/site-sums.py" "$T/sites.json" "$T/total.json"; echo $?) \
	"per policy the sites sum to the run's faults, bloat, zeroed, peak RSS"
ok $(python3 -c '
import json, sys
for r in json.load(open(sys.argv[1])):
	if r["site"] in ("map_dense", "map_sparse") and r["rss_at_peak_bytes"] != r["zeroed_bytes"]:
		sys.exit(1)' "$T/sites.json"; echo $?) \
	"map_dense and map_sparse keep their memory to the exit: at the peak all of it is resident"
done_testing
