#!/bin/sh
# report-browser.sh - the report checked in a real browser (issue 28 item 4): a demo-sized
# database (the x86_64 order0 recordings of tests/data, replayed under make demo's
# policies) and a comparison of two recordings of one workload (before and after a
# change of the recording kernel's policy), each opened in headless Chromium through the
# DevTools protocol (browser.py): no console message at error or warning level, every
# chart present with a non-zero size, the charts' counts equal to what the database holds
# (read here with Python's sqlite3, not through foliotrace), hover values on every chart.
# The pages and their screenshots stay under build/report-browser/ for a person to look at.
. "$(dirname "$0")/../test-lib.sh"

plan 17
CHROME=/usr/bin/chromium
D="$TOP/tests/data"
OUT="$BUILD/report-browser"
POLICIES="order0 mcpage:2 mcpage:4 mthp:16K,32K,64K thp"	# tools/demo.sh's
FIX="anon-touch sparse pf-loop malloc-churn fork-cow"
mkdir -p "$OUT"
rm -f "$OUT"/*.db "$OUT"/*.html "$OUT"/*.png

have=0
for f in $FIX; do [ -d "$D/x86_64-$f-order0" ] && have=$((have + 1)); done
check "chromium and the 5 recordings exist" test -x "$CHROME" -a "$have" = 5

DB="$OUT/demo.db"
rc=0
for f in $FIX; do "$FT" ingest -q -o "$DB" "$D/x86_64-$f-order0" || rc=1; done
set --
for p in $POLICIES; do set -- "$@" --policy "$p"; done
for id in 1 2 3 4 5; do "$FT" replay "$DB" --trace "$id" "$@" > /dev/null || rc=1; done
ok $rc "5 recordings ingested, each replayed under the demo's 5 policies"

"$FT" report "$DB" -o "$OUT/report.html" > "$T/out" 2> "$T/err"
check "report of the demo-sized database: exit 0, 5 of 5 traces" \
	grep -qx "wrote $OUT/report.html: 5 of 5 traces" "$T/out"

# What the page holds, as the browser laid it out: every chart, its size, its bars,
# hover titles and data attributes; the summary tables' cells per trace.
EXPR='JSON.stringify({
 ready: document.documentElement.dataset.ready,
 charts: Array.from(document.querySelectorAll("svg.chart")).map(s => {
  const r = s.getBoundingClientRect(), g = s.querySelector("g[data-lines]"),
        h = s.querySelector("g.heat");
  return { id: s.id, w: r.width, h: r.height, bars: s.querySelectorAll("rect.bar").length,
           hover: s.querySelectorAll("rect > title").length,
           lines: g ? +g.dataset.lines : null, points: g ? +g.dataset.points : null,
           drawn: s.querySelectorAll("polyline.line").length,
           proc: h ? +h.dataset.proc : null, faults: h ? +h.dataset.faults : null,
           cells: s.querySelectorAll("rect.cell").length };
 }),
 summary: Array.from(document.querySelectorAll("table[id^=summary-] tr[data-trace]")).map(
  tr => [tr.closest("table").id, +tr.dataset.trace, tr.querySelectorAll("td[data-policy]").length]),
 against: Array.from(document.querySelectorAll("#against tr")).length - 1
})'
timeout 180 python3 "$TOP/tests/cli/browser.py" "$CHROME" "$OUT/report.html" "$OUT/report.png" \
	"$EXPR" > "$T/page.json" 2> "$T/browser.err"
ok $? "chromium loads the page and runs the probe (DevTools protocol)"
[ -s "$T/browser.err" ] && sed 's/^/# /' "$T/browser.err"

# The expectations, from the database alone.
python3 - "$DB" > "$T/want.json" <<'PY'
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
q = lambda sql, *a: db.execute(sql, a).fetchall()
want = {}
for (t,) in q("SELECT trace_id FROM trace WHERE parent_trace_id IS NULL ORDER BY trace_id"):
    pol = [p for (p,) in q("SELECT DISTINCT policy FROM replay_run WHERE trace_id = ? AND kind = 'sim'", t)]
    heat = q("SELECT proc_id, anon_faults FROM process WHERE trace_id = ? AND anon_faults > 0 "
             "ORDER BY coalesce(workload, 0) = 1 DESC, anon_faults DESC, proc_id LIMIT 3", t)
    points = q("SELECT length(series) / 32 FROM replay_run WHERE trace_id = ? AND kind = 'sim'", t)
    want[t] = {"policies": len(pol), "heat": dict(heat), "points": sorted({n for (n,) in points})}
print(json.dumps(want))
PY
ok $? "the expectations read from the database (python3 sqlite3)"

python3 - "$T/page.json" "$T/want.json" > "$T/py.out" 2>&1 <<'PY'
import json, sys
page = json.load(open(sys.argv[1]))
want = {int(k): v for k, v in json.load(open(sys.argv[2])).items()}
bad = [m for m in page["console"] if m["level"] in ("error", "warning", "exception", "assert")]
assert not bad, bad
print("console messages", len(page["console"]))
PY
ok $? "no console error or warning"
sed 's/^/# /' "$T/py.out"

check_page() { # check_page DESCRIPTION PYTHON: run PYTHON with page and want loaded
	python3 - "$T/page.json" "$T/want.json" "$2" > "$T/py.out" 2>&1 <<'PY'
import json, sys
outer = json.load(open(sys.argv[1]))
page = json.loads(outer["value"])
page["console"] = outer["console"]
want = {int(k): v for k, v in json.load(open(sys.argv[2])).items()}
charts = {c["id"]: c for c in page["charts"]}
exec(sys.argv[3])
PY
	ok $? "$1"
	sed 's/^/# /' "$T/py.out" | tail -5
}

check_page "every chart is there: per trace 5 bar charts, 2 time charts, a heat map per busy process" '
n = sum(5 + 2 + len(w["heat"]) for w in want.values())
ids = [c["id"] for c in page["charts"]]
for t, w in want.items():
    for name in ("faults", "memory", "orders", "fallbacks", "latency", "rss-time", "fault-rate"):
        assert "t%d-%s" % (t, name) in charts, (t, name)
    for proc in w["heat"]:
        assert "t%d-heat-%s" % (t, proc) in charts, (t, proc)
assert len(ids) == n == int(page["ready"]), (len(ids), n, page["ready"])
print("charts", n)'
check_page "every chart has a non-zero size in the layout" '
small = [(c["id"], c["w"], c["h"]) for c in page["charts"] if c["w"] <= 0 or c["h"] <= 0]
assert not small, small'
check_page "hover values on every chart (a <title> per bar, cell or time column)" '
for c in page["charts"]:
    assert c["hover"] >= max(c["bars"], c["cells"], 1), c
    if c["lines"] is not None:
        assert c["hover"] == 120, c'
check_page "faults and memory charts: a bar per policy the trace was replayed under" '
for t, w in want.items():
    assert charts["t%d-faults" % t]["bars"] == w["policies"], t
    assert charts["t%d-memory" % t]["bars"] % w["policies"] == 0, t'
check_page "time charts: a line per policy, as many points as the stored series per run" '
for t, w in want.items():
    for name in ("rss-time", "fault-rate"):
        c = charts["t%d-%s" % (t, name)]
        assert c["lines"] == c["drawn"] == w["policies"], (t, name, c)
        assert w["points"] == [c["points"]] == [240], (t, name, w["points"], c)'
check_page "heat maps: the faults binned equal process.anon_faults, cells drawn" '
for t, w in want.items():
    for proc, faults in w["heat"].items():
        c = charts["t%d-heat-%s" % (t, proc)]
        assert c["proc"] == int(proc) and c["faults"] == faults and c["cells"] > 0, (t, proc, c)'
check_page "workloads x policies tables: a row per trace, a cell per policy" '
rows = {}
for table, t, cells in page["summary"]:
    assert cells == want[t]["policies"], (table, t, cells)
    rows.setdefault(table, set()).add(t)
assert len(rows) == 3 and all(r == set(want) for r in rows.values()), rows'

# the screenshot is not blank: many colors, some ink (tests/cli/png-ink.py)
check "the screenshot is saved under build/ and not blank" \
	python3 "$TOP/tests/cli/png-ink.py" "$OUT/report.png" 200

# --- a comparison: anon-touch recorded under order0 (A) and under mcpage:2 (B) ---
"$FT" ingest -q -o "$OUT/a.db" "$D/x86_64-anon-touch-order0" &&
	"$FT" ingest -q -o "$OUT/b.db" "$D/x86_64-anon-touch-mcpage2" &&
	"$FT" replay "$OUT/a.db" "$@" > /dev/null && "$FT" replay "$OUT/b.db" -P mcpage:4 -P thp > /dev/null 2>&1 &&
	"$FT" report "$OUT/a.db" "$OUT/b.db" -o "$OUT/against.html" > "$T/out"
check "report A.db B.db: exit 0, 3 policies on both sides (order0 added to B's)" \
	grep -qx "wrote $OUT/against.html: trace 1 against trace 1, 3 policies on both sides" "$T/out"
timeout 180 python3 "$TOP/tests/cli/browser.py" "$CHROME" "$OUT/against.html" "$OUT/against.png" \
	"$EXPR" > "$T/page.json" 2> "$T/browser.err"
[ -s "$T/browser.err" ] && sed 's/^/# /' "$T/browser.err"
printf '{}' > "$T/want.json"
check_page "comparison in the browser: no console error, 5 charts of non-zero size, hover values" '
assert not [m for m in page["console"] if m["level"] in ("error", "warning", "exception")]
assert sorted(charts) == sorted(["against-faults", "against-peak", "against-bloat",
                                 "against-rss-time", "against-fault-rate"]), sorted(charts)
assert all(c["w"] > 0 and c["h"] > 0 and c["hover"] > 0 for c in page["charts"])'
check_page "  ... a row and bar pair per policy (5 of A, thp and mcpage:4 also B), a line per run (5 + 3)" '
assert page["against"] == 5, page["against"]
assert charts["against-faults"]["bars"] == 10
assert charts["against-rss-time"]["lines"] == charts["against-rss-time"]["drawn"] == 8'
done_testing
