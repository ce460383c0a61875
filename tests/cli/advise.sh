#!/bin/sh
# advise.sh - `foliotrace advise` and the persite policy on a trace with one dense and one
# sparse call site, without a guest: a call-site side file (as tests/cli/sites.sh) for the
# x86_64 sparse fixture (sparse --size 64M --touches 512) says that
#   sparse_fn mapped the 64M VMA, where 512 pages drawn at random are written once each;
#   dense_fn mapped the 64K at heap pages [P, P + 16), P 16-page aligned, all 16 written
#   (the fixture's heap: a brk heap starting 2 pages below P, written up to P + 16).
# Expected values are derived here from the decoded faults (python3), not from the engine:
# dense_fn at order 4 is one 64K block, fully written (one fault, no bloat), while a
# larger order's block crosses the heap's start and falls back to 4K; sparse_fn at order k
# maps one 2^k block per distinct block its pages fall in.
. "$(dirname "$0")/../test-lib.sh"

plan 20
. "$(dirname "$0")/sparse-sites.inc"
# P: the 16-page aligned heap block all of whose pages are written; the first fault's time;
# the sparse VMA's written pages and their distinct blocks at orders 1 and 4
set -- $(python3 -c '
import json, sys
f = json.load(open(sys.argv[1])); lo = int(sys.argv[2]); hi = lo + int(sys.argv[3])
pages = {int(e["address"], 16) >> 12 for e in f}
dense = [p for p in pages if p % 16 == 0 and p < lo >> 12 and all(p + i in pages for i in range(16))]
sp = [p for p in pages if lo >> 12 <= p < hi >> 12]
b1 = len({p >> 1 for p in sp}); b4 = len({p >> 4 for p in sp})
print(len(dense), dense[0] if dense else 0, min(e["ts"] for e in f), len(sp), b1, b4)
' "$T/faults.json" "$start" "$len")
ndense=$1 P=$2 first=$3 nsparse=$4 b1=$5 b4=$6
ok $([ "$ndense" = 1 ] && [ "$nsparse" = 512 ]; echo $?) \
	"fixture: one fully written 64K heap block (page $P), 512 pages in the sparse VMA"

dir=$T/run
cp -r "$FIX" "$dir"
mono=$((first - off - 1000))
cat > "$dir/sites.txt" <<EOT
V	1	1
C	$((mono - 2000))	$pid	$pid	mmap	0	$(printf '%x' "$len")	3	22	ffffffff	0	$start	2	ok
F	401234	/usr/libexec/foliotrace/sparse	1234	__mmap	13
F	401500	/usr/libexec/foliotrace/sparse	1500	sparse_fn	20
C	$((mono - 1000))	$pid	$pid	mmap	0	10000	3	22	ffffffff	0	$((P * 4096))	2	ok
F	401234	/usr/libexec/foliotrace/sparse	1234	__mmap	13
F	401600	/usr/libexec/foliotrace/sparse	1600	dense_fn	20
E	$((mono + 1000000000))	$pid	$pid	0
EOT
"$FT" ingest -q -o "$T/s.db" "$dir"
ok $? "the fixture with the side file ingests"
rows=$("$FT" query "$T/s.db" --format csv sites | awk -F, '$1 ~ /_fn$/ { print $1, $7 }' |
	sort | tr '\n' ' ')
ok $([ "$rows" = "dense_fn 16 sparse_fn 512 " ]; echo $?) "query sites: $rows"

# budget 25%: dense_fn gets 4 (one fault, no bloat); sparse_fn 0 (order 1 already bloats
# 2 * b1 - 512 pages, far above 128)
"$FT" advise "$T/s.db" --bloat-budget 25 -o "$T/advice.txt" --format csv > "$T/adv.csv"
ok $? "advise runs"
ok $([ "$(awk '$2 == "dense_fn" { print $1 }' "$T/advice.txt")" = 4 ] &&
	[ "$(awk '$2 == "sparse_fn" { print $1 }' "$T/advice.txt")" = 0 ] &&
	grep -qx '0 \*' "$T/advice.txt"; echo $?) "the advice: dense_fn 4, sparse_fn 0, * 0"
ok $([ $((2 * b1 - 512)) -gt 128 ]; echo $?) \
	"order 1 would bloat sparse_fn by $((2 * b1 - 512)) pages, above 25% of 512"
ok $(grep -q "^dense_fn,65536,4,.*,0$" "$T/adv.csv"; echo $?) \
	"advise prints dense_fn: 64K touched, order 4, no bloat"
# its probes (by classes of blocks) against the whole-trace probe (tests/cli/advise-naive.c)
"$BUILD/testprogs/advise-naive" "$T/s.db" > "$T/naive" 2>&1
ok $? "the fixture's probes, site by site and order by order: $(cat "$T/naive")"
# a SYNTHETIC kbuild-like trace, calls of 2 events at site i % 60 as bench/sites-scale.sh
# lays them out: every 2^k block shared by the sites of its pages, forks of one parent
"$BUILD/testprogs/synth-db" "$T/k.db" kbuild-like 3 30000 > /dev/null &&
	. "$TOP/tests/cli/synth-sites.inc" && synth_sites "$T/k.db" 60 15000 15000 &&
	"$BUILD/testprogs/advise-naive" "$T/k.db" > "$T/naive" 2>&1
ok $? "a synthetic trace's probes with 60 sites sharing its blocks: $(cat "$T/naive")"

# the advice replayed against order0 and mcpage:4 (the dense site's order, globally)
"$FT" replay -n "$T/s.db" -P "persite:$T/advice.txt" -P mcpage:4 --check-oracle \
	--format json > "$T/r.json"
ok $? "persite replays, the oracle agrees"
set -- $(python3 -c '
import json, sys
r = {x["policy"]: x["metrics"] for x in json.load(open(sys.argv[1]))["runs"]}
p = [v for k, v in r.items() if k.startswith("persite:")][0]
print(r["order0"]["faults"], p["faults"], p["bloat_bytes"], r["mcpage:4"]["bloat_bytes"])
' "$T/r.json")
f0=$1 fp=$2 bp=$3 bm=$4
ok $([ "$fp" = $((f0 - 15)) ]; echo $?) "persite: 15 faults fewer than order0's $f0 ($fp)"
ok $([ "$bp" = 0 ]; echo $?) "persite: no bloat ($bp)"
ok $([ "$bm" -ge $(((16 * b4 - 512) * 4096)) ] && [ "$bp" -lt "$bm" ]; echo $?) \
	"mcpage:4 bloats at least sparse_fn's $(((16 * b4 - 512) * 4096)) bytes ($bm)"

# bad input
"$FT" advise "$T/plain.db" --bloat-budget 25 -o "$T/none.txt" 2> "$T/err"
ok $([ $? = 1 ] && grep -q 'no call sites' "$T/err" && [ ! -e "$T/none.txt" ]; echo $?) \
	"a trace without sites: exit 1, named, no file ($(cat "$T/err"))"
"$FT" advise "$T/s.db" 2> "$T/err"
ok $([ $? = 2 ]; echo $?) "no --bloat-budget: usage error"
cp "$T/s.db" "$T/old.db"
python3 -c 'import sqlite3, sys
c = sqlite3.connect(sys.argv[1]); c.execute("DELETE FROM site_touch"); c.commit()' "$T/old.db"
"$FT" replay -n "$T/old.db" -P "persite:$T/advice.txt" 2> "$T/err"
ok $([ $? = 1 ] && grep -q "stored before per-site attribution.*ingest its run directory again" \
	"$T/err"; echo $?) "persite on sites stored without site_touch: exit 1 ($(cat "$T/err"))"
printf '3 dense_fn\n9 sparse_fn\n' > "$T/bad.txt"
"$FT" replay -n "$T/s.db" -P "persite:$T/bad.txt" 2> "$T/err"
ok $([ $? = 2 ] && grep -q "bad.txt line 2.*order 9 is not 0..8" "$T/err"; echo $?) \
	"a site file with order 9: usage error naming the line ($(cat "$T/err"))"
# the options of --help and of the man page agree; the page renders
"$FT" advise --help | grep -E '^ +-' | grep -o -- '--[a-z][a-z-]*' | sort -u > "$T/help.opts"
sed -n '/^\.SH OPTIONS/,/^\.SH /p' "$TOP/docs/man/foliotrace-advise.1" | sed 's/\\-/-/g' |
	grep -o -- '--[a-z][a-z-]*' | sort -u > "$T/man.opts"
check "options of --help and of the man page agree" cmp "$T/help.opts" "$T/man.opts"
check "the man page renders (man -l)" sh -c \
	"man -l '$TOP/docs/man/foliotrace-advise.1' 2>&1 | grep -q SYNOPSIS"
done_testing
