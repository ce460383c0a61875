#!/bin/sh
# replay-bystanders.sh - a --comm selection's neighbours in the workload are replayed under
# the policy, uncounted (replay/run.c keep; load.h rp_proc_info.workload), as a guest
# replay of the workload replays them: so two selections that split a workload add up to
# the whole workload's replay, metric by metric. A SYNTHETIC stream (tests/cli/synth-db.c:
# "make" and six "cc1" processes) with its processes marked as the workload, under
# mthp:16K, where make's 16K folios on the order-2 list change what cc1's refills take.
# Without the marks the selection follows make as recorded (4K folios): the blocks differ.
. "$(dirname "$0")/../test-lib.sh"

plan 9
SYNTH=$BUILD/testprogs/synth-db	# built by make from tests/cli/synth-db.c
"$SYNTH" "$T/plain.db" kbuild-like 1 20000 > /dev/null
cp "$T/plain.db" "$T/marked.db"
sqlite3 "$T/marked.db" "UPDATE process SET workload = 1"
# metrics DB [SELECTION]: the mthp:16K run's metrics, "name=value" lines
metrics() {
	db=$1
	shift
	"$FT" replay "$db" -P mthp:16K "$@" -n -q --format json 2> /dev/null | python3 -c '
import json, sys
for r in json.load(sys.stdin)["runs"]:
    if r["policy"] == "mthp:16K":
        for k in ("faults", "pcp_refills", "pcp_refill_blocks", "alloc_order_0",
                  "alloc_order_2", "zeroed_bytes", "cold_faults"):
            print("%s=%s" % (k, r["metrics"][k]))'
}
# adds DB: "name whole parts" for each metric: the whole replay's and the sum of --comm
# cc1's and --comm make's
adds() {
	metrics "$1" > "$T/whole"
	metrics "$1" --comm cc1 > "$T/cc1"
	metrics "$1" --comm make > "$T/make"
	paste -d= "$T/whole" "$T/cc1" "$T/make" |
		awk -F= '{ print $1, $2, $4 + $6 }'
}
adds "$T/marked.db" > "$T/marked"
check "the marked workload's replay has 16K folios" \
	awk '$1 == "alloc_order_2" && $2 > 0 { f = 1 } END { exit !f }' "$T/marked"
while read -r name whole parts; do
	check "marked: cc1 + make = the workload's $name ($parts, $whole)" test "$parts" = "$whole"
done < "$T/marked"
adds "$T/plain.db" > "$T/plain"
check "unmarked: make followed as recorded, pcp_refill_blocks do not add up" \
	awk '$1 == "pcp_refill_blocks" && $2 != $3 { f = 1 } END { exit !f }' "$T/plain"
