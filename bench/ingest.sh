#!/bin/sh
# bench/ingest.sh - ingest speed and storage cost of one trace, measured side by side.
#
#   sh bench/ingest.sh CTF_DIR [ROUNDS]
#
# Each round times `babeltrace2 CTF_DIR -o dummy` (decoding alone, the floor any consumer
# pays) and `foliotrace ingest` into a fresh database, alternating so both see the same
# page cache and machine load; the median of ROUNDS (default 3) of each is compared.
# The goal of the collector's issue: ingest_vs_babeltrace2 <= 1.5 and a database no larger
# than the CTF trace. Last line (machine-readable):
#
#   ingest_vs_babeltrace2=R db_bytes_per_fault=X ctf_bytes_per_event=Y
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
FT="$TOP/build/foliotrace"
dir=${1:?usage: bench/ingest.sh CTF_DIR [ROUNDS]}
rounds=${2:-3}
T=$(mktemp -d "${TMPDIR:-/tmp}/foliotrace-bench.XXXXXX")
trap 'rm -rf "$T"' EXIT

now() { date +%s%N; }
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

babeltrace2 "$dir" -o dummy > /dev/null 2>&1	# warm the page cache
i=0
while [ $i -lt "$rounds" ]; do
	t0=$(now)
	babeltrace2 "$dir" -o dummy > /dev/null 2>&1
	t1=$(now)
	rm -f "$T/b.db"
	"$FT" ingest -q -o "$T/b.db" "$dir"
	t2=$(now)
	echo $((t1 - t0)) >> "$T/bt"
	echo $((t2 - t1)) >> "$T/ft"
	i=$((i + 1))
done
bt=$(median < "$T/bt")
ft=$(median < "$T/ft")

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
echo "CTF:          $ctf bytes; database $db bytes (event stream $stream bytes)"
awk -v bt="$bt" -v ft="$ft" -v db="$db" -v ctf="$ctf" -v f="$faults" -v e="$events" \
	-v s="$stream" -v r="$records" 'BEGIN {
	printf "stream_bytes_per_record=%.2f db_vs_ctf=%.3f\n", r ? s / r : 0, ctf ? db / ctf : 0
	printf "ingest_vs_babeltrace2=%.3f db_bytes_per_fault=%.2f ctf_bytes_per_event=%.2f\n",
		bt ? ft / bt : 0, f ? db / f : 0, e ? ctf / e : 0
}'
