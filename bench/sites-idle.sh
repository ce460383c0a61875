#!/bin/sh
# bench/sites-idle.sh - does a guest whose idle vCPUs poll (FT_IDLE_POLL=1, docs/guest.md)
# make `record --sites` cheaper? Records a workload plain and with --sites, each in a guest
# whose idle vCPUs halt and in one whose idle vCPUs poll, interleaved, ROUNDS times, and
# prints per configuration the fastest guest time of the workload (first to last event of
# its processes, as bench/sites-overhead.sh) and all of them (docs/sites.md, "Cost").
#
#   sh bench/sites-idle.sh [ROUNDS] [WORKLOAD_COMMAND]
#	default: 4 "malloc-churn --size 32M --loops 2"
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
FT=$TOP/build/foliotrace
ROUNDS=${1:-4}
CMD=${2:-malloc-churn --size 32M --loops 2}
make -s -C "$TOP" >&2
D=$(mktemp -d "${TMPDIR:-/tmp}/sites-idle.XXXXXX")
trap 'rm -rf "$D"' EXIT
echo "bench/sites-idle.sh: $CMD, $(nproc) cpus, load average $(cut -d' ' -f1-3 /proc/loadavg)"
for i in $(seq "$ROUNDS"); do
	for cfg in "plain 0" "plain 1" "sites 0" "sites 1"; do
		set -- $cfg
		rm -rf "$D/r.db" "$D/r.db.ctf"
		# shellcheck disable=SC2086 # the workload command is split on purpose
		FT_IDLE_POLL=$2 "$FT" record $([ "$1" = sites ] && echo --sites) -o "$D/r.db" -- \
			$CMD > /dev/null 2> "$D/err" || { cat "$D/err" >&2; exit 1; }
		echo "$1 idle=$([ "$2" = 1 ] && echo poll || echo halt)" \
			"$("$FT" query "$D/r.db" --format csv sql "SELECT max(last_ts) - min(first_ts)
				FROM process WHERE workload = 1" | tail -n 1)"
	done
done | awk '{ k = $1 " " $2; ms = $3 / 1e6
	if (!(k in best) || ms < best[k]) best[k] = ms
	all[k] = all[k] sprintf(" %.0f", ms) }
	END { for (k in best) printf "IDLE %s fastest_ms=%.0f all_ms=%s\n", k, best[k], all[k] }' |
	sort
