#!/bin/sh
# bench/report.sh - what writing the report costs on a kbuild-sized trace, side by side
# with replaying the trace once under order0 and with another build (BASE: its build
# directory, e.g. main's, holding foliotrace and testprogs/synth-db; its own database of
# the same stream, since an older binary refuses a newer schema), and that the page does
# not grow with the trace. Two SYNTHETIC streams (replay/synth.c kbuild-like, NR and
# 10 x NR faults; named so in the output, never presented as recorded) are replayed
# under order0, mcpage:4 and thp; then each command is run 3 times, alternately, and its
# least CPU time (user + system, /usr/bin/time) kept: on these shared 2-CPU machines the
# wall time moves with the load, the CPU time much less.
#
#   sh bench/report.sh [NR [BASE]]        default 1000000, no base
#
# The synthetic database has no per-process fault counts (synth-db writes none); the
# bench sets process.anon_faults and vma.faults to 1 so the heat maps are drawn and their
# pass over the stream is paid, as on a recorded trace.
# Last line: report_vs_replay=R [report_vs_base=B replay_vs_base=P] page_growth=G at
# 10 x NR: R the report's CPU time over one order0 replay's, B over BASE's report, P the
# order0 replay's over BASE's (what the series costs the simulator), G the page's size at
# 10 x NR over its size at NR.
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP"
N=${1:-1000000}
BASE=${2:-}
make -s all > /dev/null
FT=build/foliotrace
W=${FT_BENCH_DIR:-build/bench-report}
mkdir -p "$W"
echo "bench/report.sh: $(nproc) cpus, load average $(cut -d' ' -f1-3 /proc/loadavg)" \
	"(the machine is shared: numbers move with the load)"
cpu() { # cpu CMD...: CPU seconds (user + system) of one run
	/usr/bin/time -f '%U %S' -o "$W/time" "$@" > /dev/null 2>&1
	awk '{ print $1 + $2 }' "$W/time"
}
least() { awk -v a="$1" -v b="$2" 'BEGIN { print (b == "" || a < b) ? a : b }'; }
for n in "$N" $((N * 10)); do
	db=$W/k$n.db
	bdb=$W/base-k$n.db
	for b in "$TOP/build" ${BASE:+"$BASE"}; do
		d=$db
		[ "$b" = "$TOP/build" ] || d=$bdb
		rm -f "$d"
		"$b/testprogs/synth-db" "$d" kbuild-like 1 "$n" > /dev/null
		sqlite3 "$d" "UPDATE process SET anon_faults = 1; UPDATE vma SET faults = 1"
		"$b/foliotrace" replay "$d" -P order0 -P mcpage:4 -P thp > /dev/null
	done
	ev=$(sqlite3 "$db" "SELECT sum(nr_events) FROM event_chunk")
	rep= rpl= bas= brp=
	for _ in 1 2 3; do
		rep=$(least "$(cpu $FT report "$db" -o "$W/k$n.html")" "$rep")
		rpl=$(least "$(cpu $FT replay "$db" -n -P order0)" "$rpl")
		[ -z "$BASE" ] || bas=$(least "$(cpu "$BASE/foliotrace" report "$bdb" -o "$W/base$n.html")" "$bas")
		[ -z "$BASE" ] || brp=$(least "$(cpu "$BASE/foliotrace" replay "$bdb" -n -P order0)" "$brp")
	done
	size=$(wc -c < "$W/k$n.html")
	echo "SYNTHETIC kbuild-like $n faults ($ev events): report ${rep}s CPU," \
		"replay order0 ${rpl}s${BASE:+, base: report ${bas}s, replay ${brp}s}, page $size bytes" \
		"${BASE:+(base $(wc -c < "$W/base$n.html") bytes)}"
	eval "rep_$n=$rep rpl_$n=$rpl bas_$n=$bas brp_$n=$brp size_$n=$size"
done
M=$((N * 10))
eval "r=\$rep_$M p=\$rpl_$M b=\$bas_$M q=\$brp_$M s1=\$size_$N s2=\$size_$M"
awk -v r="$r" -v p="$p" -v b="$b" -v q="$q" -v s1="$s1" -v s2="$s2" 'BEGIN {
	printf "report_vs_replay=%.2f", r / p
	if (b != "") printf " report_vs_base=%.2f replay_vs_base=%.2f", r / b, p / q
	printf " page_growth=%.3f\n", s2 / s1 }'
