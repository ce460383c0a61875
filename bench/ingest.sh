#!/bin/sh
# bench/ingest.sh - ingest speed and storage cost of one trace, measured side by side.
#
#   sh bench/ingest.sh [CTF_DIR [ROUNDS]]
#
# Without CTF_DIR it first records one in the x86_64 guest (FT_BENCH_ARCH to change):
# pf-loop --size 64M --loops 64, 1,048,576 anonymous faults and as many allocations, with
# LTTng buffers large enough that nothing is discarded (checked).
#
# Each round times `babeltrace2 CTF_DIR -o dummy` (decoding alone, the floor any consumer
# pays), `foliotrace ingest` into a fresh database, and the same ingest with
# FT_INGEST_SERIAL=1 (one babeltrace2 graph, as before the parallel decode of
# tracer/pdecode.h), alternating so all see the same page cache and machine load; the
# median of ROUNDS (default 3) of each is compared. Both ingests must store the same
# database (compared as SQL dumps, the ingest time left out).
# The goal of the collector's issue: ingest_vs_babeltrace2 <= 1.5 and a database no larger
# than the CTF trace. Last line (machine-readable):
#
#   ingest_vs_babeltrace2=R db_bytes_per_fault=X ctf_bytes_per_event=Y
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
FT="$TOP/build/foliotrace"
dir=${1:-}
rounds=${2:-3}
T=$(mktemp -d "${TMPDIR:-/tmp}/foliotrace-bench.XXXXXX")
trap 'rm -rf "$T"' EXIT
if [ -z "$dir" ]; then
	dir=$T/trace
	echo "recording pf-loop --size 64M --loops 64 in a ${FT_BENCH_ARCH:-x86_64} guest" >&2
	FT_SUBBUF=8M FT_NSUBBUF=16 sh "$TOP/guest-kernel/run.sh" --arch "${FT_BENCH_ARCH:-x86_64}" \
		--out "$dir" -- pf-loop --size 64M --loops 64 >&2 ||
		{ echo "bench/ingest.sh: recording failed" >&2; exit 1; }
	[ "$(cat "$dir/header/discarded_events")" = 0 ] ||
		{ echo "bench/ingest.sh: LTTng discarded events" >&2; exit 1; }
fi

now() { date +%s%N; }
# cpu_ns FILE: user + system time of this shell's finished children, ns, from the output of
# `times` (which must run in this shell, not in a $(...) subshell: FILE carries it out)
cpu_ns() { tail -1 "$1" | awk '{ split($1, u, /[ms]/); split($2, s, /[ms]/)
	printf "%.0f\n", (u[1] * 60 + u[2] + s[1] * 60 + s[2]) * 1e9 }'; }
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

babeltrace2 "$dir" -o dummy > /dev/null 2>&1	# warm the page cache
i=0
while [ $i -lt "$rounds" ]; do
	times > "$T/c0"
	t0=$(now)
	babeltrace2 "$dir" -o dummy > /dev/null 2>&1
	t1=$(now)
	times > "$T/c1"
	rm -f "$T/b.db"
	"$FT" ingest -q -o "$T/b.db" "$dir"
	t2=$(now)
	times > "$T/c2"
	rm -f "$T/s.db"
	FT_INGEST_SERIAL=1 "$FT" ingest -q -o "$T/s.db" "$dir"
	t3=$(now)
	c0=$(cpu_ns "$T/c0") c1=$(cpu_ns "$T/c1") c2=$(cpu_ns "$T/c2")
	echo $((t3 - t2)) >> "$T/serial"
	echo $((t1 - t0)) >> "$T/bt"
	echo $((t2 - t1)) >> "$T/ft"
	echo $((c1 - c0)) >> "$T/btcpu"
	echo $((c2 - c1)) >> "$T/ftcpu"
	i=$((i + 1))
done
bt=$(median < "$T/bt")
ft=$(median < "$T/ft")
btcpu=$(median < "$T/btcpu")
ftcpu=$(median < "$T/ftcpu")
serial=$(median < "$T/serial")
dump() { sqlite3 "$1" .dump | sed 's/,'"'"'[0-9-]*T[0-9:]*Z'"'"',/,TIME,/'; }
[ "$(dump "$T/b.db" | md5sum)" = "$(dump "$T/s.db" | md5sum)" ] ||
	{ echo "bench/ingest.sh: the parallel and the serial ingest stored different databases" >&2; exit 1; }

q() { "$FT" query "$T/b.db" --format csv sql "$1" | tail -n +2; }
faults=$(q "SELECT coalesce(sum(count), 0) FROM event_count WHERE name = 'anon_fault'")
events=$(q "SELECT events FROM trace")
records=$(q "SELECT coalesce(sum(nr_events), 0) FROM event_chunk")
stream=$(q "SELECT coalesce(sum(length(data)), 0) FROM event_chunk")
db=$(stat -c %s "$T/b.db")
# the CTF trace: the directories holding a metadata file (the runner's header/, logs and
# workload output beside them are not CTF)
ctf=$(find "$dir" -name metadata -type f | while read -r m; do
	find "$(dirname "$m")" -type f -printf '%s\n'
done | awk '{ s += $1 } END { print s + 0 }')

echo "trace:        $dir"
echo "events:       $events ($faults anon_fault, $records stream records)"
echo "babeltrace2:  $(awk -v n="$bt" 'BEGIN { printf "%.3f s (-o dummy, median of '"$rounds"')", n / 1e9 }')"
echo "ingest:       $(awk -v n="$ft" 'BEGIN { printf "%.3f s (median of '"$rounds"')", n / 1e9 }')"
echo "serial:       $(awk -v n="$serial" -v b="$bt" 'BEGIN { printf "%.3f s (FT_INGEST_SERIAL=1, median of '"$rounds"'): serial_vs_babeltrace2=%.3f", n / 1e9, b ? n / b : 0 }')"
echo "CTF:          $ctf bytes; database $db bytes (event stream $stream bytes)"
# wall time is the goal's measure; CPU time (user + system) is steadier on a busy machine
awk -v bt="$bt" -v ft="$ft" -v db="$db" -v ctf="$ctf" -v f="$faults" -v e="$events" \
	-v s="$stream" -v r="$records" -v bc="$btcpu" -v fc="$ftcpu" 'BEGIN {
	printf "cpu: babeltrace2 %.3f s, ingest %.3f s: cpu_ingest_vs_babeltrace2=%.3f\n",
		bc / 1e9, fc / 1e9, bc ? fc / bc : 0
	printf "stream_bytes_per_record=%.2f db_vs_ctf=%.3f\n", r ? s / r : 0, ctf ? db / ctf : 0
	printf "ingest_vs_babeltrace2=%.3f db_bytes_per_fault=%.2f ctf_bytes_per_event=%.2f\n",
		bt ? ft / bt : 0, f ? db / f : 0, e ? ctf / e : 0
}'
