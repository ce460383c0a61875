#!/bin/sh
# report-all.sh - foliotrace report over every recording of a database (issue 13 item 4):
# the workloads x policies tables hold what `compare --format json` gives per trace, each
# trace's section is the one-trace page's content, a trace without runs gets a note; and
# compare/report without --comm/--pid read the one selection a trace was replayed with, or
# name the selections when there are several. Real fixtures from tests/data, ingested.
. "$(dirname "$0")/../test-lib.sh"

plan 19
A="$TOP/tests/data/x86_64-anon-touch-order0"
M="$TOP/tests/data/x86_64-malloc-churn-order0"
P="$TOP/tests/data/x86_64-pf-loop-order0"
check "the three fixtures exist" test -d "$A" -a -d "$M" -a -d "$P"
DB="$T/d.db"
"$FT" ingest -q -o "$DB" "$A" && "$FT" ingest -q -o "$DB" "$M" && "$FT" ingest -q -o "$DB" "$P"
ok $? "three traces ingested"
"$FT" replay "$DB" --trace 1 -P mcpage:4 -P thp > /dev/null &&
	"$FT" replay "$DB" --trace 2 -P mcpage:4 -P thp > /dev/null
ok $? "traces 1 and 2 replayed under mcpage:4 and thp (order0 added)"
"$FT" compare "$DB" --trace 1 --format json > "$T/c1.json" &&
	"$FT" compare "$DB" --trace 2 --format json > "$T/c2.json"
ok $? "compare --format json per trace"

cp "$DB" "$T/before.db"
"$FT" report "$DB" -o "$T/all.html" > "$T/out" 2> "$T/err"
ok $? "report of the whole database exits 0"
check "  ... says how many traces it shows" grep -qx "wrote $T/all.html: 2 of 3 traces" "$T/out"
check "  ... leaves the database byte-identical" cmp "$DB" "$T/before.db"

python3 - "$T/all.html" "$T/c1.json" "$T/c2.json" > "$T/py.out" 2>&1 <<'PY'
import json, re, sys
page = open(sys.argv[1]).read()
runs = {1: json.load(open(sys.argv[2])), 2: json.load(open(sys.argv[3]))}
cells = 0
for metric, ratio in (("faults", "faults_vs_baseline"), ("peak_rss_bytes", "peak_rss_vs_baseline"),
                      ("bloat_bytes", None)):
    m = re.search(r'<table class="m" id="summary-%s">(.*?)</table>' % metric, page, re.S)
    assert m, "no summary table for " + metric
    for tr in re.findall(r'<tr data-trace="(\d+)">(.*?)</tr>', m.group(1), re.S):
        tid = int(tr[0])
        got = {c[0]: (int(c[1]), c[2]) for c in
               re.findall(r'data-policy="([^"]*)" data-v="(\d+)" data-r="([^"]*)"', tr[1])}
        if tid == 3:
            assert not got, got
            continue
        want = {r["policy"]: r for r in runs[tid]}
        assert set(got) == set(want), (tid, got.keys(), want.keys())
        for p, (v, r) in got.items():
            assert v == want[p][metric], (tid, p, metric, v, want[p][metric])
            if ratio:
                assert abs(float(r) - want[p][ratio]) <= 5e-7  # JSON ratios have 6 decimals, (tid, p, ratio, r, want[p][ratio])
            cells += 1
assert cells == 2 * 3 * 3, cells
print("cells", cells)
PY
rc=$?
ok $rc "workloads x policies: 18 cells equal compare --format json (value and change)"
[ $rc = 0 ] || sed 's/^/# /' "$T/py.out"

ids=$(grep -o ' id="[^"]*"' "$T/all.html" | sort | uniq -d)
check "element ids are unique on the page" test -z "$ids"
check "a section per trace with runs, a note for the trace without" sh -c \
	"grep -q '<h1 id=\"trace-1\">' '$T/all.html' && grep -q 'id=\"t2-metrics\"' '$T/all.html' &&
	 grep -q '<h1 id=\"trace-3\">.*pf-loop' '$T/all.html' && ! grep -q 'id=\"t3-' '$T/all.html' &&
	 grep -q 'No replay run of baseline .order0. for this trace' '$T/all.html'"

# each section is the one-trace page's content, ids aside
"$FT" report "$DB" --trace 2 -o "$T/one.html" > "$T/out"
check "report --trace 2 still writes the one-trace page" grep -q '<h1>foliotrace report: trace 2</h1>' "$T/one.html"
python3 - "$T/one.html" "$T/all.html" <<'PY'
import re, sys
one, every = (re.sub(r' id="[^"]*"', '', open(f).read()) for f in sys.argv[1:])
body = one.split("</h1>\n", 1)[1].split('<p class="note">Generated', 1)[0]
assert len(body) > 1000 and body in every
PY
ok $? "trace 2's section equals the one-trace page's body"

# --- the selection compare and report read without --comm/--pid ---
pid=$("$FT" query "$DB" --format csv sql "SELECT pid FROM process WHERE trace_id = 3 AND comm = 'pf-loop'" | tail -1)
"$FT" replay "$DB" --trace 3 --comm pf-loop -P mcpage:4 --format json > "$T/r3.json"
"$FT" compare "$DB" --trace 3 --format json > "$T/c3.json" 2> "$T/err"
ok $? "compare after replay --comm X only: exit 0"
python3 - "$T/r3.json" "$T/c3.json" <<'PY'
import json, sys
r, c = (json.load(open(f)) for f in sys.argv[1:])
assert [x["filter"] for x in c] == ["comm=pf-loop"] * 2, c
assert {x["policy"]: x["faults"] for x in c} == \
       {x["policy"]: x["metrics"]["faults"] for x in r["runs"]}, (r, c)
PY
ok $? "  ... reads those runs (their filter and fault counts)"
"$FT" replay "$DB" --trace 3 --pid "$pid" -P thp > /dev/null
"$FT" compare "$DB" --trace 3 > "$T/out" 2> "$T/err"
rc=$?
check "two selections, none the default: exit 1, one line naming both" sh -c \
	"test $rc = 1 && test \$(wc -l < '$T/err') = 1 && grep -q -- '--comm pf-loop, --pid $pid: give one' '$T/err'"
"$FT" report "$DB" -o "$T/x.html" > /dev/null 2> "$T/err"
rc=$?
check "  ... report of the whole database says the same" sh -c \
	"test $rc = 1 && test \$(wc -l < '$T/err') = 1 && grep -q 'trace 3 for the workload' '$T/err' && test ! -e '$T/x.html'"
"$FT" compare "$DB" --trace 3 --pid "$pid" > /dev/null
ok $? "  ... and with --pid it reads that selection"

# --- a workload that re-executes itself keeps its name (docs/schema.md, process.comm) ---
babeltrace2 "$M" 2> /dev/null | grep 'sched_process_exec:' | sed -n 's/.*filename = "\([^"]*\)", tid = \([0-9]*\).*/\2 \1/p' > "$T/execs"
mpid=$(awk '$2 == "/proc/self/exe" { print $1 }' "$T/execs")
check "the malloc-churn fixture re-execs through /proc/self/exe (babeltrace2)" \
	grep -qx "$mpid /bin/malloc-churn" "$T/execs"
names=$("$FT" query "$DB" --format csv sql "SELECT count(*) FILTER (WHERE comm = 'malloc-churn') || ' ' || count(*) FILTER (WHERE comm = 'exe') FROM process WHERE trace_id = 2 AND pid = $mpid" | tail -1)
check "  ... and both its processes (before and after the re-exec) are malloc-churn, none exe" \
	test "$names" = "2 0"
done_testing
