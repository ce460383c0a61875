#!/bin/sh
# guest-replay.sh - the host side of guest replay without a guest: export of a SYNTHETIC
# trace database and of the real guest traces of tests/data, the replayer itself run on the
# host over those files (it only needs anonymous mmap), usage errors, and compare
# --sim-vs-real on databases where a trace is declared its own guest replay (identity
# replay_map): the real side, rebuilt from the trace's own events, must equal the order0
# simulation exactly on every real trace (faults, peak RSS, bytes zeroed, COW), and its
# peak RSS and COW count on the synthetic one.
. "$(dirname "$0")/../test-lib.sh"

plan $((19 + 2 * 6))
DB=$T/k.db
"$BUILD/testprogs/synth-db" "$DB" kbuild-like 3 20000 > /dev/null	# built by make
REPLAYER=$TOP/build/workloads/x86_64/ft-replayer
sql() { "$FT" query "$DB" --format csv sql "$1" | tail -n +2; }

"$FT" guest replay "$DB" --export "$T/k.ftr" 2> "$T/export.err"
ok $? "guest replay --export writes the replay file without booting a guest"
touches=$(sed -n 's/.* \([0-9]*\) touches.*/\1/p' "$T/export.err")
"$REPLAYER" --check "$T/k.ftr" > "$T/check.out"
ok $([ $? = 0 ] && grep -q " touches=$touches " "$T/check.out"; echo $?) \
	"ft-replayer --check reads it: $touches touches, as exported"
procs=$(sql "SELECT count(*) FROM process WHERE trace_id = 1")
ok $(grep -q " procs=$procs " "$T/check.out"; echo $?) \
	"every one of the $procs processes is in the file"

"$REPLAYER" "$T/k.ftr" > "$T/run.out" 2>&1
ok $([ $? = 0 ] && grep -q '^RESULT ft-replayer .* failed=0 status=0$' "$T/run.out"; echo $?) \
	"the replayer replays it on the host: every process exits 0"
n=$(grep -c '^FTREPLAY proc=' "$T/run.out")
ok $([ "$n" = "$procs" ]; echo $?) \
	"one FTREPLAY line per replayed process ($n), forked ones included"
ok $(grep -q '^FTREPLAY_ERROR' "$T/run.out"; [ $? = 1 ]; echo $?) "no FTREPLAY_ERROR"
# a buffer grown by mremap() move after move (tests/guest/guest-replay.sh replays it where
# the kernel cannot move the grown mapping in one call)
"$BUILD/testprogs/synth-db" "$T/ra.db" realloc 1 3000 > /dev/null &&
	"$FT" guest replay "$T/ra.db" --export "$T/ra.ftr" 2> /dev/null &&
	"$REPLAYER" "$T/ra.ftr" > "$T/ra.out" 2>&1
ok $([ $? = 0 ] && grep -q '^RESULT ft-replayer .* touches=3000 failed=0 status=0$' "$T/ra.out"
	echo $?) "the SYNTHETIC realloc stream: replayed on the host, 3000 touches, status 0"

"$FT" guest replay "$DB" > /dev/null 2>&1
ok $([ $? = 2 ]; echo $?) "guest replay without --policy: usage error (exit 2)"
"$FT" guest replay "$DB" --policy mcpage:12 > /dev/null 2>&1
ok $([ $? = 2 ]; echo $?) "guest replay with a bad policy: usage error (exit 2)"
"$FT" compare "$DB" --sim-vs-real > /dev/null 2> "$T/none.err"
ok $([ $? = 1 ] && grep -q 'no guest replay of trace 1' "$T/none.err"; echo $?) \
	"compare --sim-vs-real without a guest replay: exit 1, says so"

# identity: the trace is its own guest replay, every process its own family, one range
map=$(sql "SELECT proc_id, pid FROM process WHERE trace_id = 1" | while IFS=, read -r id pid; do
	printf 'FTREPLAY proc=%s proc_id=%s pid=%s parent=-1\n' "$id" "$id" "$pid"
	printf 'FTREPLAY_CLUSTER proc=%s start=0x1000 end=0x800000000000 offset=0\n' "$id"
done)
sqlite3 "$DB" "INSERT INTO trace_meta VALUES (1, 'replay_map', '$map');
	INSERT INTO replay_run(trace_id, policy, frag, kind, guest_trace_id, tool_version,
	created_at) VALUES (1, 'order0', 'none', 'guest', 1, 'test', 'now')"
"$FT" guest replay "$DB" --policy faultaround:16 > "$T/fa.out" 2>&1
# compare only reads: without the order0 simulation it names the command that stores it
cp "$DB" "$T/before.db"
"$FT" compare "$DB" --sim-vs-real > /dev/null 2> "$T/nosim.err"
rc=$?
cmd=$(sed -n 's/.*: run \(foliotrace replay .* --policy order0\)$/\1/p' "$T/nosim.err")
ok $([ $rc = 1 ] && [ "$(wc -l < "$T/nosim.err")" = 1 ] && [ -n "$cmd" ] &&
	cmp -s "$DB" "$T/before.db"; echo $?) \
	"compare --sim-vs-real without the order0 simulation: exit 1, one line naming the command, database untouched"
eval "set -- $cmd"
shift
"$FT" "$@" > /dev/null
ok $? "the command it names runs: $cmd"
"$FT" compare "$DB" --sim-vs-real --format json > "$T/svr.json" 2> "$T/svr.err"
ok $? "compare --sim-vs-real --format json (reads the stored order0 simulation)"
ok $([ -s "$T/svr.json" ] && jq -e '(.[] | select(.policy == "order0" and .metric == "peak_rss_bytes") |
	.error_pct == 0 and .sim > 0) and (.[] | select(.policy == "order0" and
	.metric == "cow_faults") | .error_pct == 0 and .sim > 0)' "$T/svr.json" > /dev/null
	echo $?) \
	"identity replay: real peak RSS and COW faults equal the order0 simulation"
