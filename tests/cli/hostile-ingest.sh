#!/bin/sh
# hostile-ingest.sh - damaged and incomplete traces (issue 12 items 2, 3, 6): LTTng index
# bytes flipped, metadata truncated at many offsets, per-CPU streams deleted, emptied,
# replaced by a FIFO or a link to /dev/zero. Each is refused with one line, exit 1, no hang
# (under timeout), the existing database byte-identical and nothing left beside it or in
# TMPDIR; a new database is not created. babeltrace2's own abort and endless loop, reached
# with the checks off, are caught by the watchdog. --allow-partial stores an incomplete
# trace marked partial, and the complete trace is stored after it.
# Fixture: REAL tests/data/x86_64-anon-touch-order0 (2 CPUs, one channel, LTTng indexes).
. "$(dirname "$0")/../test-lib.sh"
. "$(dirname "$0")/trace-lib.inc"
. "$(dirname "$0")/hostile-lib.inc"

FIX="$TOP/tests/data/x86_64-anon-touch-order0"
K=trace/kernel				# the CTF directory inside the fixture
IDX_FLIPS="0 3 7 15 17 19 23 28 29 35"	# chan0_0.idx: header, offset, packet and content size
META_CUTS="0 1 4 36 37 100 200 500 1000 2000 3000 4000 4095 4096 4097 4133 5000 6000 7000 8000
8191 8192 8229 9000 10000 11000 12000 12287"
STREAM_CASES="deleted empty fifo devzero absent"
n_idx=$(echo $IDX_FLIPS | wc -w)
n_meta=$(echo $META_CUTS | wc -w)
n_stream=$(echo $STREAM_CASES | wc -w)
plan $((2 + n_idx * 8 + n_meta * 4 + 8 + n_stream * 4 + 1 + 11 + 4 + 2 + 2))

mkdir -p "$T/db" "$T/tr" "$T/tmp"
export TMPDIR="$T/tmp"			# where ingest would leave a temporary directory
DB="$T/db/existing.db"
"$FT" ingest -q -o "$DB" "$TOP/tests/data/synthetic-anon-tiny"
ok $? "an existing database to protect"
[ -d "$FIX/$K/index" ] && [ "$(cat "$FIX/header/cpus")" = 2 ] && [ -s "$FIX/$K/chan0_1" ]
ok $? "the fixture has LTTng indexes, 2 CPUs and a stream per CPU"

# fresh NAME: a private copy of the fixture in $T/tr/NAME (tests/data is never modified)
fresh() {
	rm -rf "$T/tr/$1"
	cp -r "$FIX" "$T/tr/$1"
	echo "$T/tr/$1"
}
# flip FILE BYTE: XOR one byte with 0xe8 (the issue's reproducer)
flip() {
	python3 -c "
import sys
f = open(sys.argv[1], 'r+b'); f.seek(int(sys.argv[2])); b = f.read(1)
f.seek(int(sys.argv[2])); f.write(bytes([b[0] ^ 0xe8]))" "$1" "$2"
}

for b in $IDX_FLIPS; do
	d=$(fresh idx-$b)
	flip "$d/$K/index/chan0_0.idx" "$b"
	refused "index byte $b flipped, existing database" 1 "cannot ingest .*chan0_0" \
		"$DB" "$FT" ingest -o "$DB" "$d"
	refused "index byte $b flipped, new database" 1 "cannot ingest .*chan0_0" \
		"$T/db/new.db" "$FT" ingest -o "$T/db/new.db" "$d"
done

for cut in $META_CUTS; do
	d=$(fresh meta-$cut)
	truncate -s "$cut" "$d/$K/metadata"
	refused "metadata truncated to $cut bytes" 1 "cannot ingest" \
		"$DB" "$FT" ingest -o "$DB" "$d"
done

# babeltrace2 itself, given the damage the checks refuse: its abort and its endless loop
d=$(fresh abort)
flip "$d/$K/index/chan0_0.idx" 17
refused "unchecked index flip: babeltrace2 aborts" 1 "babeltrace2 died of signal 6" \
	"$DB" env FT_TEST_INGEST_NO_CHECK=1 "$FT" ingest -o "$DB" "$d"
d=$(fresh spin)
truncate -s 100 "$d/$K/metadata"
refused "unchecked truncated metadata: babeltrace2 spins, the watchdog stops it" 1 \
	"no progress decoding the trace for 1.5 s" "$DB" \
	env FT_TEST_INGEST_NO_CHECK=1 FT_TEST_INGEST_STALL_MS=1500 "$FT" ingest -o "$DB" "$d"

# one per-CPU stream missing, in every form
for how in $STREAM_CASES; do
	d=$(fresh stream-$how)
	s="$d/$K/chan0_1"
	case $how in
	deleted) rm "$s" ;;
	empty) : > "$s" ;;
	fifo) rm "$s"; mkfifo "$s" ;;
	devzero) rm "$s"; ln -s /dev/zero "$s" ;;
	absent) rm "$s" "$d/$K/index/chan0_1.idx" ;;
	esac
	refused "stream chan0_1 $how" 1 "incomplete trace, 1 stream missing: $K/chan0_1 .*--allow-partial" \
		"$DB" "$FT" ingest -o "$DB" "$d"
done
[ -z "$(ls -A "$T/tmp")" ]
ok $? "nothing left in TMPDIR"

