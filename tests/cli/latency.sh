#!/bin/sh
# latency.sh - foliotrace compare DB --latency on the REAL fixtures of tests/data, every
# expected value derived here from `query faults` (awk: nearest-rank percentiles, max,
# mean rounded half up, alloc_failed fallbacks) and not from the code under test:
# - trace 1 (anon-touch order0) and trace 4 (pf-loop order0) pool into one condition
#   (x86_64, order0, none, record; traces 2);
# - trace 2 (anon-touch mcpage:2) is made "fragmented" by a header `fragment` spec;
# - trace 3 (anon-touch thp) is made a guest replay of trace 1 under thp whose replay map
#   measures only the 4M VMA of its anon-touch process (so its 4K faults elsewhere drop);
# - trace 5 (arm64 anon-touch order0) is set on the jiffies clock: left out, with a warning;
# - trace 6 (sparse order0) is made a guest replay without a replay map: left out, with a
#   warning (as a recording it would pool into trace 1's condition).
# Then JSON field names and values, and the refusals.
. "$(dirname "$0")/../test-lib.sh"

plan 14
D=$TOP/tests/data
DB=$T/lat.db
for f in x86_64-anon-touch-order0 x86_64-anon-touch-mcpage2 x86_64-anon-touch-thp \
	x86_64-pf-loop-order0 arm64-anon-touch-order0 x86_64-sparse-order0; do
	"$FT" ingest -q -o "$DB" "$D/$f" || echo "ingest $f failed" >&2
done
# facts of the fixtures the expectations rely on (checked, not assumed)
q() { "$FT" query "$DB" --format csv sql "$1" | tail -n +2; }
check "fixtures: trace ids and policies as expected" test \
	"$(q "SELECT group_concat(trace_id || ':' || policy || ':' || arch, ' ') FROM trace")" = \
	"1:order0:x86_64 2:mcpage:2:x86_64 3:thp:x86_64 4:order0:x86_64 5:order0:arm64 6:order0:x86_64"
ap1=$(q "SELECT proc_id FROM process WHERE trace_id = 1 AND comm = 'anon-touch'")
pid3=$(q "SELECT pid FROM process WHERE trace_id = 3 AND comm = 'anon-touch'")
lo=$(q "SELECT printf('%x', start) FROM vma v JOIN process p USING (proc_id) WHERE \
p.trace_id = 3 AND p.comm = 'anon-touch' AND v.end - v.start = 4194304")
check "fixtures: trace 3's anon-touch has one 4M VMA ($lo, pid $pid3)" \
	test -n "$lo" -a -n "$pid3" -a -n "$ap1"
hi=$(printf '%x' $(( 0x$lo + 4194304 )))
python3 - "$DB" "$ap1" "$pid3" "$lo" "$hi" <<'PY'
import sqlite3, sys
db, ap1, pid3, lo, hi = sys.argv[1:]
c = sqlite3.connect(db)
c.execute("INSERT INTO trace_meta VALUES (2, 'fragment', 'order:1,seed:7')")
c.execute("INSERT INTO replay_run(trace_id, policy, frag, kind, guest_trace_id, tool_version, "
          "created_at) VALUES (1, 'thp', 'none', 'guest', 3, 'test', '2026-01-01T00:00:00Z')")
c.execute("INSERT INTO trace_meta VALUES (3, 'replay_map', ?)",
          ("FTREPLAY proc=0 proc_id=%s pid=%s parent=-1\n"
           "FTREPLAY_CLUSTER proc=0 start=%s end=%s offset=0\n" % (ap1, pid3, lo, hi),))
c.execute("UPDATE trace SET clocksource = 'jiffies' WHERE trace_id = 5")
c.execute("INSERT INTO replay_run(trace_id, policy, frag, kind, guest_trace_id, tool_version, "
          "created_at) VALUES (1, 'order0', 'none', 'guest', 6, 'test', '2026-01-01T00:00:00Z')")
c.commit()
PY

