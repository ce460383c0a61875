#!/bin/sh
# replay.sh - foliotrace replay, compare and report end to end on SYNTHETIC trace databases
# (tests/cli/synth-db.c writes them from replay/synth.c streams), and the differential check
# (--check-oracle) on every trace fixture under tests/data/ and tests/data-packets/.
. "$(dirname "$0")/../test-lib.sh"

plan 58
SYNTH=$BUILD/testprogs/synth-db	# built by make from tests/cli/synth-db.c
check "synth-db is built (make)" test -x "$SYNTH"
ALL="-P mcpage:2 -P mcpage:4 -P mthp:16K,32K,64K -P faultaround:16 -P thp -P adaptive"

"$SYNTH" "$T/k.db" kbuild-like 1 100000 > /dev/null &&
	"$SYNTH" "$T/r.db" random 5 3000 > /dev/null &&
	"$SYNTH" "$T/m.db" random 6 2000 mcpage:2 > /dev/null
ok $? "synthetic databases written"

# --- replay ---
"$FT" replay "$T/k.db" $ALL > "$T/out" 2> "$T/err"
ok $? "replay of 6 policies exits 0"
check "no warning for an order0 trace" test ! -s "$T/err"
n=$("$FT" query "$T/k.db" --format csv sql "SELECT count(*) FROM replay_run" | tail -1)
check "7 runs stored (order0 added as the baseline)" test "$n" = 7
for p in order0 mcpage:2 mcpage:4 mthp:16K,32K,64K faultaround:16 thp adaptive:max=64K; do
	grep -q -- " $p" "$T/out" || echo "missing $p"
done > "$T/miss"
check "table output names every policy (canonical specs)" test ! -s "$T/miss"
"$FT" replay "$T/k.db" -P mcpage:4 --format json > "$T/j" &&
	python3 - "$T/j" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert [r["policy"] for r in d["runs"]] == ["order0", "mcpage:4"], d["runs"]
m = d["runs"][1]["metrics"]
for k in ("faults", "peak_rss_bytes", "final_rss_bytes", "bloat_bytes", "zeroed_bytes",
          "pte_writes", "contpte_runs", "pmd_maps", "alloc_order_4", "fallback_vma_edge"):
    assert isinstance(m[k], int), k
assert d["warnings"] == [] and d["recorded_policy"] == "order0"
assert m["faults"] < d["runs"][0]["metrics"]["faults"]
assert abs(d["runs"][1]["faults_vs_order0"] - (m["faults"] / d["runs"][0]["metrics"]["faults"] - 1)) < 1e-5
PY
ok $? "replay --format json: one document, runs with every metric"
rid=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['runs'][1]['run_id'])" "$T/j")
jf=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['runs'][1]['metrics']['faults'])" "$T/j")
sf=$("$FT" query "$T/k.db" --format csv sql "SELECT value FROM replay_metric WHERE run_id = $rid AND proc_id IS NULL AND name = 'faults'" | tail -1)
check "stored metrics are queryable with SQL and match the output" test "$jf" = "$sf"
pp=$("$FT" query "$T/k.db" --format csv sql "SELECT sum(value) FROM replay_metric WHERE run_id = $rid AND proc_id IS NOT NULL AND name = 'faults'" | tail -1)
check "per-process faults sum to the total" test "$pp" = "$sf"
"$FT" replay "$T/k.db" -P thp --format csv > "$T/csv"
check "replay --format csv: header and metric rows" sh -c "head -1 '$T/csv' | grep -q '^metric,order0,thp$' && grep -q '^faults,' '$T/csv'"

# --- errors: one line, exit 2 for a bad command line, 1 for a failure ---
"$FT" replay "$T/k.db" -P mcpage:12 > "$T/out" 2> "$T/err"
rc=$?
check "bad policy: exit 2" test $rc = 2
check "bad policy: the one-line error names the bad part" \
	test "$(cat "$T/err")" = "foliotrace: bad policy 'mcpage:12': order must be 1..8"
