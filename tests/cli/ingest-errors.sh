#!/bin/sh
# ingest-errors.sh - every way ingest can fail gives exit 1, one line on stderr, and leaves
# the database byte for byte as it was (cmp); a database ingest created is removed again.
# Usage errors exit 2. Fixtures: SYNTHETIC (tests/data/make-synthetic.py).
. "$(dirname "$0")/../test-lib.sh"
. "$(dirname "$0")/trace-lib.inc"

plan 26

# fails CASE DB DIR: ingest must fail with one line and leave DB as it was (or absent)
fails() {
	_case=$1 _db=$2 _dir=$3
	if [ -e "$_db" ]; then cp "$_db" "$T/orig"; else rm -f "$T/orig"; fi
	"$FT" ingest -o "$_db" "$_dir" > "$T/out" 2> "$T/err"
	ok $([ $? = 1 ]; echo $?) "$_case: exit 1"
	one_line "$T/err"
	ok $? "$_case: one-line error: $(head -c 300 "$T/err")"
	if [ -e "$T/orig" ]; then
		cmp "$_db" "$T/orig" && [ ! -e "$_db-journal" ]
	else
		[ ! -e "$_db" ] && [ ! -e "$_db-journal" ] && [ -z "$(ls "$(dirname "$_db")" | grep tmp-)" ]
	fi
	ok $? "$_case: database unchanged"
}

GOOD="$T/good.db"
"$FT" ingest -q -o "$GOOD" "$SMALL" || echo "# cannot prepare a database"

echo 'just some text, not a database' > "$T/text.db"
fails "not a database" "$T/text.db" "$SMALL"

sqlite3 "$T/foreign.db" 'CREATE TABLE t(x); INSERT INTO t VALUES (1)'
fails "SQLite database of another program" "$T/foreign.db" "$SMALL"

cp "$GOOD" "$T/newer.db"
sqlite3 "$T/newer.db" 'PRAGMA user_version = 99'
fails "newer schema version" "$T/newer.db" "$TINY"

# a truncated stream file: babeltrace2 fails while indexing
cp -r "$TINY" "$T/trunc"
f=$(ls "$T"/trunc/trace/stream* | head -1)
truncate -s $(( $(stat -c %s "$f") / 2 + 7 )) "$f"
fails "truncated CTF trace, existing database" "$GOOD" "$T/trunc"

# garbage in the middle of a packet: fails midway, after the trace row was inserted
cp -r "$TINY" "$T/corrupt"
f=$(ls "$T"/corrupt/trace/stream* | head -1)
head -c 256 /dev/zero | tr '\0' '\377' |
	dd of="$f" bs=1 seek=$(( $(stat -c %s "$f") * 3 / 5 )) conv=notrunc 2>/dev/null
fails "corrupted CTF trace, existing database" "$GOOD" "$T/corrupt"
grep -q "sink" "$T/err"
ok $? "  ... the error names the chain down to babeltrace2's cause"
fails "corrupted CTF trace, new database" "$T/new.db" "$T/corrupt"

mkdir -p "$T/empty-dir"
fails "directory without a CTF trace" "$T/new2.db" "$T/empty-dir"

"$FT" ingest -o "$T/x.db" "$T/no-such-dir" 2> "$T/err"
ok $([ $? = 1 ]; echo $?) "missing CTF directory: exit 1"
"$FT" ingest "$SMALL" 2> /dev/null
ok $([ $? = 2 ]; echo $?) "missing -o: usage error, exit 2"
"$FT" ingest -o "$T/x.db" 2> /dev/null
ok $([ $? = 2 ]; echo $?) "missing CTF_DIR: usage error, exit 2"
"$FT" ingest --bogus -o "$T/x.db" "$SMALL" 2> /dev/null
ok $([ $? = 2 ]; echo $?) "unknown option: usage error, exit 2"
done_testing
