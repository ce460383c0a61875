#!/bin/sh
# ingest.sh - foliotrace ingest on the SYNTHETIC fixtures and on every real trace under
# tests/data: per-type counts equal babeltrace2's own, the trace stored once, processes
# and names as the events say, header and discarded events kept, the database smaller than
# the CTF trace, and the babeltrace2 plugin storing the same as `foliotrace ingest`.
. "$(dirname "$0")/../test-lib.sh"
. "$(dirname "$0")/trace-lib.inc"

nreal=$(real_traces | wc -l)
plan $((25 + 3 * nreal))
diag "real traces: $nreal; synthetic fixtures: $(basename "$SMALL") $(basename "$TINY")"
# the real traces' checks below must not pass by there being none: both arches recorded
nx86=$(real_traces | grep -c '/x86_64-')
narm=$(real_traces | grep -c '/arm64-')
ok $([ "$nx86" -ge 1 ] && [ "$narm" -ge 1 ]; echo $?) \
	"real fixtures present: $nx86 recorded on x86_64, $narm on arm64"

DB="$T/a.db"
check "ingest the synthetic fixture" "$FT" ingest -o "$DB" "$SMALL"

bt_counts "$SMALL" > "$T/bt.counts"
db_counts "$DB" > "$T/db.counts"
check "event counts per type equal babeltrace2's (synthetic)" cmp "$T/bt.counts" "$T/db.counts"
total=$(bt_total "$SMALL")
ok $([ "$(db_int "$DB" "SELECT events FROM trace")" = "$total" ]; echo $?) \
	"trace.events equals sink.utils.counter's event messages ($total)"
ok $([ "$(db_int "$DB" "SELECT sum(count) FROM event_count")" = "$total" ]; echo $?) \
	"sum of event_count equals sink.utils.counter"

cp "$DB" "$T/before.db"
"$FT" ingest -o "$DB" "$SMALL" > "$T/again.out" 2>&1
ok $? "ingesting the same trace again succeeds"
check "  ... and says it is already stored" grep -q "already stored as trace 1" "$T/again.out"
check "  ... and leaves the database byte for byte as it was" cmp "$DB" "$T/before.db"

"$FT" ingest -q -o "$DB" "$TINY"
ok $([ "$(db_int "$DB" "SELECT count(*) FROM trace")" = 2 ]; echo $?) \
	"a second, different trace is stored next to the first"
db_counts "$DB" 2 > "$T/db2.counts"
bt_counts "$TINY" > "$T/bt2.counts"
check "  ... with its own counts" cmp "$T/bt2.counts" "$T/db2.counts"

# the story of make-synthetic.py: names from statedump, fork, exec (15 chars), mm reuse
db_int "$DB" "SELECT pid || ':' || comm || ':' || coalesce(parent_proc_id, '-') FROM process
	      WHERE trace_id = 1 ORDER BY proc_id" | tr '\n' ' ' > "$T/procs"
check "processes: one per mm instance, named by statedump/fork/exec, parents from mm_dup" \
	grep -qx "100:bash:- 200:bash:1 200:anon-touch-with:- 300:bash:1 " "$T/procs"
ok $([ "$(db_int "$DB" "SELECT anon_faults FROM process WHERE comm = 'anon-touch-with'
			AND trace_id = 1")" = 1001 ]; echo $?) "anon_faults of the exec'd process"
ok $([ "$(db_int "$DB" "SELECT count(*) FROM vma JOIN process USING (proc_id)
			WHERE trace_id = 1")" = 6 ]; echo $?) "six distinct VMA shapes"
ok $([ "$(db_int "$DB" "SELECT group_concat(cause, ' ') FROM (SELECT cause FROM zap
			WHERE trace_id = 1 ORDER BY seq)")" = "exit munmap dontneed mremap exit exit exit exit exit" ]; echo $?) \
	"zaps in stream order with their causes"
ok $([ "$(db_int "$DB" "SELECT sum(faults) FROM fault_order WHERE trace_id = 1")" = \
       "$(db_int "$DB" "SELECT count FROM event_count WHERE trace_id = 1 AND name = 'anon_fault'")" ]; echo $?) \
	"fault_order adds up to the anon_fault count"
