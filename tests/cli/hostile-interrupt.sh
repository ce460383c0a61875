#!/bin/sh
# hostile-interrupt.sh - a replay killed while it stores its runs (issue 12 item 7) leaves a
# hot rollback journal; every read-only command (query, compare, report, replay --dry-run)
# must roll it back by itself and work, and the database must then be byte-identical to
# before the killed replay. A user who cannot write the database gets one line saying what
# to do. The kill is made deterministic by tests/cli/kill-at-write.c (LD_PRELOAD): SIGKILL
# or SIGINT at the Nth page write of the database file, after SQLite synced the journal.
# Root: the "cannot roll back" case runs the reader as nobody (setpriv) when run as root.
# Fixture: SYNTHETIC tests/data/synthetic-anon-tiny.
. "$(dirname "$0")/../test-lib.sh"
. "$(dirname "$0")/trace-lib.inc"
. "$(dirname "$0")/hostile-lib.inc"

plan 44

${CC:-cc} -shared -fPIC -O2 -o "$T/kaw.so" "$TOP/tests/cli/kill-at-write.c" -ldl
ok $? "build the kill-at-write shim"
# an ASan build of foliotrace would refuse a preload listed before its runtime
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"

GOOD="$T/good.db"
"$FT" ingest -q -o "$GOOD" "$TINY" && "$FT" replay "$GOOD" -P order0 > /dev/null
ok $? "prepare a database with an order0 run"

# interrupted SIG N: a copy of GOOD whose replay got SIG at the Nth write to the file
interrupted() {
	rm -f "$T/k.db" "$T/k.db-journal"
	cp "$GOOD" "$T/k.db"
	LD_PRELOAD="$T/kaw.so" KILL_AT_WRITE_FILE=/k.db KILL_AT_WRITE_N=$2 KILL_AT_WRITE_SIG=$1 \
		timeout 60 "$FT" replay "$T/k.db" -P mcpage:2 -P mthp:16K > /dev/null 2>&1
	echo $?
}

for sig in 9 2; do
	for n in 1 2 3; do
		what="signal $sig at write $n"
		rc=$(interrupted $sig $n)
		ok $([ "$rc" = $((128 + sig)) ] && [ -s "$T/k.db-journal" ]; echo $?) \
			"$what: replay died (exit $rc), journal left"
		fails=
		for cmd in "query k.db summary" "query k.db procs" \
			   "compare k.db" "report k.db -o $T/k.html" \
			   "replay k.db -P mcpage:2 --dry-run"; do
			# shellcheck disable=SC2086
			(cd "$T" && timeout 60 "$FT" $cmd > "$T/out" 2> "$T/err") ||
				fails="$fails [$cmd: $(head -1 "$T/err")]"
		done
		ok $([ -z "$fails" ]; echo $?) "$what: read-only commands work${fails:+:$fails}"
		cmp -s "$T/k.db" "$GOOD" && [ ! -e "$T/k.db-journal" ]
		ok $? "$what: database byte-identical to before the replay, journal gone"
		[ "$(db_int "$T/k.db" 'SELECT count(*) FROM replay_run')" = 1 ]
		ok $? "$what: only the order0 run is stored"
	done
done

# a reader who cannot write the database cannot roll back: it says so, changes nothing
mkdir "$T/ro"
rc=$(interrupted 9 2)
cp "$T/k.db" "$T/ro/k.db" && cp "$T/k.db-journal" "$T/ro/k.db-journal"
if [ "$(id -u)" = 0 ]; then
	chmod 755 "$T" "$T/ro" && chmod 644 "$T/ro/k.db" "$T/ro/k.db-journal"
	AS="setpriv --reuid=65534 --regid=65534 --clear-groups"
else
	chmod 555 "$T/ro" && chmod 444 "$T/ro/k.db" "$T/ro/k.db-journal"
	AS=
fi
cp "$T/ro/k.db-journal" "$T/journal.orig"
for cmd in "query @ summary" "compare @" "replay @ -P order0 --dry-run"; do
	# shellcheck disable=SC2086
	refused "unwritable, $(echo $cmd | cut -d' ' -f1)" 1 \
		"has the journal of an interrupted write .*k.db-journal.* as a user who may write it" \
		"$T/ro/k.db" $AS "$FT" $(echo $cmd | sed "s|@|$T/ro/k.db|")
	cmp -s "$T/ro/k.db-journal" "$T/journal.orig"
	ok $? "  ... the journal is left for a writer"
done
# a writer rolls it back
chmod 755 "$T/ro"; chmod 644 "$T/ro/k.db" "$T/ro/k.db-journal"
"$FT" query "$T/ro/k.db" summary > /dev/null && cmp -s "$T/ro/k.db" "$GOOD" &&
	[ ! -e "$T/ro/k.db-journal" ]
ok $? "once writable, the next reader rolls back to the database as it was"

# user SQL stays read-only on the recovered handle
rc=$(interrupted 9 2)
(cd "$T" && "$FT" query k.db sql "DELETE FROM replay_run" > /dev/null 2> "$T/err")
ok $([ $? = 1 ]; echo $?) "user SQL cannot write after a recovery: $(head -1 "$T/err")"
cmp -s "$T/k.db" "$GOOD"
ok $? "  ... database as it was"
done_testing