"$FT" replay "$T/k.db" -P mthp:16K,48K 2> "$T/err"
check "bad mthp size: exit 2, one line" sh -c "test $? = 2 && one=\$(wc -l < '$T/err') && test \$one = 1 && grep -q \"size '48K' is not a power of two\" '$T/err'"
# a newline in a spec or a path is echoed escaped: still one line (issue 12 item 9)
"$FT" replay "$T/k.db" -P "$(printf 'faultaround:\n2')" 2> "$T/err"
rc=$?
check "spec with a newline: exit 2, one line, escaped" sh -c "test $rc = 2 && test \$(wc -l < '$T/err') = 1 && grep -qF \"bad policy 'faultaround:\\\\n2': whitespace or control character at byte 12\" '$T/err'"
"$FT" replay "$T/no
such.db" -P order0 2> "$T/err"
rc=$?
check "database path with a newline: exit 1, one line, escaped" sh -c "test $rc = 1 && test \$(wc -l < '$T/err') = 1 && grep -qF 'no\\nsuch.db' '$T/err'"
"$FT" replay "$T/k.db" -P order0 --pid "$(printf '1\n2')" 2> "$T/err"
rc=$?
check "--pid with a newline: exit 2, the message on one line, escaped" sh -c "test $rc = 2 && head -1 '$T/err' | grep -qxF \"foliotrace replay: --pid wants a non-negative number, not '1\\\\n2'\""
"$FT" replay "$T/k.db" -P order0 --frag fancy 2> "$T/err"
rc=$?
check "unknown frag model: exit 2, one line" sh -c "test $rc = 2 && test \$(wc -l < '$T/err') = 1 && grep -q \"bad frag model 'fancy'\" '$T/err'"
"$FT" replay "$T/k.db" 2> /dev/null
check "no --policy: usage error" test $? = 2
"$FT" replay "$T/nosuch.db" -P order0 2> "$T/err"
rc=$?
check "missing database: exit 1, one line" sh -c "test $rc = 1 && test \$(wc -l < '$T/err') = 1"
"$FT" query "$T/r.db" sql "SELECT 1" > /dev/null
sqlite3 "$T/r.db" "DELETE FROM trace_meta WHERE key = 'buddyinfo.before'" 2>/dev/null ||
	"$FT" replay "$T/r.db" -P order0 > /dev/null
"$FT" replay "$T/r.db" -P mcpage:4 --frag buddyinfo 2> "$T/err"
rc=$?
check "--frag buddyinfo without a recorded buddyinfo: exit 1, one line" \
	sh -c "test $rc = 1 && test \$(wc -l < '$T/err') = 1 && grep -q 'no buddyinfo.before' '$T/err'"

# --- a trace not recorded under order0 ---
"$FT" replay "$T/m.db" -P mcpage:4 > "$T/out" 2> "$T/err"
ok $? "replay of an mcpage:2 trace exits 0"
check "warning on stderr" grep -q "recorded under mcpage:2, not order0" "$T/err"
check "warning in the table output" grep -q "^warning: .*recorded under mcpage:2" "$T/out"
"$FT" replay "$T/m.db" -P mcpage:4 --format json 2> /dev/null |
	python3 -c "import json,sys; d=json.load(sys.stdin); assert 'mcpage:2' in d['warnings'][0]"
ok $? "warning in the JSON output"

# --- filters ---
"$FT" replay "$T/k.db" -P mcpage:4 --comm cc1 > "$T/out"
ok $? "--comm cc1"
f=$("$FT" query "$T/k.db" --format csv sql "SELECT filter FROM replay_run ORDER BY run_id DESC LIMIT 1" | tail -1)
check "the filter is stored with the run" test "$f" = "comm=cc1"
"$FT" replay "$T/k.db" -P mcpage:4 --comm nosuch 2> "$T/err"
check "--comm matching nothing: exit 1" test $? = 1
"$FT" replay "$T/k.db" -P mcpage:4 --pid 1001 --format json |
	python3 -c "import json,sys; d=json.load(sys.stdin); assert d['processes'] == 1 and d['filter'] == 'pid=1001'"
