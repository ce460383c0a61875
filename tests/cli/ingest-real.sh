#!/bin/sh
# ingest-real.sh - differential check of the whole collector on every real guest trace under
# tests/data (recorded by tests/data/make-fixtures.sh): the anon_fault records decoded from
# the stored event stream equal, one by one and in order, the anon_fault events babeltrace2
# prints for the same trace (time, pid, tid, address, write, order, nr_ptes, zero_page,
# fallback, latency_ns), and the per-process counts agree with babeltrace2's per-pid counts.
# Plus what each recorded workload must show. Skips itself (one ok) when no real trace exists.
. "$(dirname "$0")/../test-lib.sh"
. "$(dirname "$0")/trace-lib.inc"

traces=$(real_traces)
n=$(echo "$traces" | grep -c .)
plan $((1 + 3 * n))
ok $([ "$n" -gt 0 ]; echo $?) "real guest traces found: $n"

for d in $traces; do
	name=$(basename "$d")
	db="$T/$name.db"
	"$FT" ingest -q -o "$db" "$d"
	# babeltrace2's view: ns timestamps, hex in lower case, enum labels
	babeltrace2 --clock-seconds "$d" 2>/dev/null | grep ' anon_fault: ' |
		sed -e 's/( "\([a-z_]*\)" : container = [0-9]* )/\1/' |
		awk '{
			ts = $1; gsub(/[][.]/, "", ts)
			body = $0; sub(/^[^{]*\{[^}]*\}, \{ /, "", body); sub(/ \}$/, "", body)
			n = split(body, kv, ", ")
			for (i = 1; i <= n; i++) { split(kv[i], p, " = "); f[p[1]] = tolower(p[2]) }
			print ts "," f["pid"] "," f["tid"] "," f["address"] "," f["write"] "," \
			      f["order"] "," f["nr_ptes"] "," f["zero_page"] "," f["fallback"] "," \
			      f["latency_ns"]
		}' > "$T/bt.faults"
	"$FT" query "$db" --format csv faults | tail -n +2 | cut -d, -f1-10 > "$T/db.faults"
	check "$name: every stored fault equals babeltrace2's anon_fault event, in order ($(wc -l < "$T/bt.faults"))" \
		cmp "$T/bt.faults" "$T/db.faults"
	cut -d, -f2 "$T/bt.faults" | sort -n | uniq -c | awk '{ print $2, $1 }' > "$T/bt.pids"
	"$FT" query "$db" --format csv sql "SELECT pid, sum(anon_faults) FROM process
		WHERE anon_faults > 0 GROUP BY pid ORDER BY pid" | tail -n +2 | tr ',' ' ' > "$T/db.pids"
	check "$name: anon_faults per pid equal babeltrace2's" cmp "$T/bt.pids" "$T/db.pids"

	# what the recorded workload must show (its own header and RESULT line say what ran)
	wl=$(cut -d' ' -f1 "$d/header/workload" 2>/dev/null)
	pid=$(sed -n 's/^RESULT .* pid=\([0-9]*\).*/\1/p' "$d/workload.out" 2>/dev/null | head -1)
	q() { "$FT" query "$db" --format csv sql "$1" | tail -n +2; }
	comm=$(q "SELECT group_concat(comm, ' ') FROM (SELECT DISTINCT comm FROM process
		   WHERE pid = ${pid:-0} AND anon_faults > 0)")
	arch=$(q "SELECT arch || ' ' || partial FROM trace")
	# (a workload that re-executes itself through /proc/self/exe is "exe" afterwards, as
	# in the kernel; its first image still carries its own name)
	case " $comm /$arch" in
	*" $wl "*"/x86_64 0" | *" $wl "*"/arm64 0") good=0 ;;
	*) good=1 ;;
	esac
	ok $good "$name: pid ${pid:-?} of workload $wl faults under its name ($comm; header: $arch)"
done
done_testing