# lat TRACES FILTER: "faults p50 p90 p95 p99 max mean fb_alloc_failed" of the new-folio
# faults (zero_page 0, nr_ptes > 0) of TRACES (ids) passing the awk condition FILTER,
# per order: lines "ORDER faults ...", by order
lat() {
	for id in $1; do
		"$FT" query "$DB" --trace "$id" faults --format csv | tail -n +2
	done | awk -F, "\$8 == 0 && \$7 > 0 && ($2) { print \$6, \$10, (\$9 == \"alloc_failed\") }" |
		sort -k1,1n -k2,2n | awk '
		function flush() {
			if (!n) return
			printf "%s %d", o, n
			split("50 90 95 99", P, " ")
			for (i = 1; i <= 4; i++) { r = int(P[i] * n / 100); if (r < P[i] * n / 100) r++; printf " %s", v[r] }
			printf " %s %d %d\n", v[n], int((s + int(n / 2)) / n), fb
		}
		NR == 1 || $1 != o { flush(); n = 0; s = 0; fb = 0; o = $1 }
		{ v[++n] = $2; s += $2; fb += $3 }
		END { flush() }'
}
# want COND TRACES FILTER: expected CSV rows (the table's columns) of condition COND
# ("arch,policy,fragment,source,traces") over TRACES
want() {
	lat "$2" "$3" | while read -r o n p50 p90 p95 p99 max mean fb; do
		echo "$1,$o,$(( 4096 << o )),$n,$p50,$p90,$p95,$p99,$max,$mean,$fb,0"
	done
}
{
	echo "arch,policy,fragment,source,traces,order,folio_bytes,faults,p50_ns,p90_ns,p95_ns,p99_ns,max_ns,mean_ns,fallback_alloc_failed,alloc_failed"
	want "x86_64,order0,none,record,2" "1 4" 1
	want 'x86_64,mcpage:2,"order:1,seed:7",record,1' 2 1
	want "x86_64,thp,none,guest-replay,1" 3 "\$2 == $pid3 && \$4 >= \"0x$lo\" && \$4 < \"0x$hi\""
} > "$T/want"
"$FT" compare "$DB" --latency --format csv > "$T/got" 2> "$T/err"
ok $? "compare --latency --format csv exits 0"
diff "$T/want" "$T/got" > "$T/diff"
rc=$?
ok $rc "the table is the one derived from query faults ($(($(wc -l < "$T/want") - 1)) rows)"
[ $rc = 0 ] || sed 's/^/#   /' "$T/diff"
check "the guest replay row holds only its 2M faults in the mapped range" \
	grep -q '^x86_64,thp,none,guest-replay,1,9,2097152,2,' "$T/got"
check "the jiffies trace is left out with a warning naming it" \
	grep -q 'warning: trace 5 left out: recorded on the jiffies clocksource' "$T/err"
check "no arm64 row (its only trace is on jiffies)" test "$(grep -c '^arm64' "$T/got")" = 0
check "the guest replay without a map is left out with a warning naming it" \
	grep -q 'warning: trace 6 left out: a guest replay without replay_map' "$T/err"

"$FT" compare "$DB" --latency --format json > "$T/json" 2> /dev/null
python3 - "$T/json" "$T/got" <<'PY' > "$T/jout" 2>&1
import csv, json, sys
j = json.load(open(sys.argv[1]))
rows = list(csv.DictReader(open(sys.argv[2])))
assert len(j) == len(rows), (len(j), len(rows))
for o, r in zip(j, rows):
    assert list(o) == list(r), list(o)
    for k, v in r.items():
        assert str(o[k]) == v, (k, o[k], v)
    assert isinstance(o["p99_ns"], int) and isinstance(o["traces"], int)
PY
rc=$?
ok $rc "--format json: the same rows, fields named as the CSV columns, numbers as ints"
[ $rc = 0 ] || sed 's/^/#   /' "$T/jout"

cp "$DB" "$T/before.db"
"$FT" compare "$DB" --latency --baseline order0 > /dev/null 2> "$T/err"
ok $([ $? = 2 ] && grep -q 'latency takes no option but --format' "$T/err"; echo $?) \
	"--latency with --baseline: usage error, exit 2"
"$FT" compare "$DB" --latency --sim-vs-real > /dev/null 2> "$T/err"
ok $([ $? = 2 ]; echo $?) "--latency with --sim-vs-real: usage error, exit 2"
"$FT" compare "$T/missing.db" --latency > "$T/out" 2> "$T/err"
ok $([ $? = 1 ] && [ "$(wc -l < "$T/err")" = 1 ] && [ ! -s "$T/out" ] && [ ! -e "$T/missing.db" ]; echo $?) \
	"a missing database: exit 1, one line, nothing created"
sh "$TOP/bench/latency-table.sh" > /dev/null 2> "$T/err"
ok $([ $? = 2 ] && grep -q '^usage: bench/latency-table.sh' "$T/err"; echo $?) \
	"bench/latency-table.sh without a workload: usage, exit 2, nothing booted"
check "the database is untouched by the commands (byte-identical)" cmp -s "$DB" "$T/before.db"
done_testing