ok $? "--pid selects one process"

# --- the differential check through the CLI, both allocation models ---
"$FT" replay "$T/r.db" --check-oracle -n $ALL > /dev/null
ok $? "random stream: engine and oracle agree, frag none"
"$FT" replay "$T/k.db" --check-oracle -n --frag buddyinfo -P mcpage:4 -P adaptive > /dev/null
ok $? "kbuild-like stream: engine and oracle agree, frag buddyinfo"

# --- compare ---
"$FT" compare "$T/k.db" > "$T/cmp"
ok $? "compare exits 0"
check "compare: baseline first, every policy" sh -c "sed -n 4p '$T/cmp' | grep -q '^order0 ' && test \$(tail -n +4 '$T/cmp' | wc -l) = 7"
"$FT" compare "$T/k.db" --format json > "$T/cj"
python3 - "$T/cj" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert isinstance(d, list) and len(d) == 7
assert d[0]["policy"] == "order0" and d[0]["baseline"] and d[0]["faults_vs_baseline"] == 0
for o in d:
    for k in ("policy", "faults", "peak_rss_bytes", "bloat_bytes", "zeroed_bytes", "fallbacks",
              "final_rss_bytes", "faults_vs_baseline", "alloc_by_order", "contpte_runs",
              "pmd_maps", "fallbacks_total", "rss_byte_seconds", "rss_byte_seconds_vs_baseline",
              "collapses", "splits", "split_freed_pages"):
        assert k in o, k
    assert sum(o["fallbacks"].values()) == o["fallbacks_total"]
PY
ok $? "compare --format json: one object per policy with the documented fields"
"$FT" compare "$T/k.db" --format csv | python3 -c "import csv,sys; r=list(csv.DictReader(sys.stdin)); assert len(r)==7 and float(r[1]['faults_vs_base']) < 0"
ok $? "compare --format csv: ratios as numbers"
"$FT" compare "$T/k.db" --baseline mcpage:3 2> "$T/err"
check "compare against a baseline never run: exit 1, says how" sh -c "test $? = 1 && grep -q 'replay DB --policy mcpage:3' '$T/err'"
"$FT" compare "$T/k.db" --baseline mcpage:4 --format json |
	python3 -c "import json,sys; d=json.load(sys.stdin); assert d[0]['policy']=='mcpage:4' and d[0]['baseline']"
ok $? "compare --baseline mcpage:4"
"$FT" compare "$T/k.db" --comm cc1 --format json |
	python3 -c "import json,sys; d=json.load(sys.stdin); assert [o['policy'] for o in d]==['order0','mcpage:4'] and d[0]['filter']=='comm=cc1'"
ok $? "compare --comm picks the runs made with that filter"

# --- report ---
"$FT" report "$T/k.db" -o "$T/report.html" > /dev/null
ok $? "report writes the page"
check "report is self-contained (no external resource)" \
	sh -c "! grep -E '<link|src=|@import|url\\(|https?://[^\"]*\"' '$T/report.html' | grep -v 'xmlns=\"http://www.w3.org/2000/svg\"' | grep -q ."
