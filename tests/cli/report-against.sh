#!/bin/sh
# report-against.sh - foliotrace report A.db B.db and --against (issue 28 item 3): the
# comparison table holds each side's figures as `compare --format json` gives them, with
# the change from A to B; bad comparisons exit 1 with one line and write nothing; usage
# errors exit 2. Real fixtures from tests/data, ingested.
. "$(dirname "$0")/../test-lib.sh"

plan 10
A="$TOP/tests/data/x86_64-anon-touch-order0"
B="$TOP/tests/data/x86_64-anon-touch-thp"
"$FT" ingest -q -o "$T/a.db" "$A" && "$FT" ingest -q -o "$T/b.db" "$B" &&
	"$FT" replay "$T/a.db" -P mcpage:4 -P thp > /dev/null &&
	"$FT" replay "$T/b.db" -P mcpage:4 > /dev/null 2>&1 &&
	"$FT" compare "$T/a.db" --format json > "$T/ca.json" &&
	"$FT" compare "$T/b.db" --format json > "$T/cb.json" 2> /dev/null
ok $? "two databases of anon-touch (recorded under order0 and thp), replayed and compared"

"$FT" report "$T/a.db" "$T/b.db" -o "$T/ab.html" > "$T/out"
check "report A.db B.db: exit 0, 2 policies on both sides" \
	grep -qx "wrote $T/ab.html: trace 1 against trace 1, 2 policies on both sides" "$T/out"
python3 - "$T/ab.html" "$T/ca.json" "$T/cb.json" > "$T/py.out" 2>&1 <<'PY'
import json, re, sys
page = open(sys.argv[1]).read()
side = {"A": {r["policy"]: r for r in json.load(open(sys.argv[2]))},
        "B": {r["policy"]: r for r in json.load(open(sys.argv[3]))}}
cells = re.findall(r'data-side="(A|B)" data-metric="([a-z_]+)" data-policy="([^"]*)" data-v="(\d+)"', page)
for s, m, p, v in cells:
    assert int(v) == side[s][p][m], (s, m, p, v, side[s][p][m])
got = {(s, p) for s, m, p, v in cells}
want = {(s, p) for s in side for p in side[s]}
assert got == want and len(cells) == 3 * len(want), (got, want)
# the change from A to B, as compare words a change against a baseline
for p in set(side["A"]) & set(side["B"]):
    a, b = side["A"][p]["faults"], side["B"][p]["faults"]
    pct = "%+.1f%%" % (100.0 * (b - a) / a)
    assert re.search(r'data-policy="%s" data-v="%d">[^<]*</td><td>%s</td>' % (re.escape(p), b, re.escape(pct)), page), (p, pct)
print(len(cells), "cells")
PY
ok $? "every cell is that side's compare --format json figure; the change is B against A"
sed 's/^/# /' "$T/py.out"

"$FT" ingest -q -o "$T/a.db" "$B" && "$FT" replay "$T/a.db" --trace 2 -P thp > /dev/null 2>&1
"$FT" report "$T/a.db" --trace 1 --against 2 -o "$T/t.html" > "$T/out"
check "--against ID: two traces of one database" \
	grep -qx "wrote $T/t.html: trace 1 against trace 2, 2 policies on both sides" "$T/out"

"$FT" report "$T/a.db" --trace 1 --against 1 -o "$T/x.html" > /dev/null 2> "$T/err"
check "a trace against itself: exit 1, one line, nothing written" sh -c \
	"test $? = 1 && test \$(wc -l < '$T/err') = 1 && grep -q 'against itself' '$T/err' && test ! -e '$T/x.html'"
"$FT" report "$T/a.db" --against 9 -o "$T/x.html" > /dev/null 2> "$T/err"
check "--against a trace that does not exist: exit 1, one line naming side B" sh -c \
	"test $? = 1 && test \$(wc -l < '$T/err') = 1 && grep -q 'side B' '$T/err' && test ! -e '$T/x.html'"
"$FT" ingest -q -o "$T/c.db" "$B"
"$FT" report "$T/a.db" "$T/c.db" -o "$T/x.html" > /dev/null 2> "$T/err"
check "B without runs of the baseline: exit 1, one line saying how" sh -c \
	"test $? = 1 && test \$(wc -l < '$T/err') = 1 && grep -q 'side B.*replay DB --trace 1' '$T/err' && test ! -e '$T/x.html'"
"$FT" report "$T/a.db" "$T/b.db" "$T/c.db" -o "$T/x.html" > /dev/null 2> "$T/err"
check "three databases: usage error, exit 2" test $? = 2
"$FT" report "$T/a.db" --against x -o "$T/x.html" > /dev/null 2> "$T/err"
check "--against not a number: usage error, exit 2" test $? = 2
cp "$T/b.db" "$T/bad.db"
sqlite3 "$T/bad.db" "UPDATE replay_run SET series = x'0011' WHERE policy = 'mcpage:4'"
"$FT" report "$T/bad.db" -o "$T/x.html" > /dev/null 2> "$T/err"
check "a stored series that is not whole records: exit 1, one line naming the run" sh -c \
	"test $? = 1 && test \$(wc -l < '$T/err') = 1 && grep -q 'series is 2 bytes' '$T/err' && test ! -e '$T/x.html'"
done_testing
