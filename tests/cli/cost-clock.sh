#!/bin/sh
# cost-clock.sh - the guest clock (header/clock, schema 007) without a guest: copies of the
# REAL x86_64 fixtures given a header clock (tcg or icount, as run.sh writes it) are stored
# with it (trace.clock, `query summary` field clock in table, CSV and JSON), calibrate keys
# its models by it, and replay refuses a model of another clock with one line naming both,
# storing nothing; a model of the trace's own clock is used even beside one of another. An
# icount model (from the real icount recordings of tests/data-icount) is fitted on the
# shapes' mean latencies (a tcg one on their medians): with two shapes its new_ns and
# byte_ns are the line through the two means, computed here by awk. A
# schema-6 database migrates: its models keep their accelerator as their clock, its traces
# have no clock, and a fixture without one (recorded before it) still finds its model.
. "$(dirname "$0")/../test-lib.sh"

plan 21
D=$TOP/tests/data
q() { "$FT" query "$1" --format csv sql "$2" | tail -n +2; }
# fixture NAME CLOCK: a copy of the fixture whose header says accel tcg and clock CLOCK
fixture() {
	cp -r "$D/x86_64-$1" "$T/$1-$2"
	echo tcg > "$T/$1-$2/header/accel"
	echo "$2" > "$T/$1-$2/header/clock"
	echo "$T/$1-$2"
}

# the tcg models from the fixtures, the icount ones from real icount recordings of the same
# workloads (tests/data-icount): TCG latencies labelled icount give a negative byte cost
# once fitted on their means
for p in anon-touch-order0 anon-touch-mcpage2; do
	"$FT" ingest -q -o "$T/cal-tcg.db" "$(fixture $p tcg)"
	"$FT" ingest -q -o "$T/cal-icount.db" "$TOP/tests/data-icount/x86_64-$p"
done
"$FT" ingest -q -o "$T/ho.db" "$(fixture pf-loop-order0 icount)"
clocks="$(q "$T/ho.db" "SELECT clock FROM trace")"
clocks="$clocks $(q "$T/cal-tcg.db" "SELECT group_concat(clock, ' ') FROM trace")"
check "trace.clock stored from header/clock" test "$clocks" = "icount tcg tcg"
"$FT" query "$T/ho.db" summary --format json > "$T/s.json"
check "query summary JSON: \"clock\": \"icount\"" python3 -c \
	"import json, sys; sys.exit(json.load(open('$T/s.json'))['clock'] != 'icount')"
"$FT" query "$T/ho.db" summary > "$T/s.txt"
check "query summary table: a clock row saying icount" grep -Eq '^clock +icount *$' "$T/s.txt"
"$FT" query "$T/ho.db" summary --format csv > "$T/s.csv"
check "query summary CSV: clock,icount" grep -qx 'clock,icount' "$T/s.csv"

# a model of the tcg clock, stored beside the icount trace
"$FT" calibrate -f csv -o "$T/ho.db" "$T/cal-tcg.db" > "$T/cal.csv"
ok $? "calibrate on tcg-clock traces exits 0"
check "calibrate prints the model's clock" sh -c \
	"head -1 '$T/cal.csv' | grep -q '^arch,kernel,accel,clock,' &&
	 sed -n 2p '$T/cal.csv' | grep -q '^x86_64,[^,]*,tcg,tcg,'"
check "cost_model keyed by clock: x86_64 tcg tcg" test \
	"$(q "$T/ho.db" "SELECT arch || ' ' || accel || ' ' || clock FROM cost_model")" = "x86_64 tcg tcg"
cp "$T/ho.db" "$T/ho.before"
"$FT" replay "$T/ho.db" --policy order0 > "$T/out" 2> "$T/err"
ok $(( $? != 1 )) "replay of an icount trace with only a tcg-clock model: exit 1"
diag "$(cat "$T/err")"
check "the refusal is one line naming both clocks" sh -c \
	"[ \$(wc -l < '$T/err') = 1 ] && grep -q 'fitted on the tcg clock' '$T/err' &&
	 grep -q 'recorded on the icount clock' '$T/err'"
check "the refusal stores nothing (database byte-identical)" cmp "$T/ho.db" "$T/ho.before"

# the trace's own clock's model is used, the other one left alone
"$FT" calibrate -o "$T/ho.db" "$T/cal-icount.db" > /dev/null
ok $? "calibrate on icount-clock traces exits 0"
check "two models now, one per clock" test "$(q "$T/ho.db" \
	"SELECT group_concat(clock, ' ') FROM (SELECT clock FROM cost_model ORDER BY clock)")" = "icount tcg"