CHROME=/usr/bin/chromium
if [ -x $CHROME ]; then
	prof=$(mktemp -d "$T/chrome.XXXXXX")
	timeout 120 $CHROME --headless --no-sandbox --disable-gpu --disable-background-networking \
		--disable-component-update --disable-sync --no-first-run --user-data-dir="$prof" \
		--enable-logging=stderr --v=0 --dump-dom "file://$T/report.html" > "$T/dom" 2> "$T/chrome.err"
	check "chromium renders the report (dump-dom)" grep -q '</html>' "$T/dom"
	check "the script ran: 7 charts counted" grep -q 'data-ready="7"' "$T/dom"
	nsvg=$(grep -o '<svg' "$T/dom" | wc -l)
	check "7 SVG charts in the DOM (5 bar charts, memory and fault rate over time)" test "$nsvg" = 7
	check "bars are drawn" test "$(grep -o 'class="bar"' "$T/dom" | wc -l)" -gt 30
	check "no JavaScript error" sh -c "! grep -qiE 'Uncaught|CONSOLE\\(.*error' '$T/chrome.err'"
	timeout 120 $CHROME --headless --no-sandbox --disable-gpu --disable-background-networking \
		--disable-component-update --disable-sync --no-first-run --user-data-dir="$prof" \
		--window-size=1100,2400 --screenshot="$T/shot.png" "file://$T/report.html" \
		> /dev/null 2>&1
	python3 "$TOP/tests/cli/png-ink.py" "$T/shot.png" 100
	ok $? "the screenshot is not blank"
else
	for i in 1 2 3 4 5 6; do ok 1 "chromium missing: $CHROME"; done
fi
"$FT" report "$T/m.db" -o "$T/m.html" > /dev/null 2>&1
check "report of an mcpage:2 trace carries the warning" grep -q 'id="warning".*mcpage:2' "$T/m.html"
"$FT" report "$T/r.db" -o "$T/x.html" --baseline thp 2> "$T/err"
check "report without runs of the baseline: exit 1" test $? = 1

# --- --help and the man pages name the same options ---
for cmd in replay compare report; do
	"$FT" $cmd --help | grep -o -- '--[a-z][a-z-]*' | sort -u > "$T/h.opts"
	sed -n '/^\.SH OPTIONS/,/^\.SH /p' "$TOP/docs/man/foliotrace-$cmd.1" | sed 's/\\-/-/g' |
		grep -o -- '--[a-z][a-z-]*' | sort -u > "$T/m.opts"
	check "$cmd: --help and the man page agree on the options" cmp "$T/h.opts" "$T/m.opts"
done

# --- +mechanisms (docs/policies.md, "Mechanisms") ---
cp "$T/r.db" "$T/mech.db"
"$FT" replay "$T/mech.db" -n --check-oracle -P thp+khugepaged:scan_ms=1 \
	-P thp+shrinker:max_ptes_none=409+limit:4M -P mcpage:4+limit:2M \
	-P mthp:16K,64K+collapse:scan_ms=1 -P mcpage:4+collapse:max_ptes_none=0,scan_ms=1 \
	> /dev/null 2> "$T/err"
ok $? "+khugepaged, +collapse, +shrinker, +limit: engine and oracle agree"
"$FT" replay "$T/mech.db" -P mthp:16K,32K,64K+collapse:scan_ms=1 > /dev/null 2> "$T/err" &&
	"$FT" compare "$T/mech.db" --format json > "$T/mj" 2> "$T/err" &&
	python3 - "$T/mj" <<'PY'
import json, sys
o = [r for r in json.load(open(sys.argv[1])) if r["policy"] == "mthp:16K,32K,64K+collapse:scan_ms=1"]
assert len(o) == 1, o
c = o[0]["collapse_by_order"]
assert sorted(c) == [str(k) for k in range(2, 10)], c
assert o[0]["collapses"] > 0 and sum(c.values()) == o[0]["collapses"], o[0]
assert c["4"] > 0 and c["9"] == 0 and c["8"] == 0, c
PY
ok $? "+collapse: compare JSON's collapse_by_order, its sum the collapses, orders enabled only"
"$FT" replay "$T/mech.db" -n -P order0+collapse > /dev/null 2> "$T/err"
check "+collapse on a policy without a size to collapse to: exit 2, one line" sh -c "test $? = 2 &&
	test \$(wc -l < '$T/err') = 1 && grep -q 'enables no THP size to collapse to' '$T/err'"
"$FT" replay "$T/mech.db" -n -P thp+shrinker > /dev/null 2> "$T/err"
check "+shrinker without +limit: exit 2, one line naming it" sh -c "test $? = 2 &&
	test \$(wc -l < '$T/err') = 1 && grep -q 'shrinker needs +limit:SIZE' '$T/err'"
