#!/bin/sh
# hostile-paths.sh - database paths (issue 12 item 14): a path beginning with "file:" is a
# plain file name for both foliotrace's header check and SQLite; a FIFO, a device or a
# directory given as the database is refused up front by every command (no hang); an empty
# path says "empty database path"; getopt's messages name "foliotrace CMD".
# Fixture: SYNTHETIC tests/data/synthetic-anon-tiny.
. "$(dirname "$0")/../test-lib.sh"
. "$(dirname "$0")/trace-lib.inc"
. "$(dirname "$0")/hostile-lib.inc"

plan 66

cd "$T" || exit 1
# "file:" relative paths: SQLite would read them as URIs
timeout 60 "$FT" ingest -q -o 'file:u.db?mode=memory' "$TINY"
ok $? "ingest -o 'file:u.db?mode=memory': exit 0"
[ -f "$T/file:u.db?mode=memory" ] && [ ! -e "$T/u.db" ]
ok $? "  ... the database is the file of that literal name"
[ "$(db_int 'file:u.db?mode=memory' 'SELECT count(*) FROM trace')" = 1 ]
ok $? "  ... query reads the same file"
timeout 60 "$FT" replay 'file:u.db?mode=memory' -P mcpage:2 > /dev/null
ok $? "  ... replay stores into it"
[ "$(db_int 'file:u.db?mode=memory' 'SELECT count(*) FROM replay_run')" = 2 ]
ok $? "  ... and its runs (order0 baseline, mcpage:2) are in that file"
# a file: path naming a non-database, next to a real database SQLite's URI would open
"$FT" ingest -q -o "$T/v.db" "$TINY"
echo 'not a database' > 'file:v.db'
refused "ingest -o file:v.db (text) with v.db beside it" 1 "file:v.db is not a foliotrace database" \
	"$T/file:v.db" "$FT" ingest -o 'file:v.db' "$TINY"
refused "query file:v.db (text)" 1 "file:v.db is not a foliotrace database" \
	"$T/file:v.db" "$FT" query 'file:v.db' sql 'SELECT 1'

# non-regular databases, every command that opens one
mkfifo "$T/fifo.db"
mkdir "$T/dir.db"
for cmd in "query @ summary" "replay @ -P order0 --dry-run" "replay @ -P order0" \
	   "compare @" "report @ -o $T/x.html"; do
	set -- $cmd
	c=$1; shift
	args=$(echo "$*" | sed "s|@|$T/fifo.db|")
	# shellcheck disable=SC2086
	refused "$c on a FIFO ($*)" 1 "fifo.db is a FIFO, not a regular file" \
		"$T/fifo.db" "$FT" $c $args
	args=$(echo "$*" | sed "s|@|$T/dir.db|")
	# shellcheck disable=SC2086
	refused "$c on a directory ($*)" 1 "dir.db is a directory, not a regular file" \
		"$T/dir.db" "$FT" $c $args
done
refused "ingest -o a FIFO" 1 "fifo.db is a FIFO, not a regular file" \
	"$T/fifo.db" "$FT" ingest -o "$T/fifo.db" "$TINY"

refused "ingest -o ''" 1 "^foliotrace: empty database path$" \
	"$T/nothing" "$FT" ingest -o '' "$TINY"
refused "query ''" 1 "^foliotrace: empty database path$" \
	"$T/nothing" "$FT" query '' sql 'SELECT 1'

# getopt's own messages name the command as the user typed it
fails=
for c in ingest query replay compare report record "guest replay"; do
	# shellcheck disable=SC2086
	"$FT" $c --no-such-option > /dev/null 2> "$T/err"
	rc=$?
	head -1 "$T/err" | grep -q "^foliotrace $c: unrecognized option '--no-such-option'" &&
		[ $rc = 2 ] || fails="$fails $c($rc: $(head -1 "$T/err"))"
done
ok $([ -z "$fails" ]; echo $?) "getopt errors say 'foliotrace CMD:' and exit 2${fails:+:$fails}"
done_testing