"$FT" replay "$T/ho.db" --policy order0 > /dev/null 2> "$T/err"
ok $? "replay with an icount model beside the tcg one exits 0"
check "fault_time_ns stored for the run" test \
	"$(q "$T/ho.db" "SELECT count(*) FROM replay_metric WHERE name = 'fault_time_ns' AND proc_id IS NULL")" = 1

# icount: the fit goes through the mean latency of each shape (4K and 16K folios here: the
# new-folio faults of both traces, fallbacks included) among the faults that found their
# 2M range's page table, and table_ns is the mean extra of those of a shape that allocated
# it (the first fault of a process in a range: anon-touch unmaps no whole range before it
# exits), as medians, weighted by their count, a process's first fault in a 1G range (a PMD table too)
# left out of that; the line is then through the means less table_ns for each table a
# fault allocated; tcg's through the medians. And the per-cpu lists' refills: as many of
# the 4K faults, and of the 16K ones, as bench/pcp-refills.py's model of the lists
# (Python, over babeltrace2's text of each trace) counts refilling them, the largest, cost
# more by the mean of those less the mean of the others; refill_ns and refill_block_ns
# are the line through those two costs against the blocks a refill takes (63, 15), and
# each shape's mean is taken less its refills at the line's price
r0=0 r2=0
for p in anon-touch-order0 anon-touch-mcpage2; do
	tot=$(python3 "$TOP/bench/pcp-refills.py" --totals "$TOP/tests/data-icount/x86_64-$p/trace")
	r0=$((r0 + $(echo "$tot" | sed -n 's/^new=\([0-9]*\) .*/\1/p')))
	r2=$((r2 + $(echo "$tot" | sed -n 's/.* new2=\([0-9]*\) .*/\1/p')))
done
refills="$r0 $r2"
for t in 1 2; do "$FT" query "$T/cal-icount.db" --trace $t faults --format csv | sed "s/^/$t,/"; done \
	> "$T/faults.csv"