ok $([ -s "$T/svr.json" ] && jq -e '(.[] | select(.policy == "faultaround:16" and .metric == "faults") |
	.kind == "sim-only" and .real == null and .sim > 0) and all(.[]; has("policy") and
	has("metric") and has("sim") and has("real") and has("error_pct"))' "$T/svr.json" \
	> /dev/null; echo $?) \
	"faultaround:16 (simulated by guest replay) is a sim-only row; rows have documented keys"
# a 6.12 guest's own per-size counters (header mthp_stats.before/.after, written here by
# hand): kind kernel rows, each the counter's change (no process is left out of the
# identity replay, so nothing is taken off); the order0 simulation allocated no 64K folio
M=$T/mthp.db
cp "$DB" "$M"
sqlite3 "$M" "INSERT INTO trace_meta VALUES (1, 'mthp_stats.before', '16kB anon_fault_alloc 5
16kB anon_fault_fallback 1
16kB split 9
64kB anon_fault_alloc 10
64kB anon_fault_fallback_charge 0
');
	INSERT INTO trace_meta VALUES (1, 'mthp_stats.after', '16kB anon_fault_alloc 5
16kB anon_fault_fallback 4
16kB split 12
64kB anon_fault_alloc 17
64kB anon_fault_fallback_charge 2
')"
"$FT" compare "$M" --sim-vs-real --format json > "$T/mthp.json" 2> "$T/mthp.err"
ok $([ $? = 0 ] && jq -e '[.[] | select(.kind == "kernel") | "\(.metric)=\(.sim)/\(.real)"] ==
	["kernel_anon_fault_alloc_64kB=0/7", "kernel_anon_fault_fallback=0/3",
	 "kernel_anon_fault_fallback_charge=null/2"]' "$T/mthp.json" > /dev/null; echo $?) \
	"6.12 counters: kernel rows for 64kB alloc (7), fallback (3), fallback_charge (2, no sim); none for an unchanged size"
for bad in "64kB anon_fault_alloc" "96kB anon_fault_alloc 3" "64kB anon_fault_alloc 1"; do
	cp "$DB" "$M"
	sqlite3 "$M" "INSERT INTO trace_meta VALUES (1, 'mthp_stats.before', '64kB anon_fault_alloc 2');
		INSERT INTO trace_meta VALUES (1, 'mthp_stats.after', '$bad')"
	cp "$M" "$T/mthp-before.db"
	"$FT" compare "$M" --sim-vs-real > "$T/bad.out" 2> "$T/bad.err"
	rc=$?
	[ "$bad" = "64kB anon_fault_alloc 1" ] && continue	# checked below
	ok $([ $rc = 1 ] && [ "$(wc -l < "$T/bad.err")" = 1 ] &&
		grep -q 'per-size counters of trace 1.*mthp_stats.after line 1' "$T/bad.err" &&
		cmp -s "$M" "$T/mthp-before.db"; echo $?) \
		"6.12 counters: '$bad' refused in one line naming the file and line (exit $rc: $(cat "$T/bad.err"))"
done
ok $([ $rc = 1 ] && grep -q 'anon_fault_alloc of order 4 went down (2 to 1)' "$T/bad.err"; echo $?) \
	"6.12 counters: a counter that went down is refused ($(cat "$T/bad.err"))"
# the real x86_64 guest traces of tests/data (order0 recordings of the bundled workloads)
RDB=$T/real.db
for d in "$TOP"/tests/data/x86_64-*-order0; do
	"$FT" ingest -q -o "$RDB" "$d"
done
for t in $("$FT" query "$RDB" --format csv sql "SELECT trace_id FROM trace" | tail -n +2); do
	w=$("$FT" query "$RDB" --format csv sql "SELECT workload FROM trace WHERE trace_id = $t" |
		tail -n +2)
	"$FT" guest replay "$RDB" --trace "$t" --export "$T/r$t.ftr" 2> /dev/null &&
		"$REPLAYER" "$T/r$t.ftr" > "$T/r$t.out" 2>&1
	ok $? "real trace $t ($w): exported and replayed on the host, every process exits 0"
	map=$("$FT" query "$RDB" --format csv sql "SELECT proc_id, pid FROM process WHERE
		trace_id = $t" | tail -n +2 | while IFS=, read -r id pid; do
		printf 'FTREPLAY proc=%s proc_id=%s pid=%s parent=-1\n' "$id" "$id" "$pid"
		printf 'FTREPLAY_CLUSTER proc=%s start=0x1000 end=0x800000000000 offset=0\n' "$id"
	done)
	sqlite3 "$RDB" "INSERT INTO trace_meta VALUES ($t, 'replay_map', '$map');
		INSERT INTO replay_run(trace_id, policy, frag, kind, guest_trace_id, tool_version,
		created_at) VALUES ($t, 'order0', 'none', 'guest', $t, 'test', 'now')"
	"$FT" replay "$RDB" --trace "$t" --policy order0 > /dev/null &&
		"$FT" compare "$RDB" --trace "$t" --sim-vs-real --format json > "$T/r$t.json"
	ok $([ $? = 0 ] && jq -e 'all(.[] | select(.policy == "order0" and (.metric == "faults" or
		.metric == "peak_rss_bytes" or .metric == "zeroed_bytes" or
		.metric == "cow_faults")); .error_pct == 0 and .sim == .real) and
		([.[] | select(.metric == "faults")] | length == 1)' "$T/r$t.json" > /dev/null
		echo $?) \
		"real trace $t: identity: faults, peak RSS, zeroed bytes, COW equal the simulation"
done
done_testing
