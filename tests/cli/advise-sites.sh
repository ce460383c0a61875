#!/bin/sh
# advise-sites.sh - one attribution of faults to sites: the advice of `foliotrace advise`,
# written with -o and replayed as persite:FILE, shows under `compare --by site` exactly the
# per-site figures advise predicted for it, on a trace where deciding by address range
# and deciding by time disagree. A side file (as tests/cli/advise.sh) for the x86_64
# sparse fixture says that
#   sparse_fn mapped the 64M VMA (512 pages written at random);
#   dense_fn mapped the 64K at heap pages [P, P + 16), P 16-page aligned, all 16 written;
#   then, between two of those writes, the 64K was unmapped and mapped again by dense2_fn,
#   which owns the writes after it (ingest follows the timeline: docs/sites.md).
# The fixture writes P + 15 first, then P .. P + 14 in order; the split lies after P + 7's
# write, so dense_fn owns 9 writes (P + 15 and P .. P + 7), dense2_fn 7 (P + 8 .. P + 14).
# Expected values are derived here (python3) from the decoded faults, not from the engine:
# dense_fn at order 4 maps one 64K block at its first write, over all 16 pages (one fault,
# no bloat), so dense2_fn's writes take no fault; dense2_fn's own best order, with
# dense_fn's pages mapped 4K, is modelled here page by page. An address-range rule (the
# later call's range for the whole trace) would give every write to dense2_fn instead.
. "$(dirname "$0")/../test-lib.sh"

