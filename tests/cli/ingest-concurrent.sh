#!/bin/sh
# ingest-concurrent.sh - ingests racing on one database: the same trace twice at once is
# stored once, two traces racing to create a new database both land. SYNTHETIC fixtures.
. "$(dirname "$0")/../test-lib.sh"
. "$(dirname "$0")/trace-lib.inc"

plan 4
DB="$T/c.db"
"$FT" ingest -q -o "$DB" "$TINY"
FT_TEST_INGEST_DELAY_US=100 "$FT" ingest -q -o "$DB" "$SMALL" & a=$!
FT_TEST_INGEST_DELAY_US=100 "$FT" ingest -q -o "$DB" "$SMALL" & b=$!
wait $a; sa=$?
wait $b; sb=$?
ok $([ $sa = 0 ] && [ $sb = 0 ]; echo $?) "two ingests of the same trace at once both succeed"
ok $([ "$(db_int "$DB" "SELECT count(*) FROM trace")" = 2 ]; echo $?) "  ... and store it once"

"$FT" ingest -q -o "$T/new.db" "$SMALL" & a=$!
"$FT" ingest -q -o "$T/new.db" "$TINY" & b=$!
wait $a; sa=$?
wait $b; sb=$?
ok $([ $sa = 0 ] && [ $sb = 0 ]; echo $?) "two ingests creating the same new database both succeed"
ok $([ "$(db_int "$T/new.db" "SELECT count(*) FROM trace")" = 2 ] &&
     [ -z "$(ls "$T" | grep tmp-)" ]; echo $?) "  ... both traces stored, no temporary file left"
done_testing
