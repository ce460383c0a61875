#!/bin/sh
# workload-marks.sh - which processes are the recorded workload's (issue 13): the collector
# follows header/workload_pid through sched_process_fork, query procs --workload and replay's
# default selection use the marks, a trace without the header key keeps every process.
# The expected sets come from babeltrace2's own reading of the fixture, not the collector.
# Also record's checks that need no guest: a missing command, a root that is not one.
. "$(dirname "$0")/../test-lib.sh"

plan 13
FIX=$TOP/tests/data/x86_64-fork-cow-order0
cp -r "$FIX" "$T/fc"
root=$(cat "$FIX/header/workload_pid" 2>/dev/null || echo 100)
echo "$root" > "$T/fc/header/workload_pid"
"$FT" ingest -q -o "$T/m.db" "$T/fc" > /dev/null 2>&1
ok $? "ingest of fork-cow with header/workload_pid=$root"
q() { "$FT" query "$1" --format csv sql "$2" | tail -n +2; }

# the tree by babeltrace2: root's descendants through sched_process_fork's parent_pid
babeltrace2 "$FIX/trace" 2>/dev/null | sed -n 's/.*sched_process_fork:.* parent_pid = \([0-9]*\),.* child_tid = \([0-9]*\),.* child_pid = \([0-9]*\),.*/\1 \2 \3/p' |
	awk -v r="$root" 'BEGIN { in_[r] = 1 } $2 == $3 && ($1 in in_) { in_[$3] = 1 } END { for (p in in_) print p }' |
	sort -n > "$T/tree"
tree=$(tr '\n' ',' < "$T/tree" | sed 's/,$//')
ok $([ "$(wc -l < "$T/tree")" -ge 2 ]; echo $?) "babeltrace2: the tree of $root is {$tree}"
# every mm of those pids except the root's copy of its launcher (the one anon_mm_dup made)
want=$(( $(q "$T/m.db" "SELECT count(*) FROM process WHERE pid IN ($tree)") - 1 ))
got=$(q "$T/m.db" "SELECT count(*) FROM process WHERE workload = 1")
ok $([ "$got" = "$want" ]; echo $?) "workload processes: $got (want $want)"
ok $([ "$(q "$T/m.db" "SELECT count(*) FROM process WHERE workload = 1 AND pid NOT IN ($tree)")" = 0 ]; echo $?) \
	"no process outside the tree is marked"
dup=$(q "$T/m.db" "SELECT p.workload FROM process p JOIN process q ON q.proc_id = p.parent_proc_id WHERE p.pid = $root AND q.pid <> $root")
ok $([ "$dup" = 0 ]; echo $?) "the root's copy of its launcher's mm is setup (workload=$dup)"
ok $([ "$(q "$T/m.db" "SELECT count(*) FROM process WHERE workload IS NULL")" = 0 ]; echo $?) \
	"every process is marked 0 or 1"

"$FT" query "$T/m.db" --format csv procs --workload | tail -n +2 > "$T/wl"
ok $([ "$(wc -l < "$T/wl")" = "$want" ] && ! cut -d, -f3 "$T/wl" | grep -qx 'init\|lttng'; echo $?) \
	"query procs --workload lists the $want, no init or lttng ($(cut -d, -f3 "$T/wl" | sort -u | tr '\n' ' '))"
"$FT" replay "$T/m.db" --policy order0 > "$T/r.out" 2>&1
ok $(grep -q ", $want processes" "$T/r.out"; echo $?) "replay selects them by default: $(head -n 1 "$T/r.out")"

# the same trace without the key: unmarked, --workload refuses, replay keeps everything
"$FT" ingest -q -o "$T/old.db" "$FIX" > /dev/null 2>&1
all=$(q "$T/old.db" "SELECT count(*) FROM process")
ok $([ "$(q "$T/old.db" "SELECT count(*) FROM process WHERE workload IS NOT NULL")" = 0 ]; echo $?) \
	"without header/workload_pid nothing is marked"
"$FT" query "$T/old.db" procs --workload > /dev/null 2> "$T/err"
ok $([ $? = 1 ] && grep -q 'does not mark its workload' "$T/err"; echo $?) \
	"query procs --workload on it: $(cat "$T/err")"
"$FT" replay "$T/old.db" --policy order0 > "$T/r.out" 2>&1
ok $(grep -q ", $all processes" "$T/r.out"; echo $?) "replay of it selects all $all processes"

# record: decided before any guest boots
(cd "$T" && "$FT" record -o "$T/rec.db" -- no-such-program-ft) > /dev/null 2> "$T/err"
ok $([ $? = 1 ] && [ "$(wc -l < "$T/err")" = 1 ] && grep -q 'workload not found: no-such-program-ft' "$T/err" &&
	[ ! -e "$T/rec.db" ] && [ ! -e "$T/rec.db.ctf" ]; echo $?) "record of a missing command: $(cat "$T/err")"
mkdir -p "$T/notroot/usr"
(cd "$T" && "$FT" record -o "$T/rec.db" --rootfs "$T/notroot" -- ls) > /dev/null 2> "$T/err"
ok $([ $? = 1 ] && grep -q 'is not a root filesystem' "$T/err" && [ ! -e "$T/rec.db.ctf" ]; echo $?) \
	"record --rootfs at a directory that is not a root: $(cat "$T/err")"
done_testing
