#!/bin/sh
# query.sh - foliotrace query on the SYNTHETIC fixture: every view in every format, the
# exact latency percentiles against an awk computation over the decoded faults, filters,
# and that `sql` cannot write (exit 1, database unchanged). Usage errors exit 2.
. "$(dirname "$0")/../test-lib.sh"
. "$(dirname "$0")/trace-lib.inc"

plan 32
DB="$T/q.db"
"$FT" ingest -q -o "$DB" "$SMALL" || echo "# cannot prepare the database"
"$FT" ingest -q -o "$DB" "$TINY"
faults=$(db_int "$DB" "SELECT count FROM event_count WHERE trace_id = 1 AND name = 'anon_fault'")

for v in summary procs vmas faults orders latency; do
	for f in table csv json; do
		"$FT" query "$DB" --trace 1 --format $f $v > "$T/$v.$f" 2> "$T/err"
		s=$?
		[ $s = 0 ] || break
	done
	ok $s "query $v in table, csv and json"
done
for f in "$T"/*.json; do jq -e . "$f" > /dev/null || echo "$f"; done > "$T/badjson"
test ! -s "$T/badjson"
ok $? "every JSON output parses"

# summary: the documented fields (jq: one of the Debian packages tools/install-deps.sh installs)
jq -e --argjson n "$faults" 'has("arch") and has("kernel") and has("policy") and
	has("anon_faults") and has("processes") and has("discarded_events") and has("partial") and
	.anon_faults == $n and .events.anon_fault == $n and .arch == "x86_64" and
	.discarded_events == 7 and .processes == 4 and
	([.events[]] | add) == .events_total' "$T/summary.json" > /dev/null
ok $? "summary JSON: arch, kernel, policy, anon_faults, processes, discarded_events, partial, events"

jq -e 'type == "array" and length == 4 and
	all(.[]; has("pid") and has("comm") and has("anon_faults") and has("zero_wp") and
	    has("cow") and has("zaps") and (.mm | startswith("0x"))) and
	([.[].comm] == ["bash", "bash", "anon-touch-with", "bash"])' "$T/procs.json" > /dev/null
ok $? "procs JSON: list of objects with pid, comm, anon_faults, zero_wp, cow, zaps, mm"

ok $([ "$(tail -n +2 "$T/faults.csv" | wc -l)" = "$faults" ]; echo $?) \
	"faults: one row per anon_fault ($faults)"
check "csv has a header line" grep -qx "ts,pid,tid,address,write,order,nr_ptes,zero_page,fallback,latency_ns,proc_id,vma_id" "$T/faults.csv"
check "table: header and rows aligned" awk 'NR == 1 { n = index($0, "latency_ns") + length("latency_ns") }
	NR > 1 { if (substr($0, n - 1, 1) == " ") exit 1 }' "$T/faults.table"
ok $([ "$(tail -n +2 "$T/orders.csv" | awk -F, '{ s += $3 } END { print s }')" = "$faults" ]; echo $?) \
	"orders: faults add up"
check "fallback names decoded" grep -q ",vma_edge," "$T/faults.csv"
check "read faults map the zero page with fallback read" grep -q ",0,0,1,1,read," "$T/faults.csv"

# latency: exact nearest-rank percentiles, recomputed with sort and awk
tail -n +2 "$T/faults.csv" | awk -F, '{ print $6 "," $8 "," $10 }' | sort -t, -k1,1n -k2,2n -k3,3n |
	awk -F, '
	function flush() {
		if (!n) return
		printf "%s,%s,%d,%d,%d,%d,%d\n", o, z, n, v[int((50 * n + 99) / 100)],
			v[int((90 * n + 99) / 100)], v[int((99 * n + 99) / 100)], v[n]
	}
	NR == 1 || $1 != o || $2 != z { flush(); n = 0; o = $1; z = $2 }
	{ v[++n] = $3 }
	END { flush() }' > "$T/lat.want"
tail -n +2 "$T/latency.csv" | cut -d, -f1-7 > "$T/lat.got"
check "latency percentiles equal a sort+awk computation" cmp "$T/lat.got" "$T/lat.want"

"$FT" query "$DB" --trace 1 --format csv faults --limit 5 > "$T/l"
ok $([ "$(wc -l < "$T/l")" = 6 ]; echo $?) "--limit 5 gives 5 rows"
"$FT" query "$DB" --trace 1 --format csv faults --pid 300 > "$T/p"
ok $([ "$(tail -n +2 "$T/p" | cut -d, -f2 | sort -u)" = 300 ] && [ "$(wc -l < "$T/p")" = 5 ]; echo $?) \
	"--pid 300 gives that process's 4 faults"
"$FT" query "$DB" --format csv sql "SELECT count(*) FROM trace" > "$T/c"
ok $([ "$(tail -1 "$T/c")" = 2 ]; echo $?) "sql: a read"
"$FT" query "$DB" --format json summary > "$T/s2"
check "default trace: the newest recording" grep -q '"trace_id": 2' "$T/s2"

# sql must not write
cp "$DB" "$T/orig.db"
for stmt in "DELETE FROM trace" "UPDATE process SET comm = 'x'" "DROP TABLE zap" \
	    "INSERT INTO trace_meta VALUES (1, 'k', 'v')" "PRAGMA user_version = 7" \
	    "SELECT 1; DELETE FROM trace" "ATTACH '$T/other.db' AS o"; do
	"$FT" query "$DB" sql "$stmt" > /dev/null 2> "$T/err"
	s=$?
	ok $([ $s = 1 ] && one_line "$T/err" && cmp -s "$DB" "$T/orig.db" && [ ! -e "$T/other.db" ]; echo $?) \
		"sql refuses '$stmt': $(cat "$T/err")"
done

"$FT" query "$DB" bogus-view 2> /dev/null
ok $([ $? = 2 ]; echo $?) "unknown view: exit 2"
"$FT" query "$DB" --format xml summary 2> /dev/null
ok $([ $? = 2 ]; echo $?) "unknown format: exit 2"
"$FT" query "$DB" sql 2> /dev/null
ok $([ $? = 2 ]; echo $?) "sql without a statement: exit 2"
"$FT" query "$DB" --trace 9 summary 2> "$T/err"
ok $([ $? = 1 ] && one_line "$T/err"; echo $?) "unknown trace: exit 1, one line"
"$FT" query "$T/missing.db" summary 2> "$T/err"
ok $([ $? = 1 ] && [ ! -e "$T/missing.db" ]; echo $?) "missing database: exit 1, not created"
done_testing