"$FT" guest knob thp+khugepaged > /dev/null 2> "$T/err"
check "guest knob of a spec with a mechanism: exit 1, simulation only" sh -c "test $? = 1 &&
	grep -q 'simulation-only: its +mechanisms' '$T/err'"

# --- every trace fixture: engine and oracle agree on every metric ---
mkdir "$T/cons"
ingest_fixtures
while read -r n; do
	db="$T/fx-$n.db"
	for frag in none buddyinfo; do
		"$FT" replay "$db" -n --check-oracle --frag $frag $ALL -P mcpage:1 -P mcpage:8 \
			-P mthp:8K,1M -P faultaround:2 -P adaptive:max=1M \
			-P thp+khugepaged:scan_ms=100+shrinker:max_ptes_none=409+limit:8M \
			-P mthp:16K,64K+collapse:scan_ms=100 -P mcpage:4+limit:2M \
			> /dev/null 2> "$T/err" ||
			{ diag "$n frag=$frag: $(cat "$T/err")"; bad=$((bad + 1)); }
	done
	# inputs of the self-consistency check below (one python3 for all fixtures): the
	# process rows, the faults, and two replays under the recorded policy: the default
	# selection (the workload's processes when the trace marks them, filter.h) and, for a
	# trace that marks them, every process (a copy of the database with the marks cleared)
	c="$T/cons/$n"
	"$FT" query "$db" --format csv sql "SELECT coalesce(policy, 'order0') FROM trace" |
		tail -1 > "$c.pol"
	"$FT" query "$db" --format json sql "SELECT proc_id, pid, workload, anon_faults, zero_wp, cow FROM process" > "$c.proc.json"
	"$FT" query "$db" --format csv faults > "$c.faults.csv"
	"$FT" replay "$db" -n -P "$(cat "$c.pol")" --format json > "$c.sim.json" 2> /dev/null
	if [ "$("$FT" query "$db" --format csv sql "SELECT count(*) FROM process WHERE workload = 1" | tail -1)" -gt 0 ]; then
		cp "$db" "$T/all.db"
		python3 -c "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute('UPDATE process SET workload = NULL'); c.commit()" "$T/all.db"
		"$FT" replay "$T/all.db" -n -P "$(cat "$c.pol")" --format json > "$c.all.json" 2> /dev/null
	fi
	# and each process alone (--pid P): a fork child of P not selected is replayed for the
	# pages it shares with P, so P's writes copy while the child maps them, as recorded
	for pid in $("$FT" query "$db" --format csv sql "SELECT DISTINCT pid FROM process" | tail -n +2); do
		"$FT" replay "$db" -n --check-oracle -P "$(cat "$c.pol")" --pid "$pid" \
			--format json > "$c.pid-$pid.json" 2> "$T/err" ||
			{ diag "$n --pid $pid: $(cat "$T/err")"; bad=$((bad + 1)); }
	done
done < "$T/fixtures"
diag "$fixtures trace fixtures checked"
check "every fixture under tests/data: engine and oracle agree ($fixtures fixtures)" \
	test "$bad" = 0 -a "$fixtures" -gt 0

# self-consistency: replayed under the policy it was recorded with, the model must take the
# recorded faults and allocate the recorded orders (real traces: exactly; the synthetic
# ones are made up and need not be consistent, so only reported). The recorded side is
# summed over the processes the replay selected: the default selection takes the
# workload's processes of a trace that marks them (process.workload, schema 002), so a
# sum over every process would count the guest's setup (init, ft-launch, lttng) the replay
# left out; the copy with the marks cleared checks every process; each process alone
# (--pid) checks that a process's fork children, not selected, still share its pages (its
# recorded COW faults). Prints one diagnostic per fixture and selection and, last, "REAL
# INCONSISTENT PIDS PIDS_INCONSISTENT" (the --pid selections counted apart).
python3 - "$T/cons" > "$T/consist" <<'PY'
import collections, csv, json, os, sys
top = sys.argv[1]
real = inconsistent = pids = pids_bad = 0
FALLBACKS = ("vma_edge", "pte_populated", "alloc_failed", "nohugepage", "uffd", "race", "read")

