#!/bin/sh
# progress.sh - ingest and replay show a progress line when stderr is a terminal (run under
# script(1), a pty), with the counts the database holds, and write nothing extra when it is
# not one or with --quiet. FT_PROGRESS_MS=0 makes every update print (the default interval,
# 250 ms, is longer than these small runs). record's guest line (issue 28 item 5) follows
# a fake guest-kernel/run.sh that puts each state's files on the share, then says so on
# stderr: the line redrawn after each of its lines shows that state (or a later one) and
# the bytes it wrote under trace/.
. "$(dirname "$0")/../test-lib.sh"

plan 18
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

# --- record: the guest line, after each line of a fake run.sh ---
H=$T/home
mkdir -p "$H/guest-kernel" "$H/build"
cat > "$H/guest-kernel/run.sh" <<'EOT'
#!/bin/sh
while [ $# -gt 0 ]; do [ "$1" = --out ] && out=$2; [ "$1" = -- ] && break; shift; done
echo "fake: starting" >&2
: > "$out/console.log"
echo "fake: booting" >&2
mkdir -p "$out/header" "$out/trace/kernel"
: > "$out/header/started"
head -c 3000 /dev/zero > "$out/trace/metadata"
head -c 1096 /dev/zero > "$out/trace/kernel/chan0_0"
echo "fake: running" >&2
: > "$out/header/buddyinfo.after"
echo "fake: tracing stopped" >&2
echo "no guest here" > "$out/run_error"
exit 1
EOT
chmod +x "$H/guest-kernel/run.sh"
WL=$TOP/build/testprogs/x86_64/hello-anon	# built by make all (build-asan/ has no guest programs)
# the line after LINE in the terminal's output: erase-to-end sequences and the empty
# lines of the pty's \r\n left out
norm() { sed 's/\x1b\[K//g' "$1" | grep -v '^$'; }
after() { norm "$2" | grep -A1 -x "$1" | sed -n 2p; }
FOLIOTRACE_HOME=$H on_tty "$T/g.tty" "$FT" record -o "$T/g.db" -- "$WL"
after "fake: starting" "$T/g.tty" | grep -Eq '^foliotrace record: guest [0-9]+ s, (starting|booting|running|tracing stopped), trace '
ok $? "record on a terminal: a guest line after run.sh's first line"
after "fake: booting" "$T/g.tty" | grep -Eq '^foliotrace record: guest [0-9]+ s, (booting|running|tracing stopped), trace '
ok $? "  ... booting once console.log is there"
after "fake: running" "$T/g.tty" | grep -Eq '^foliotrace record: guest [0-9]+ s, (running|tracing stopped), trace 4K$'
ok $? "  ... running once header/started is there, with the 4096 bytes under trace/"
after "fake: tracing stopped" "$T/g.tty" | grep -Eq '^foliotrace record: guest [0-9]+ s, tracing stopped, trace 4K$'
ok $? "  ... tracing stopped once header/buddyinfo.after is there"
norm "$T/g.tty" | tail -n 1 | grep -qx 'foliotrace: the guest could not be started: no guest here' &&
	grep -q "$(printf 'trace 4K\033\\[K$')" "$T/g.tty"
ok $? "  ... the line erased (carriage return, erase to the end) before the one-line error"
FOLIOTRACE_HOME=$H on_tty "$T/gq.tty" "$FT" record --quiet -o "$T/g.db" -- "$WL"
grep -qx "fake: running" "$T/gq.tty" && ! grep -q "foliotrace record: guest" "$T/gq.tty"
ok $? "record --quiet on a terminal: run.sh's lines, no guest line"
FOLIOTRACE_HOME=$H "$FT" record -o "$T/g.db" -- "$WL" > /dev/null 2> "$T/g.err"
grep -qx "fake: running" "$T/g.err" && ! grep -q "foliotrace record: guest" "$T/g.err"
ok $? "record without a terminal: run.sh's lines, no guest line"

done_testing