line=$(python3 - "$T/faults.csv" "$refills" <<'PY'
import csv, sys
seen, seen1g, rows = set(), set(), []
for r in csv.reader(open(sys.argv[1])):
    if r[1] == "ts" or r[8] != "0":
        continue
    key = (r[0], r[11], int(r[4], 16) >> 21)
    upper = (r[0], r[11], int(r[4], 16) >> 30)
    tables = 0 if key in seen else 1 if upper in seen1g else 2
    seen.add(key)
    seen1g.add(upper)
    rows.append((int(r[6]), tables, int(r[10])))
def mean(v):
    return sum(v) / len(v)
def median(v):
    v = sorted(v)
    return (v[(len(v) - 1) // 2] + v[len(v) // 2]) / 2
lab = {}
for o, n, lat in rows:
    lab.setdefault((o, n), []).append(lat)
w = [(len(lab[(o, 1)]), median(lab[(o, 1)]) - median(lab[(o, 0)])) for o in (0, 2)
     if len(lab.get((o, 1), [])) >= 16 and len(lab.get((o, 0), [])) >= 16]
t = sum(n * d for n, d in w) / sum(n for n, _ in w) if w else 0
t = t if t > 0 else 0
lat = {o: sorted(x - n * t for oo, n, x in rows if oo == o) for o in (0, 2)}
r = dict(zip((0, 2), map(int, sys.argv[2].split())))
batch = {0: 63, 2: 15}
cost = {}
for o in (0, 2):
    if r[o] >= 16 and len(lat[o]) - r[o] >= 16:
        c = mean(lat[o][-r[o]:]) - mean(lat[o][:-r[o]])
        if c > 0:
            cost[o] = c
fixed = block = None
if len(cost) == 2:
    block = (cost[0] - cost[2]) / (63 - 15)
    fixed = cost[0] - 63 * block
if cost and not (block and block > 0 and fixed >= 0):
    fixed = 0
    block = sum(batch[o] * c for o, c in cost.items()) / sum(batch[o] ** 2 for o in cost)
m = {o: mean(lat[o]) - ((fixed + block * batch[o]) * r[o] / len(lat[o]) if block else 0)
     for o in (0, 2)}
b = (m[2] - m[0]) / 12288
print("%.4f %.6f %s %s %s" % (m[0] - 4096 * b, b, "%.4f" % t if t > 0 else "none",
                              "%.4f" % fixed if block else "none",
                              "%.6f" % block if block else "none"))
PY
)
fit=$(q "$T/ho.db" "SELECT printf('%.4f %.6f ', new_ns, byte_ns) || CASE WHEN table_ns IS NULL THEN 'none' ELSE printf('%.4f', table_ns) END || ' ' || CASE WHEN refill_ns IS NULL THEN 'none' ELSE printf('%.4f', refill_ns) END || ' ' || CASE WHEN refill_block_ns IS NULL THEN 'none' ELSE printf('%.6f', refill_block_ns) END FROM cost_model WHERE clock = 'icount'")
diag "icount model new_ns byte_ns table_ns refill_ns refill_block_ns: $fit; from the means (refills of 4K and 16K faults: $refills): $line"
check "icount model: new_ns and byte_ns are the line through the shapes' means, table_ns their tables' mean cost, refill_ns and refill_block_ns the line through the refills' (or none)" \
	awk -v f="$fit" -v l="$line" 'BEGIN { split(f, a, " "); split(l, b, " ")
		exit !(b[2] > 0 && (a[1] - b[1])^2 < (b[1] / 1e4)^2 &&
		       (a[2] - b[2])^2 < (b[2] / 1e4)^2 &&
		       (a[3] == b[3] || (a[3] - b[3])^2 < (b[3] / 1e4)^2) &&
		       (a[4] == b[4] || (a[4] - b[4])^2 <= (b[4] / 1e4)^2) &&
		       (a[5] == b[5] || (a[5] - b[5])^2 < (b[5] / 1e4)^2)) }'

# schema 6: build one from migrations 001-006 with a model row, then let ingest migrate it
old=$T/v6.db
cat "$TOP"/schema/00[1-6]-*.sql > "$T/v6.sql"
printf 'PRAGMA application_id = 1181707348;\nPRAGMA user_version = 6;\n' >> "$T/v6.sql"
printf "INSERT INTO cost_model VALUES ('x86_64', '%s', 'unknown', 2000, 0.25, NULL, NULL, NULL, NULL, 100, 2, '2026-11-30T00:00:00Z', 'old');\n" \
	"$(cat "$D/x86_64-pf-loop-order0/header/kernel")" >> "$T/v6.sql"
sqlite3 "$old" < "$T/v6.sql"
"$FT" ingest -q -o "$old" "$D/x86_64-pf-loop-order0"
ok $? "ingest migrates a schema-6 database"
check "migrated: user_version 14, the old model's clock is its accel (unknown), no large_ns, cold_ns, table_ns, cow_large_ns, refill_ns, refill_block_ns nor buddy_ns" test \
	"$(sqlite3 "$old" 'PRAGMA user_version') $(q "$old" "SELECT accel || ' ' || clock || ' ' || new_ns || ' ' || (large_ns IS NULL) || (cold_ns IS NULL) || (table_ns IS NULL) || (cow_large_ns IS NULL) || (refill_ns IS NULL) || (refill_block_ns IS NULL) || (buddy_ns IS NULL) FROM cost_model")" \
	= "14 unknown unknown 2000.0 1111111"
check "a trace whose header has no clock: trace.clock NULL" test \
	"$(q "$old" "SELECT clock IS NULL FROM trace")" = 1
"$FT" replay "$old" --policy order0 > /dev/null
check "the migrated model still applies to a trace recorded before clocks (keyed by its accel)" test \
	"$(q "$old" "SELECT count(*) FROM replay_metric WHERE name = 'fault_time_ns' AND proc_id IS NULL")" = 1

# schema 13: a model whose refill_ns priced an order-0 refill (63 blocks) keeps that price
# as 63 blocks of refill_block_ns, with no fixed part
v13=$T/v13.db
cat $(ls "$TOP"/schema/0*.sql | head -n 13) > "$T/v13.sql"
printf 'PRAGMA application_id = 1181707348;\nPRAGMA user_version = 13;\n' >> "$T/v13.sql"
printf "INSERT INTO cost_model(arch, kernel, accel, clock, new_ns, byte_ns, refill_ns, samples, traces, fitted_at, tool_version) VALUES ('x86_64', 'k', 'tcg', 'icount', 900, 0.15, 6300, 100, 2, '2026-12-03T00:00:00Z', 'old');\n" >> "$T/v13.sql"
sqlite3 "$v13" < "$T/v13.sql"
"$FT" ingest -q -o "$v13" "$D/x86_64-pf-loop-order0"
ok $? "ingest migrates a schema-13 database"
check "migrated: user_version 14, refill_ns 6300 became refill_block_ns 100 and refill_ns 0, no buddy_ns" test \
	"$(sqlite3 "$v13" 'PRAGMA user_version') $(q "$v13" "SELECT refill_ns || ' ' || refill_block_ns || ' ' || (buddy_ns IS NULL) FROM cost_model")" \
	= "14 0.0 100.0 1"
done_testing
