#!/bin/sh
# bench/cold-gap.sh - the recorded gap between two faults of a process that reads B bytes
# between them (anon-touch 8M --between B), on a guest clock: what the cold rule's gap
# (replay/replay.h RP_COLD_GAP_NS, RP_COLD_GAP_ICOUNT; docs/cost-model.md "Cold faults")
# is read off. Per B one line: the workload's faults and the median, 10th and 90th
# percentile of (a fault's start - its process's previous fault's end), in the clock's
# units (ns; instructions on icount).
#
#   sh bench/cold-gap.sh [-c tcg|icount] [-d DIR] [B ...]     (default B: 0 256K 1M 2M)
#
# DIR (default: a temporary one, removed) keeps the recordings, DIR/at-CLOCK-B.db.
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
FT=$TOP/build/foliotrace
CLOCK=icount
DIR=
me=bench/cold-gap.sh
usage() { echo "usage: sh $me [-c tcg|icount] [-d DIR] [B ...]" >&2; exit 2; }
while getopts c:d: o; do
	case $o in
	c) CLOCK=$OPTARG ;;
	d) DIR=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
case $CLOCK in tcg | icount) ;; *) usage ;; esac
[ $# -gt 0 ] || set -- 0 256K 1M 2M
make -s -C "$TOP" >&2
if [ -z "$DIR" ]; then
	DIR=$(mktemp -d)
	trap 'rm -rf "$DIR"' EXIT
fi
mkdir -p "$DIR"
for b in "$@"; do
	db=$DIR/at-$CLOCK-$b.db
	if [ "$b" = 0 ]; then set -- ; else set -- --between "$b"; fi
	[ -s "$db" ] || "$FT" record --clock "$CLOCK" --quiet -o "$db" -- anon-touch 8M "$@" ||
		{ echo "$me: recording anon-touch 8M $* failed" >&2; exit 1; }
	"$FT" query "$db" faults --format csv | python3 -c '
import csv, sys
by = {}
for r in csv.DictReader(sys.stdin):
    by.setdefault(r["proc_id"], []).append((int(r["ts"]), int(r["latency_ns"])))
faults = max(by.values(), key=len)	# anon-touch: the process with the most faults
gaps = sorted(ts - lat - prev for (prev, _), (ts, lat) in zip(faults, faults[1:]))
pct = lambda q: gaps[min(len(gaps) - 1, int(q * len(gaps)))]
print("between=%s clock=%s faults=%d gap_median=%d gap_p10=%d gap_p90=%d" %
      (sys.argv[1], sys.argv[2], len(faults), pct(0.5), pct(0.1), pct(0.9)))' "$b" "$CLOCK"
done