def consistent(label, pol, procs, faults, m, nprocs):
    ids = set(p["proc_id"] for p in procs)
    rec = dict((k, sum(p[k] for p in procs)) for k in ("anon_faults", "zero_wp", "cow"))
    sel = [f for f in faults if int(f["proc_id"]) in ids]
    fb = collections.Counter(f["fallback"] for f in sel)
    orders = collections.Counter(int(f["order"]) for f in sel if f["zero_page"] == "0")
    print("# %s (recorded under %s, %d processes, replay %d):" % (label, pol, len(procs), nprocs),
          "recorded %d faults + %d zero_wp, %d cow; replay %d first-touch + %d zero_wp, %d cow;"
          % (rec["anon_faults"], rec["zero_wp"], rec["cow"], m["faults"] - m["zero_wp_faults"],
             m["zero_wp_faults"], m["cow_faults"]),
          "order:recorded/replayed",
          " ".join("%d:%d/%d" % (k, orders[k], m["alloc_order_%d" % k])
                   for k in range(1, 10) if orders[k] or m["alloc_order_%d" % k]) or "-",
          "; fallbacks recorded/replayed",
          " ".join("%s:%d/%d" % (r, fb[r], m["fallback_" + r])
                   for r in FALLBACKS if fb[r] or m["fallback_" + r]) or "-")
    # race: the recorded loser installed nothing, the model maps the page once
    # (docs/policies.md)
    return (nprocs == len(procs) and
            m["faults"] - m["zero_wp_faults"] == rec["anon_faults"] and
            all(fb[r] == m["fallback_" + r] for r in ("vma_edge", "pte_populated",
                                                      "nohugepage", "uffd", "read")) and
            m["zero_wp_faults"] == rec["zero_wp"] and m["cow_faults"] == rec["cow"] and
            all(orders[k] == m["alloc_order_%d" % k] for k in range(1, 10)))

for name in sorted(f[:-4] for f in os.listdir(top) if f.endswith(".pol")):
    p = os.path.join(top, name)
    pol = open(p + ".pol").read().strip()
    procs = json.load(open(p + ".proc.json"))
    faults = list(csv.DictReader(open(p + ".faults.csv")))
    marked = [q for q in procs if q["workload"] == 1]
    sim = json.load(open(p + ".sim.json"))
    runs = [(name, marked or procs, sim)]
    if marked:
        runs.append((name + ", every process", procs, json.load(open(p + ".all.json"))))
    for pid in sorted(set(q["pid"] for q in procs)):
        runs.append((name + ", --pid %d" % pid, [q for q in procs if q["pid"] == pid],
                     json.load(open(p + ".pid-%d.json" % pid))))
    for label, sel, d in runs:
        same = consistent(label, pol, sel, faults, d["runs"][-1]["metrics"], d["processes"])
        if name.startswith("synthetic-"):
            continue
        alone = "--pid" in label
        real += not alone
        pids += alone
        if not same:
            inconsistent += not alone
            pids_bad += alone
            print("#   ^ not what the recording kernel did")
print(real, inconsistent, pids, pids_bad)
PY
sed '$d' "$T/consist"
set -- $(tail -1 "$T/consist")
check "real traces replayed under their recorded policy give the recorded faults, zero_wp, cow, orders and fallbacks of the processes replayed (${1:-?} selections, ${2:-?} inconsistent)" \
	test "${1:-0}" -gt 0 -a "${2:-1}" = 0
check "and so does each process alone, --pid, its fork children sharing its pages (${3:-?} selections, ${4:-?} inconsistent)" \
	test "${3:-0}" -gt 0 -a "${4:-1}" = 0

done_testing
