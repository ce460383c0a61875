#!/bin/sh
# bench/host-footprint.sh - what a fault removed saves on this host's kernel, by the size of
# the process (docs/cost-model.md, "The footprint"): `foliotrace calibrate --host -v` runs
# anon-touch natively at each footprint under 4K and under 16K, 32K and 64K mTHP (its
# settings interleaved, median of RUNS each, kernel time sampled in a cgroup of its own,
# knobs restored on every exit: vm/host-calibrate.h), and per footprint and size the change
# of kernel time over the minor faults removed is the price of a fault removed there.
#
#   sh bench/host-footprint.sh [-n RUNS] [FOOTPRINTS]   (root; default -n 9 32M,64M,128M,256M)
#
# Per footprint one line
#	FOOTPRINT mib=16 ns_per_fault_4k=X ns_per_fault_removed=16K:X,32K:X,64K:X
# (ns_per_fault_4k: the 4K run's kernel time over its minor faults, exec and exit included),
# then the model calibrate fitted on all of them (MODEL lines), and last
#	price_ratio_64k_small_large=X
# the price of a fault removed at 64K at the smallest footprint over that at the largest.
# Runs of 16M and less are too short for the 4 kHz sampler (5-7 ms of kernel time: 20-30
# samples): their 16K price swung from 244 to 814 ns over five calibrations of 2026-12-05.
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
FT=$TOP/build/foliotrace
me=bench/host-footprint.sh
RUNS=9
die() { echo "$me: $*" >&2; exit 1; }
while getopts n: o; do
	case $o in
	n) RUNS=$OPTARG ;;
	*) echo "usage: sh $me [-n RUNS] [FOOTPRINTS]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
FP=${1:-32M,64M,128M,256M}
if [ "$(id -u)" != 0 ]; then
	echo "$me: skipped: calibrate --host needs root" >&2
	exit 77
fi
make -s -C "$TOP" >&2
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
echo "$me: $(uname -r), $(nproc) cpus, load average $(cut -d' ' -f1-3 /proc/loadavg)," \
	"$RUNS runs per setting"
"$FT" calibrate --host -v --sizes 16K,32K,64K --footprints "$FP" --runs "$RUNS" \
	-o "$W/model.db" > "$W/model" 2> "$W/err" || { cat "$W/err" >&2; die "calibrate --host failed"; }
# "calibrate --host: 16K anon-touch 64M: minflt 4155 sys 16.750 ms"
awk '$4 == "anon-touch" && $6 == "minflt" {
		kb = $3 + 0; m = $5 + 0; f[kb, m] = $7; t[kb, m] = $9; if (!(m in seen)) { seen[m]; ms[++n] = m }
	}
	END {
		for (i = 1; i <= n; i++) {
			m = ms[i]; line = ""
			for (kb = 16; kb <= 64; kb *= 2) {
				p = f[4, m] > f[kb, m] ? (t[4, m] - t[kb, m]) * 1e6 / (f[4, m] - f[kb, m]) : 0
				line = line sprintf("%s%dK:%.0f", (kb > 16 ? "," : ""), kb, p)
				if (kb == 64) p64[i] = p
			}
			printf "FOOTPRINT mib=%d ns_per_fault_4k=%.0f ns_per_fault_removed=%s\n", m,
				t[4, m] * 1e6 / f[4, m], line
		}
		# footprints in the order given; the smallest and the largest
		lo = hi = 1
		for (i = 2; i <= n; i++) { if (ms[i] < ms[lo]) lo = i; if (ms[i] > ms[hi]) hi = i }
		if (n < 2 || p64[hi] <= 0) exit 1
		r = p64[lo] / p64[hi]
		printf "RATIO %.3f\n", r
	}' "$W/err" > "$W/lines" || die "no price at 64K: $(cat "$W/err")"
grep '^FOOTPRINT' "$W/lines"
sed 's/^/MODEL /' "$W/model"
sed -n 's/^RATIO /price_ratio_64k_small_large=/p' "$W/lines"
