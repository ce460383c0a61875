#!/bin/sh
# bench/report.sh - what writing the report costs on a kbuild-sized trace, side by side
# with replaying it once under order0 (the cheapest thing a user runs on that trace), and
# that the page does not grow with the trace: two SYNTHETIC streams (replay/synth.c
# kbuild-like, NR and 10 x NR faults; named so in the output, never presented as
# recorded) replayed under order0, mcpage:4 and thp, then `report` timed alternately with
# `replay -n -P order0` (best of 3 each, so both see the same load).
#
#   sh bench/report.sh [NR]        default 1000000
#
# The synthetic database has no per-process fault counts (synth-db writes none); the
# bench sets process.anon_faults and vma.faults to 1 so the heat maps are drawn and their
# pass over the stream is paid, as on a recorded trace.
# Last line: report_vs_replay=R page_growth=G: R the report's time over one order0 replay
# at 10 x NR, G the page's size at 10 x NR over its size at NR.
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP"
N=${1:-1000000}
make -s all > /dev/null
FT=build/foliotrace
W=${FT_BENCH_DIR:-build/bench-report}
mkdir -p "$W"
echo "bench/report.sh: $(nproc) cpus, load average $(cut -d' ' -f1-3 /proc/loadavg)" \
	"(the machine is shared: numbers move with the load)"
best() { # best CMD...: the least wall time of 3 runs, in seconds
	b=
	for _ in 1 2 3; do
		s=$(date +%s.%N)
		"$@" > /dev/null
		e=$(date +%s.%N)
		b=$(echo "$s $e $b" | awk '{ d = $2 - $1; if ($3 == "" || d < $3) print d; else print $3 }')
	done
	echo "$b"
}
for n in "$N" $((N * 10)); do
	db=$W/k$n.db
	rm -f "$db"
	build/testprogs/synth-db "$db" kbuild-like 1 "$n" > /dev/null
	sqlite3 "$db" "UPDATE process SET anon_faults = 1; UPDATE vma SET faults = 1"
	$FT replay "$db" -P order0 -P mcpage:4 -P thp > /dev/null
	ev=$(sqlite3 "$db" "SELECT sum(nr_events) FROM event_chunk")
	rep=$(best $FT report "$db" -o "$W/k$n.html")
	rpl=$(best $FT replay "$db" -n -P order0)
	size=$(wc -c < "$W/k$n.html")
	echo "SYNTHETIC kbuild-like $n faults ($ev events): report ${rep}s, replay order0 ${rpl}s," \
		"page $size bytes" | awk '{ print }'
	eval "rep_$n=$rep rpl_$n=$rpl size_$n=$size"
done
eval "awk -v a=\$rep_$((N * 10)) -v b=\$rpl_$((N * 10)) -v s1=\$size_$N -v s2=\$size_$((N * 10)) \
	'BEGIN { printf \"report_vs_replay=%.2f page_growth=%.3f\\n\", a / b, s2 / s1 }'"
