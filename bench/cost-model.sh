#!/bin/sh
# cost-model.sh - held-out check of the fault cost model (docs/cost-model.md) on the real
# fixtures of tests/data: per arch, calibrate on anon-touch under order0 and mcpage:2 (the
# two folio sizes the fit needs), then for every other fixture of that arch replay its
# recorded policy and print the predicted fault_time_ns beside the sum of the latency_ns of
# its recorded anon_fault records (the real fault time). `query faults` has no anon_zero_wp
# and anon_cow latencies, so both sides are of anon_fault records only: the prediction
# less the model's cost of the zero_wp and COW faults (counted in the last column).
# Usage: bench/cost-model.sh
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
FT=${FT:-$TOP/build/foliotrace}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
printf '%-8s %-28s %-8s %14s %14s %8s %s\n' arch fixture policy predicted_ns real_ns error \
	zero_wp+cow
for arch in x86_64 arm64; do
	"$FT" ingest -q -o "$T/cal-$arch.db" "$TOP/tests/data/$arch-anon-touch-order0"
	"$FT" ingest -q -o "$T/cal-$arch.db" "$TOP/tests/data/$arch-anon-touch-mcpage2"
	"$FT" calibrate -f csv "$T/cal-$arch.db" > "$T/coef-$arch.csv"
	for d in "$TOP"/tests/data/$arch-*; do
		n=$(basename "$d")
		case $n in *anon-touch-order0|*anon-touch-mcpage2) continue ;; esac
		db=$T/$n.db
		"$FT" ingest -q -o "$db" "$d"
		"$FT" calibrate -o "$db" "$T/cal-$arch.db" > /dev/null
		pol=$(cat "$d/header/policy")
		# coefficients: new_ns, byte_ns, pte_ns, zero_ns, zero_wp_ns, cow_ns (csv columns 4-9)
		pred=$("$FT" replay "$db" --policy "$pol" --format json |
			python3 -c 'import json, sys
m = json.load(sys.stdin)["runs"][-1]["metrics"]
c = [float(x) if x else None for x in open(sys.argv[1]).read().splitlines()[-1].split(",")[3:9]]
new4k = c[0] + c[1] * 4096 + (c[2] or 0)
t = m["fault_time_ns"] - m["zero_wp_faults"] * (c[4] or new4k) - m["cow_faults"] * (c[5] or new4k)
print(round(t))' "$T/coef-$arch.csv")
		real=$("$FT" query "$db" faults --format csv |
			awk -F, 'NR > 1 { s += $10 } END { printf "%d", s }')
		wpcow=$("$FT" query "$db" --format csv sql "SELECT sum(zero_wp + cow) FROM process" |
			tail -1)
		printf '%-8s %-28s %-8s %14s %14s %7.1f%% %s\n' "$arch" "$n" "$pol" "$pred" \
			"$real" "$(echo "$pred $real" | awk '{ print ($1 / $2 - 1) * 100 }')" "$wpcow"
	done
	echo "coefficients $arch: $(tail -1 "$T/coef-$arch.csv")"
done

# Predicted fault-time change of mthp:16K and mthp:64K against order0 on every order0
# fixture (the model of its arch, as above), for docs/benchmarks.md beside the seeds'
# kernel-time figures.
echo
printf '%-8s %-28s %14s %14s %14s %9s %9s\n' arch fixture order0_ns mthp16K_ns mthp64K_ns \
	16K 64K
for arch in x86_64 arm64; do
	for d in "$TOP"/tests/data/$arch-*-order0; do
		n=$(basename "$d")
		db=$T/red-$n.db
		"$FT" ingest -q -o "$db" "$d"
		"$FT" calibrate -o "$db" "$T/cal-$arch.db" > /dev/null
		"$FT" replay "$db" --policy mthp:16K --policy mthp:64K --format json |
			python3 -c 'import json,sys
r = [x["metrics"]["fault_time_ns"] for x in json.load(sys.stdin)["runs"]]
print(" ".join(str(v) for v in r), " ".join("%+.1f%%" % ((v / r[0] - 1) * 100) for v in r[1:]))' |
			{ read -r a b c p q; printf '%-8s %-28s %14s %14s %14s %9s %9s\n' "$arch" "$n" \
				"$a" "$b" "$c" "$p" "$q"; }
	done
done