ok $([ "$(db_int "$DB" "SELECT sum(nr_events) FROM event_chunk WHERE trace_id = 1")" = \
       "$(db_int "$DB" "SELECT sum(count) FROM event_count WHERE trace_id = 1 AND name LIKE 'anon_%'")" ]; echo $?) \
	"the event stream holds every anon_* event"
ok $([ "$(db_int "$DB" "SELECT arch || ' ' || page_size || ' ' || policy || ' ' || discarded_events
			FROM trace WHERE trace_id = 1")" = "x86_64 4096 order0 7" ]; echo $?) \
	"header columns and the discarded events of the stream"
ok $([ "$(db_int "$DB" "SELECT count(*) FROM trace_meta WHERE trace_id = 1 AND key IN
			('buddyinfo.before', 'buddyinfo.after', 'vmstat.before', 'vmstat.after',
			 'env.kernel_release')")" = 5 ]; echo $?) "header files and CTF environment in trace_meta"

# a trace without a CTF UUID is identified by its files' names and sizes
cp -r "$TINY" "$T/nouuid"
sed -i '/^\tuuid = "/d' "$T/nouuid/trace/metadata"
"$FT" ingest -q -o "$T/nouuid.db" "$T/nouuid" && "$FT" ingest -q -o "$T/nouuid.db" "$T/nouuid"
ok $? "a trace without UUID ingests (twice)"
ok $([ "$(db_int "$T/nouuid.db" "SELECT count(*) || ' ' || substr(uuid, 1, 6) FROM trace")" = "1 files:" ]; echo $?) \
	"  ... and is stored once, identified by its files"

# the database is smaller than the CTF it came from
ctf=$(du -sb "$SMALL/trace" | cut -f1)
"$FT" ingest -q -o "$T/one.db" "$SMALL"
dbb=$(stat -c %s "$T/one.db")
diag "CTF $ctf bytes, database $dbb bytes"
ok $([ "$dbb" -lt "$ctf" ]; echo $?) "database smaller than the CTF trace"

# the same sink class as a babeltrace2 plugin stores the same rows
babeltrace2 --plugin-path="$TOP/build/plugins" "$SMALL" -c sink.foliotrace.sqlite \
	-p "path=\"$T/plugin.db\",input=\"$SMALL\"" > "$T/plugin.out" 2>&1
ok $? "babeltrace2 -c sink.foliotrace.sqlite works"
for v in summary procs vmas orders faults; do
	"$FT" query "$T/one.db" --format csv $v | grep -v '^\(ingested_at\|path\),' > "$T/one.$v"
	"$FT" query "$T/plugin.db" --format csv $v | grep -v '^\(ingested_at\|path\),' > "$T/plugin.$v"
done
check "  ... and stores what foliotrace ingest stores" sh -c "cd $T && for v in summary procs vmas orders faults; do cmp one.\$v plugin.\$v || exit 1; done"
# a failing sink inside babeltrace2 reports its cause (our error(), not glibc's error(3),
# which would exit the CLI with "Unknown error N")
babeltrace2 --plugin-path="$TOP/build/plugins" "$SMALL" -c sink.foliotrace.sqlite \
	-p "path=\"$T/no/such/dir/x.db\"" > "$T/plugin-fail.out" 2>&1
ok $([ $? = 1 ]; echo $?) "the plugin's failure is babeltrace2's exit 1"
check "  ... with our cause in babeltrace2's chain" sh -c "grep -q \"CAUSED BY .*sink.foliotrace.sqlite\" $T/plugin-fail.out && grep -q \"cannot create $T/no/such/dir/x.db\" $T/plugin-fail.out"

# every real trace recorded in a guest: counts equal babeltrace2's on the real trace
for d in $(real_traces); do
	n=$(basename "$d")
	"$FT" ingest -q -o "$T/real-$n.db" "$d" > "$T/real.out" 2>&1
	rc=$?
	ok $rc "ingest real trace $n"
	[ $rc = 0 ] || sed 's/^/# /' "$T/real.out"
	bt_counts "$d" > "$T/bt-$n"
	db_counts "$T/real-$n.db" > "$T/db-$n"
	check "event counts per type equal babeltrace2's (real trace $n)" cmp "$T/bt-$n" "$T/db-$n"
	ok $([ "$(db_int "$T/real-$n.db" "SELECT events FROM trace")" = "$(bt_total "$d")" ]; echo $?) \
		"trace.events equals sink.utils.counter (real trace $n)"
done
done_testing
