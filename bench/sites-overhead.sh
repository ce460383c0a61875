#!/bin/sh
# bench/sites-overhead.sh - what `record --sites` costs the workload: each workload recorded
# without and with the call-site tracer, one after the other in one run (docs/sites.md).
#
#   sh bench/sites-overhead.sh [--arch A] [WORKLOAD_COMMAND...]
#	default: "pf-loop --size 64M --loops 4" "malloc-churn --size 32M --loops 2"
#		 "kv-redis --requests 2000"
#
# Guest time of a run: from the first to the last event of the workload's own processes
# (process.workload = 1: the tree ft-launch started, without ft-sites and the guest's
# setup), on the trace clock. Per workload one line:
#	SITES workload="..." faults=N calls=N calls_per_100_faults=R plain_ns=N sites_ns=N ratio=R
# where calls are the traced mapping calls of the --sites run and ratio = sites_ns/plain_ns.
# The goal (issue 14): ratio <= 1.10 for every workload under 1 call per 100 faults.
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
FT=$TOP/build/foliotrace
ARCH=x86_64
if [ "${1:-}" = --arch ]; then
	ARCH=$2
	shift 2
fi
[ $# -gt 0 ] || set -- "pf-loop --size 64M --loops 4" "malloc-churn --size 32M --loops 2" \
	"kv-redis --requests 2000"
make -s -C "$TOP" >&2
D=$(mktemp -d "${TMPDIR:-/tmp}/sites-overhead.XXXXXX")
trap 'rm -rf "$D"' EXIT
echo "bench/sites-overhead.sh: $ARCH, $(nproc) cpus, load average" \
	"$(cut -d' ' -f1-3 /proc/loadavg) (the machine is shared: numbers move with the load)"

# value DB TRACE SQL: one number
value() {
	"$FT" query "$1" --format csv sql "$3" | tail -n 1
}
span() { # span DB TRACE: guest time of the workload's processes, ns
	value "$1" "$2" "SELECT max(last_ts) - min(first_ts) FROM process
		WHERE trace_id = $2 AND workload = 1"
}

for w in "$@"; do
	# shellcheck disable=SC2086 # the workload command is split on purpose
	"$FT" record --arch "$ARCH" -o "$D/plain.db" -- $w > /dev/null 2> "$D/err" ||
		{ cat "$D/err" >&2; exit 1; }
	# shellcheck disable=SC2086
	"$FT" record --arch "$ARCH" --sites -o "$D/sites.db" -- $w > /dev/null 2> "$D/err" ||
		{ cat "$D/err" >&2; exit 1; }
	pt=$(value "$D/plain.db" 0 "SELECT max(trace_id) FROM trace")
	st=$(value "$D/sites.db" 0 "SELECT max(trace_id) FROM trace")
	plain=$(span "$D/plain.db" "$pt")
	sites=$(span "$D/sites.db" "$st")
	faults=$(value "$D/sites.db" "$st" "SELECT sum(anon_faults) FROM process
		WHERE trace_id = $st AND workload = 1")
	calls=$(value "$D/sites.db" "$st" "SELECT count(*) FROM site_call
		WHERE trace_id = $st AND call <> 'none'")
	awk -v w="$w" -v f="$faults" -v c="$calls" -v p="$plain" -v s="$sites" 'BEGIN {
		printf "SITES workload=\"%s\" faults=%d calls=%d calls_per_100_faults=%.2f " \
		       "plain_ns=%.0f sites_ns=%.0f ratio=%.2f\n", w, f, c, f ? 100 * c / f : 0, p, s,
		       p ? s / p : 0 }'
done
