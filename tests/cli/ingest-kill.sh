#!/bin/sh
# ingest-kill.sh - SIGKILL in the middle of an ingest leaves the trace either absent or
# complete, and running the ingest again stores it completely. FT_TEST_INGEST_DELAY_US
# slows the sink down (per event) so the kill lands midway. Fixtures: SYNTHETIC.
. "$(dirname "$0")/../test-lib.sh"
. "$(dirname "$0")/trace-lib.inc"

plan 8
# the killed ingest cannot remove its scratch directory: keep it in the test's own
mkdir -p "$T/tmp"
export TMPDIR="$T/tmp"
DB="$T/k.db"
"$FT" ingest -q -o "$DB" "$TINY" || echo "# cannot prepare a database"
"$FT" ingest -q -o "$T/clean.db" "$SMALL"

FT_TEST_INGEST_DELAY_US=400 "$FT" ingest -q -o "$DB" "$SMALL" &
pid=$!
# wait until the sink has its transaction open (journal present), then kill
i=0
while [ ! -e "$DB-journal" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
sleep 0.3
kill -9 $pid
wait $pid 2>/dev/null
ok $([ $i -lt 100 ]; echo $?) "the ingest was killed while writing (journal seen)"
n=$(db_int "$DB" "SELECT count(*) FROM trace")
ok $([ "$n" = 1 ]; echo $?) "after SIGKILL: only the earlier trace (got $n)"
ok $([ "$(db_int "$DB" "SELECT count(*) FROM event_chunk WHERE trace_id <> 1")" = 0 ]; echo $?) \
	"  ... and no rows of the killed one"
ok $([ "$(ls "$T/tmp" | grep -c '^foliotrace-ingest-')" = 1 ]; echo $?) \
	"  ... its scratch directory stays (SIGKILL), in TMPDIR, not /tmp"

"$FT" ingest -q -o "$DB" "$SMALL"
ok $? "rerun succeeds"
ok $([ "$(db_int "$DB" "SELECT count(*) FROM trace")" = 2 ]; echo $?) "  ... and stores the trace"
db_counts "$DB" 2 > "$T/rerun.counts"
db_counts "$T/clean.db" 1 > "$T/clean.counts"
check "  ... completely (same counts as a clean ingest)" cmp "$T/rerun.counts" "$T/clean.counts"
ok $([ "$(db_int "$DB" "SELECT sum(nr_events) FROM event_chunk WHERE trace_id = 2")" = \
       "$(db_int "$T/clean.db" "SELECT sum(nr_events) FROM event_chunk")" ]; echo $?) \
	"  ... with the whole event stream"
done_testing
