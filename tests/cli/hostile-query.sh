#!/bin/sh
# hostile-query.sh - query sql (issue 12 item 11): rows stream (an endless query piped into
# head ends at once; memory stays flat over 500,000 rows in every format); PRAGMA reads,
# trailing comments and SQL that begins with "--" are accepted ("--" also ends the
# options); and user SQL still never writes: each writing statement is refused with one
# line, exit 1, the database byte-identical and no file created.
# Needs /usr/bin/time (GNU time) for the memory figure. Fixture: synthetic-anon-tiny.
. "$(dirname "$0")/../test-lib.sh"
. "$(dirname "$0")/trace-lib.inc"
. "$(dirname "$0")/hostile-lib.inc"

plan 80

mkdir "$T/q"
DB="$T/q/q.db"
"$FT" ingest -q -o "$DB" "$TINY"
ok $? "prepare a database"
ENDLESS="WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c"
ROWS="WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 500000)
	SELECT x, 'some text' AS s FROM c"

# memory: max RSS of 500,000 rows against 1,000 rows; an AddressSanitizer build
# (make check-asan) would keep freed cells in its quarantine: none for this comparison
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0:thread_local_quarantine_size_kb=0"
for f in table csv json; do
	first=$(timeout 20 "$FT" query "$DB" --format $f sql "$ENDLESS" | head -3 | tail -1)
	ok $([ "$(echo "$first" | tr -d ' {}":,x\n')" = 2 ]; echo $?) \
		"$f: an endless query into head -3 prints its second row and ends ($first)"
	# under make check-asan, ASan's quarantine keeps up to 256 MB of freed rows: make it small
	q="${ASAN_OPTIONS:-}:quarantine_size_mb=1:thread_local_quarantine_size_kb=64"
	ASAN_OPTIONS=$q /usr/bin/time -f %M -o "$T/rss0" "$FT" query "$DB" --format $f sql \
		"$(echo "$ROWS" | sed 's/500000/1000/')" > /dev/null
	ASAN_OPTIONS=$q /usr/bin/time -f %M -o "$T/rss" "$FT" query "$DB" --format $f sql "$ROWS" \
		> "$T/rows.$f"
	ok $? "$f: 500,000 rows, exit 0"
	grow=$(( $(cat "$T/rss") - $(cat "$T/rss0") ))
	ok $([ $grow -lt 4096 ]; echo $?) \
		"$f: 500,000 rows take $grow KB more max RSS than 1,000 (< 4 MB: streamed, not held)"
done
[ "$(tail -1 "$T/rows.csv")" = "500000,some text" ] && [ "$(wc -l < "$T/rows.csv")" = 500001 ]
ok $? "csv: every row, in order"
python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
assert len(d) == 500000 and d[-1] == {"x": 500000, "s": "some text"}' "$T/rows.json"
ok $? "json: one document with every row"
# table: widths from the first OUT_STREAM_SAMPLE (1000) rows: "x" is 4 wide up to row 1000,
# later wider values overflow their column rather than wait for the end
[ "$(sed -n 2p "$T/rows.table")" = "   1  some text" ] &&
	[ "$(tail -1 "$T/rows.table")" = "500000  some text" ]
ok $? "table: columns sized from the first 1000 rows"

# accepted: reads that used to be refused. reads CASE WANT ARGS...: query --format csv
# ARGS exits 0 and its last line is WANT
reads() {
	_c=$1 _w=$2
	shift 2
	_got=$(timeout 60 "$FT" query --format csv "$@" 2> "$T/err" | tail -1)
	ok $([ "$_got" = "$_w" ]; echo $?) "$_c: '$_got' $(head -1 "$T/err")"
}
reads "PRAGMA journal_mode (a read)" delete "$DB" sql "PRAGMA journal_mode"
reads "a trailing comment" 1 "$DB" sql "SELECT 1 AS one; -- c"
reads "comments and semicolons around the statement" 2 "$DB" sql "/* a */ SELECT 2 AS two ;; -- b
; /* c */"
reads "SQL beginning with --" 1 "$DB" sql "-- count them
SELECT count(*) AS n FROM trace"
reads "-- before the SQL ends the options" 3 "$DB" sql -- "-- c
SELECT 3 AS three"
reads "-- before DB ends the options" 4 -- "$DB" sql "SELECT 4 AS four"
reads "PRAGMA table_info (an argument, a read)" "2,value,TEXT,1,,0" \
	"$DB" sql "PRAGMA table_info(trace_meta)"

# refused: every statement that could write, and two statements
cd "$T/q" || exit 1
for sql in "DELETE FROM trace" "UPDATE trace SET path = 'x'" "INSERT INTO trace_meta VALUES (1, 'k', 'v')" \
	   "DROP TABLE trace_meta" "CREATE TABLE t(x)" "PRAGMA user_version = 5" \
	   "PRAGMA journal_mode = WAL" "VACUUM" "VACUUM INTO 'copy.db'" "REINDEX" "ANALYZE" \
	   "BEGIN IMMEDIATE" "-- harmless
DELETE FROM trace"; do
	refused "$(echo "$sql" | tr '\n' ' ')" 1 "refusing a statement that writes: query is read-only$" \
		"$DB" "$FT" query "$DB" sql "$sql"
done
refused "two statements, the second writes" 1 "only one SQL statement at a time$" \
	"$DB" "$FT" query "$DB" sql "SELECT 1; DELETE FROM trace"
refused "ATTACH a new file read-write" 1 "access mode not allowed" \
	"$DB" "$FT" query "$DB" sql "ATTACH 'file:new.db?mode=rwc' AS n"
done_testing