# --allow-partial: stored, marked partial, with what babeltrace2 reads from chan0_0 alone
cp "$DB" "$T/before-partial.db"
d="$T/tr/stream-fifo"
timeout "$HOSTILE_TIMEOUT" "$FT" ingest --allow-partial -o "$DB" "$d" > "$T/out" 2> "$T/err"
ok $? "--allow-partial with a FIFO for chan0_1: exit 0"
grep -q "warning: .*incomplete (streams missing: 1): stored marked partial" "$T/err"
ok $? "  ... with a warning: $(head -c 200 "$T/err")"
id=$(db_int "$DB" "SELECT max(trace_id) FROM trace")
ok $([ "$(db_int "$DB" "SELECT partial FROM trace WHERE trace_id = $id")" = 1 ]; echo $?) \
	"  ... trace.partial = 1"
ok $([ "$("$FT" query "$DB" --format csv sql "SELECT value FROM trace_meta WHERE trace_id = $id AND key = 'missing_streams'" | tail -n +2)" = "$K/chan0_1" ]; echo $?) \
	"  ... trace_meta missing_streams = $K/chan0_1"
one=$(fresh one-cpu)
rm -r "$one/$K/chan0_1" "$one/$K/index"
want=$(bt_total "$one")
got=$(db_int "$DB" "SELECT events FROM trace WHERE trace_id = $id")
ok $([ -n "$want" ] && [ "$want" -gt 0 ] && [ "$got" = "$want" ]; echo $?) \
	"  ... its events are chan0_0's as babeltrace2 counts them ($got, want $want)"
"$FT" ingest --allow-partial -o "$DB" "$d" > "$T/out" 2>/dev/null
grep -q "already stored as trace $id" "$T/out"
ok $? "  ... ingested again: already stored"

# the complete trace after the partial one: stored in full, not taken for the partial
"$FT" ingest -o "$DB" "$FIX" > "$T/out" 2> "$T/err"
ok $? "the complete trace after the partial one: exit 0 ($(cat "$T/err"))"
grep -q "stored as trace $((id + 1))" "$T/out"
ok $? "  ... stored as a trace of its own"
ok $([ "$(db_int "$DB" "SELECT events FROM trace WHERE trace_id = $((id + 1))")" = "$(bt_total "$FIX")" ] &&
     [ "$(db_int "$DB" "SELECT partial FROM trace WHERE trace_id = $((id + 1))")" = 0 ]; echo $?) \
	"  ... complete: every event babeltrace2 counts, partial = 0"
[ "$(db_int "$DB" "SELECT count(*) FROM trace WHERE uuid LIKE '%+partial:%'")" = 1 ]
ok $? "  ... the partial one stays, under its own identity"
[ -z "$(ls -A "$T/tmp")" ] && [ "$(ls "$T/db")" = "existing.db" ]
ok $? "nothing left in TMPDIR or beside the database"

# interrupted ingests (SIGTERM, SIGHUP) clean up like failed ones, then die of the signal;
# FT_TEST_INGEST_DELAY_US (2 ms per event, thousands of events) keeps the child writing.
# env --default-signal: a signal ignored where the test runs (SIGHUP under nohup) is
# inherited ignored, and ingest keeps an ignored signal so (as nohup wants); the ingest
# here must see SIGHUP as a terminal sends it, whatever started the test
# interrupt SIG DB DIR [ENVOPT]: start an ingest of DIR with SIG's disposition ENVOPT
# (default --default-signal=SIG), signal it while it writes
interrupt() {
	FT_TEST_INGEST_DELAY_US=2000 env "${4:---default-signal=$1}" "$FT" ingest -q -o "$2" "$3" \
		2> /dev/null &
	_pid=$!
	_i=0
	while [ ! -e "$2-journal" ] && [ $_i -lt 200 ]; do sleep 0.05; _i=$((_i + 1)); done
	sleep 0.3
	kill -"$1" $_pid
	wait $_pid
}
interrupt TERM "$T/db/new.db" "$FIX"
st=$?
ok $([ $st = 143 ]; echo $?) "SIGTERM while writing a new database: the ingest dies of it (exit $st)"
[ "$(ls -A "$T/db")" = "existing.db" ] && [ -z "$(ls -A "$T/tmp")" ]
ok $? "  ... and leaves no database, journal or temporary behind"
cp "$DB" "$T/before-hup.db"
interrupt HUP "$DB" "$TOP/tests/data/x86_64-fork-cow-order0"
st=$?
ok $([ $st = 129 ]; echo $?) "SIGHUP while writing into the existing database: dies of it (exit $st)"
cmp -s "$DB" "$T/before-hup.db" && [ "$(ls -A "$T/db")" = "existing.db" ]
ok $? "  ... which is byte-identical, without a journal"
# under nohup (SIGHUP ignored when the ingest starts) a hangup is no stop: stored whole
interrupt HUP "$T/nohup.db" "$FIX" --ignore-signal=HUP
st=$?
ok $([ $st = 0 ]; echo $?) "SIGHUP ignored at start (nohup): the ingest goes on (exit $st)"
ok $([ "$(db_int "$T/nohup.db" "SELECT events FROM trace")" = "$(bt_total "$FIX")" ]; echo $?) \
	"  ... and stores every event babeltrace2 counts"

# header keys read as integers (cpus, workload_pid) that are FIFOs: never opened, so the
# ingest neither blocks nor fails; the header's other files are stored as before
d=$(fresh header-fifo)
rm -f "$d/header/cpus" "$d/header/workload_pid"
mkfifo "$d/header/cpus" "$d/header/workload_pid"
timeout "$HOSTILE_TIMEOUT" "$FT" ingest -q -o "$T/db/fifo.db" "$d" > /dev/null 2> "$T/err"
ok $? "header/cpus and header/workload_pid as FIFOs: ingest exits 0, no hang ($(head -c 200 "$T/err"))"
ok $([ "$(db_int "$T/db/fifo.db" "SELECT events FROM trace")" = "$(bt_total "$FIX")" ]; echo $?) \
	"  ... every event babeltrace2 counts is stored"
done_testing
