#!/bin/sh
# Guest test: `record --sites` on hostile workloads (issue 14, docs/sites.md "Limits").
# sites-ptrace is a debugger of its own children: under the tracer its PTRACE_TRACEME and
# PTRACE_ATTACH fail with EPERM (both processes are already traced), it runs on, and its
# two processes' faults are still attributed, exactly, to the functions that mapped them.
# sites-exit calls exit_group while four threads are in mmap (stopped at the call, or
# being unwound): the run ends normally, every call that returned is stored with its
# region, and no fault is dropped. (A stripped binary: tests/guest/sites.sh.)
. "$(dirname "$0")/../test-lib.sh"
. "$(dirname "$0")/guest-lib.inc"

plan 12
db=$T/hostile.db
q() {
	"$FT" query "$db" --format csv sql "WITH sc AS (SELECT * FROM site_call WHERE trace_id = $1)
		$2" | tail -n 1
}
# nothing_lost TRACE: the traced processes' calls hold all their anon faults
nothing_lost() {
	_sum=$(q "$1" "SELECT sum(faults) FROM sc")
	_procs=$(q "$1" "SELECT sum(anon_faults) FROM process WHERE trace_id = $1 AND
		pid IN (SELECT pid FROM sc)")
	ok $([ -n "$_sum" ] && [ "$_sum" -gt 0 ] && [ "$_sum" = "$_procs" ]; echo $?) \
		"$2: no fault dropped, the calls hold the traced processes' anon faults ($_sum = $_procs)"
}

cp "$TOP/build/testprogs/$ARCH/sites-ptrace" "$T/sites-ptrace" || diag "run make workloads first"
"$FT" record --sites --arch "$ARCH" -o "$db" -- "$T/sites-ptrace" > "$T/out" 2> "$T/err"
ok $? "record --sites of a workload that uses ptrace exits 0"
wout=$(ls -d "$db".ctf/*-sites-ptrace)/workload.out
ok $(grep -q '^RESULT sites-ptrace .* traceme=EPERM attach=EPERM status=0' "$wout"; echo $?) \
	"its PTRACE_TRACEME and PTRACE_ATTACH fail with EPERM: $(grep '^RESULT' "$wout")"
for fn in child_map parent_map; do
	want=$(sed -n "s/^EXPECT fn=$fn faults=//p" "$wout")
	got=$(q 1 "SELECT sum(faults) FROM sc WHERE site = '$fn'")
	ok $([ -n "$want" ] && [ "$got" = "$want" ]; echo $?) \
		"$fn: $got faults attributed, the workload's own count is $want"
done
ok $([ "$(q 1 "SELECT count(DISTINCT pid) FROM sc WHERE site IN ('child_map', 'parent_map')")" = 2 ]
     echo $?) "the parent's and the child's calls are both traced"
nothing_lost 1 "ptrace"

cp "$TOP/build/testprogs/$ARCH/sites-exit" "$T/sites-exit" || diag "run make workloads first"
"$FT" record --sites --arch "$ARCH" -o "$db" -- "$T/sites-exit" > "$T/out" 2> "$T/err"
ok $? "record --sites of a process that exits while its threads are in mmap exits 0"
wout=$(ls -d "$db".ctf/*-sites-exit)/workload.out
calls=$(sed -n 's/^EXPECT fn=mapper calls>=\([0-9]*\) .*/\1/p' "$wout")
faults=$(sed -n 's/^EXPECT fn=mapper .* faults>=\([0-9]*\)$/\1/p' "$wout")
got=$(q 2 "SELECT count(*) FROM sc WHERE site = 'mapper' AND call = 'mmap' AND start IS NOT NULL")
ok $([ -n "$calls" ] && [ "$got" -ge "$calls" ]; echo $?) \
	"every mmap that returned is stored with its region ($got >= $calls)"
gotf=$(q 2 "SELECT sum(faults) FROM sc WHERE site = 'mapper'")
ok $([ -n "$faults" ] && [ "$gotf" -ge "$faults" ]; echo $?) \
	"their faults are attributed to mapper ($gotf >= $faults)"
ok $([ "$(q 2 "SELECT count(*) FROM sc WHERE pid NOT IN (SELECT pid FROM process
	     WHERE trace_id = 2)")" = 0 ]; echo $?) \
	"every call is recorded under its process, a thread's first call before its clone event too"
nothing_lost 2 "exit mid-call"
diag "sites-exit stack statuses: $("$FT" query "$db" --format csv sql "SELECT status || ':' || count(*)
	FROM site_call JOIN site_stack USING (stack_id) WHERE site_call.trace_id = 2
	GROUP BY status" | tail -n +2 | tr '\n' ' ')"
ok $([ "$(q 2 "SELECT count(*) FROM sc WHERE call = 'mmap' AND result >= 0 AND
	     result < 4096")" = 0 ]; echo $?) "no call is stored half-done (a result that is no address)"
done_testing