plan 12
. "$(dirname "$0")/sparse-sites.inc"
# P; the dense block's pages in time order; the split time (between the 9th and 10th of
# its writes); the first fault's time; dense2_fn's best order (fewest faults, the smaller
# on a tie) when dense_fn's pages are mapped 4K, and its faults at that order
set -- $(python3 -c '
import json, sys
f = json.load(open(sys.argv[1])); lo = int(sys.argv[2])
pages = {int(e["address"], 16) >> 12 for e in f}
dense = [p for p in pages if p % 16 == 0 and p < lo >> 12 and all(p + i in pages for i in range(16))]
P = dense[0] if len(dense) == 1 else 0
blk = sorted((e["ts"], (int(e["address"], 16) >> 12) - P) for e in f
	     if 0 <= (int(e["address"], 16) >> 12) - P < 16)
order = [o for _, o in blk]
split = (blk[8][0] + blk[9][0]) // 2
mine = set(order[9:])		# dense2_fn: the writes after the split
def faults(k):			# dense2_fn at order k, dense_fn at 0 (4K)
	present, n = set(), 0
	for o in order:
		if o in present:
			continue
		n += o in mine
		b = o & ~((1 << k) - 1)
		blkp = range(b, b + (1 << k))
		if o in mine and k and b + (1 << k) <= 16 and not present & set(blkp):
			present |= set(blkp)
		else:
			present.add(o)
	return n
best = min(range(9), key=lambda k: (faults(k), k))
print(P, ",".join(map(str, order)), split, min(e["ts"] for e in f), best, faults(best))
' "$T/faults.json" "$start")
P=$1 order=$2 split=$3 first=$4 best2=$5 faults2=$6
ok $([ "$order" = "15,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14" ]; echo $?) \
	"fixture: the 64K heap block at page $P is written P + 15 first, then in order ($order)"

dir=$T/run
cp -r "$FIX" "$dir"
mono=$((first - off - 1000)) cut=$((split - off))
frames() { # frames FN: the two frames of a call from FN
	printf 'F\t401234\t/usr/libexec/foliotrace/sparse\t1234\t__mmap\t13\n'
	printf 'F\t401600\t/usr/libexec/foliotrace/sparse\t1600\t%s\t20\n' "$1"
}
{
	printf 'V\t1\t1\n'
	printf 'C\t%s\t%s\t%s\tmmap\t0\t%x\t3\t22\tffffffff\t0\t%s\t2\tok\n' \
		$((mono - 2000)) "$pid" "$pid" "$len" "$start"
	frames sparse_fn
	printf 'C\t%s\t%s\t%s\tmmap\t0\t10000\t3\t22\tffffffff\t0\t%s\t2\tok\n' \
		$((mono - 1000)) "$pid" "$pid" $((P * 4096))
	frames dense_fn
	printf 'C\t%s\t%s\t%s\tmunmap\t%x\t10000\t0\t0\t0\t0\t0\t2\tok\n' \
		"$cut" "$pid" "$pid" $((P * 4096))
	frames dense_fn
	printf 'C\t%s\t%s\t%s\tmmap\t0\t10000\t3\t22\tffffffff\t0\t%s\t2\tok\n' \
		$((cut + 1)) "$pid" "$pid" $((P * 4096))
	frames dense2_fn
	printf 'E\t%s\t%s\t%s\t0\n' $((mono + 1000000000)) "$pid" "$pid"
} > "$dir/sites.txt"
"$FT" ingest -q -o "$T/s.db" "$dir"
ok $? "the fixture with the side file ingests"
rows=$("$FT" query "$T/s.db" --format csv sites | awk -F, '$1 ~ /_fn$/ { print $1, $7 }' |
	sort | tr '\n' ' ')
ok $([ "$rows" = "dense2_fn 7 dense_fn 9 sparse_fn 512 " ]; echo $?) \
	"query sites follows the timeline: $rows"

"$FT" advise "$T/s.db" --bloat-budget 25 -o "$T/advice.txt" --format json > "$T/adv.json"
ok $? "advise -o runs"
"$BUILD/testprogs/advise-naive" "$T/s.db" > "$T/naive" 2>&1
ok $? "its probes, site by site and order by order: $(cat "$T/naive") (tests/cli/advise-naive.c)"
ok $([ "$(awk '$2 == "dense_fn" { print $1 }' "$T/advice.txt")" = 4 ] &&
	[ "$(awk '$2 == "dense2_fn" { print $1 }' "$T/advice.txt")" = "$best2" ] &&
	[ "$(awk '$2 == "sparse_fn" { print $1 }' "$T/advice.txt")" = 0 ]; echo $?) \
	"the advice: dense_fn 4, dense2_fn $best2 (its own $faults2 faults, derived), sparse_fn 0"

# the file replayed and stored, then compare --by site; per site name (summed over modules)
"$FT" replay -q "$T/s.db" -P order0 -P "persite:$T/advice.txt" --check-oracle > /dev/null
ok $? "the advice file replays and is stored; the oracle agrees, per site too"
"$FT" compare "$T/s.db" --by site --format json > "$T/cmp.json" &&
	"$FT" compare "$T/s.db" --format json > "$T/tot.json"
ok $? "compare --by site and compare run"
ok $(python3 "$TOP/tests/cli/advise-match.py" "$T/adv.json" "$T/cmp.json" "$T/tot.json" \
	> "$T/match" 2>&1; echo $?) \
	"compare --by site shows for every site what advise predicted, and its program figures as the run's totals ($(cat "$T/match"))"
set -- $(python3 -c '
import json, sys
cmp = json.load(open(sys.argv[1])); tot = json.load(open(sys.argv[2]))
pol = [r["policy"] for r in tot if r["policy"].startswith("persite:")][0]
got = {}
for r in cmp:
	if r["policy"] == pol:
		g = got.setdefault(r["site"], [0, 0, 0])
		g[0] += r["faults"]; g[1] += r["bloat_bytes"]; g[2] += r["zeroed_bytes"]
t = [r for r in tot if r["policy"] == pol][0]
o0 = [r for r in tot if r["policy"] == "order0"][0]
d, d2 = got.get("dense_fn", [0] * 3), got.get("dense2_fn", [0] * 3)
print("%d,%d,%d" % tuple(d), "%d,%d,%d" % tuple(d2), t["faults"], o0["faults"])
' "$T/cmp.json" "$T/tot.json")
dense=$1 dense2=$2 fp=$3 f0=$4
ok $([ "$dense" = "1,0,65536" ] && [ "$dense2" = "0,0,0" ]; echo $?) \
	"dense_fn: 1 fault, no bloat, 64K zeroed ($dense); dense2_fn: no fault ($dense2)"
ok $([ "$fp" = $((f0 - 15)) ]; echo $?) \
	"persite: 15 faults fewer than order0's $f0 ($fp): one fault for the 16 pages"
done_testing
