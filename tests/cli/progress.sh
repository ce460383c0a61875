#!/bin/sh
# progress.sh - ingest and replay show a progress line when stderr is a terminal (run under
# script(1), a pty), with the counts the database holds, and write nothing extra when it is
# not one or with --quiet. FT_PROGRESS_MS=0 makes every update print (the default interval,
# 250 ms, is longer than these small runs).
. "$(dirname "$0")/../test-lib.sh"

plan 11
SYNTH=$BUILD/testprogs/synth-db	# built by make from tests/cli/synth-db.c
PF="$TOP/tests/data/x86_64-pf-loop-order0"	# a recorded trace fixture
check "script(1) is installed (util-linux)" command -v script
check "synth-db is built (make)" test -x "$SYNTH"
check "the pf-loop fixture is there" test -d "$PF/header"

# on_tty OUT CMD...: run CMD with a pty as its terminal; what it wrote, \r as newlines
on_tty() {
	out=$1
	shift
	script -qec "$*" /dev/null < /dev/null | tr '\r' '\n' > "$out"
}

# --- replay: 600000 faults, more than one progress step (2^18 events) ---
"$SYNTH" "$T/k.db" kbuild-like 1 600000 > /dev/null
total=$("$FT" query "$T/k.db" --format csv sql "SELECT sum(nr_events) FROM event_chunk" | tail -1)
FT_PROGRESS_MS=0 on_tty "$T/r.tty" "$FT" replay "$T/k.db" -P mcpage:4
check "replay on a terminal: a progress line per 2^18 events" \
	grep -q "^foliotrace replay: 262144 of $total events" "$T/r.tty"
check "  ... ending with all $total events, done" \
	grep -q "^foliotrace replay: $total of $total events (100%), [0-9.]* s, done" "$T/r.tty"
FT_PROGRESS_MS=0 on_tty "$T/rq.tty" "$FT" replay --quiet "$T/k.db" -P mcpage:4
check "replay --quiet on a terminal: no progress line" \
	sh -c "! grep -q 'foliotrace replay:' '$T/rq.tty'"
FT_PROGRESS_MS=0 "$FT" replay "$T/k.db" -P mcpage:4 > "$T/r.out" 2> "$T/r.err"
ok $? "replay without a terminal exits 0"
check "  ... and writes nothing on stderr" test ! -s "$T/r.err"

# --- ingest ---
FT_PROGRESS_MS=0 on_tty "$T/i.tty" "$FT" ingest -o "$T/i.db" "$PF"
events=$("$FT" query "$T/i.db" --format csv sql "SELECT events FROM trace" | tail -1)
check "ingest on a terminal: ends with the $events events read, done" \
	grep -q "^foliotrace ingest: $events events read, [0-9.]* s, done" "$T/i.tty"
FT_PROGRESS_MS=0 on_tty "$T/iq.tty" "$FT" ingest --quiet -o "$T/iq.db" "$PF"
check "ingest --quiet on a terminal prints nothing" test ! -s "$T/iq.tty"
FT_PROGRESS_MS=0 "$FT" ingest -o "$T/in.db" "$PF" > "$T/in.out" 2> "$T/in.err"
check "ingest without a terminal: nothing on stderr" test ! -s "$T/in.err"

done_testing
