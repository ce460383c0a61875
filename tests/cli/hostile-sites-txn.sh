#!/bin/sh
# hostile-sites-txn.sh - a trace and its call sites are one transaction (issue 23 item 3):
# the trace was committed, then its sites in a second transaction, so an ingest killed in
# between left the trace without site rows and every re-run said "already stored". Here
# ingest is killed (SIGKILL, tests/cli/kill-at-write.c) at write N of the database for
# N from 1 to past the last write: each time the database holds either nothing new
# (byte-identical) or the trace with all its calls, never the trace alone; a re-run
# stores the trace with its calls. A trace stored without its sites (as an older ingest
# left it) gets them from the next run, which says "already stored".
# Fixtures: SYNTHETIC tests/data/synthetic-anon-tiny (the trace, with a generated side
# file of 3,000 calls), synthetic-anon-small (the existing database's).
. "$(dirname "$0")/../test-lib.sh"
. "$(dirname "$0")/trace-lib.inc"

WRITES="1 2 3 5 8 13 21 34 55 89 144 233 100000"
plan $((2 + $(echo $WRITES | wc -w) * 2 + 4))

${CC:-cc} -shared -fPIC -O2 -o "$T/kaw.so" "$TOP/tests/cli/kill-at-write.c" -ldl
ok $? "build the kill-at-write shim"
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"

mkdir -p "$T/db" "$T/tmp"
export TMPDIR="$T/tmp"
BASE="$T/base.db"
"$FT" ingest -q -o "$BASE" "$TOP/tests/data/synthetic-anon-small"
ok $? "an existing database with another trace"

cp -r "$TINY" "$T/o"
python3 - "$T/o/sites.txt" <<'PY'
import sys
with open(sys.argv[1], 'w') as f:
    f.write('V\t1\t1\n')
    for i in range(3000):
        f.write('C\t%d\t100\t100\tmmap\t0\t1000\t3\t22\tffffffff\t0\t%d\t1\tok\n'
                % (1700000000000000000 + i, 0x7f0000000000 + i * 0x2000))
        f.write('F\t%x\t/usr/lib/libfoo-%d.so\t%x\tsite_%d\t0\n' % (0x401000 + i, i, i, i))
PY
CALLS=3000
# calls N: the mmap rows stored for the tiny trace in database N ("" if it has no trace)
calls() {
	db_int "$1" "SELECT (SELECT count(*) FROM site_call c WHERE c.trace_id = t.trace_id \
AND c.call = 'mmap') AS n FROM trace t WHERE t.path LIKE '%/o'" 2>/dev/null
}

for n in $WRITES; do
	rm -f "$T/k.db" "$T/k.db-journal"
	cp "$BASE" "$T/k.db"
	LD_PRELOAD="$T/kaw.so" KILL_AT_WRITE_FILE=/k.db KILL_AT_WRITE_N=$n \
		timeout 60 "$FT" ingest -q -o "$T/k.db" "$T/o" > /dev/null 2> "$T/err"
	rc=$?
	c=$(calls "$T/k.db")
	if [ $rc = 0 ]; then
		[ "$c" = $CALLS ]
		ok $? "killed at write $n: not reached, the trace stored with its calls (got '$c')"
	else
		why=$(head -c 99 "$T/err")
		cmp -s "$T/k.db" "$BASE" && [ ! -e "$T/k.db-journal" ]
		ok $? "killed at write $n: exit $rc, database byte-identical ($why)"
	fi
	"$FT" ingest -q -o "$T/k.db" "$T/o" 2> "$T/err"
	c=$(calls "$T/k.db")
	ok $([ "$c" = $CALLS ]; echo $?) "killed at write $n: the re-run stores the trace with its \
$CALLS calls (got '$c'; $(head -c 150 "$T/err"))"
done

# a trace stored without its call sites (as an ingest before this fix could leave it)
mkdir "$T/bare" && cp -r "$TINY/." "$T/bare/"
"$FT" ingest -q -o "$T/old.db" "$T/bare"
c=$(db_int "$T/old.db" "SELECT count(*) FROM site_call")
ok $([ "$c" = 0 ]; echo $?) "a trace stored without call sites (got $c rows)"
cp "$T/o/sites.txt" "$T/bare/sites.txt"
out=$("$FT" ingest -o "$T/old.db" "$T/bare" 2>&1)
ok $? "ingested again with its side file: $out"
case $out in *"already stored"*) s=0 ;; *) s=1 ;; esac
ok $s "it says the trace was already stored"
c=$(db_int "$T/old.db" "SELECT count(*) FROM site_call WHERE call = 'mmap'")
ok $([ "$c" = $CALLS ]; echo $?) "and stores its $CALLS calls now (got $c)"
done_testing
