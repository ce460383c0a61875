#!/bin/sh
# bench/table-cost.sh - what a fault's page tables cost, read off recorded traces
# (docs/cost-model.md, "Page tables"): each new-folio fault labelled as calibrate labels it
# (replay/cost.c follow_tables(), without zaps and forks: the calibration's anon-touch has
# none before it exits) with the page tables it allocated: 0; 1, its 2M range's PTE table
# (the process's first fault there); 2, also its 1G range's PMD table (its first there).
# Per folio size: the faults of each label, their mean and median latency, and the
# differences of labels 1 and 2 against 0.
#
#   sh bench/table-cost.sh [--comm NAME] DB...   e.g. the DIR of bench/cost-model-icount.sh:
#   sh bench/table-cost.sh DIR/arm64-cal-anon-touch-*.db
#   sh bench/table-cost.sh --comm sparse DIR/arm64-workloads.db
#
# --comm: only the faults of the processes of that name.
# One line per size: bytes, then for labels 0, 1, 2: n, mean, median; then
# mean_diff_1 median_diff_1 mean_diff_2 median_diff_2 (label against 0, ns).
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
FT=${FT:-$TOP/build/foliotrace}
comm=
if [ "${1:-}" = --comm ]; then
	comm=$2
	shift 2
fi
[ $# -gt 0 ] || { echo "usage: sh bench/table-cost.sh [--comm NAME] DB..." >&2; exit 2; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
i=0
for db in "$@"; do
	i=$((i + 1))
	"$FT" query "$db" faults --format csv | sed "s/^/$i,/" >> "$T/faults.csv"
	"$FT" query "$db" --format csv sql "SELECT proc_id, comm FROM process" |
		sed "s/^/$i,/" >> "$T/procs.csv"
done
python3 - "$T/faults.csv" "$T/procs.csv" "$comm" <<'PY'
import csv, statistics as st, sys
want = {(r[0], r[1]) for r in csv.reader(open(sys.argv[2])) if r[2] == sys.argv[3]}
seen, seen1g, g = set(), set(), {}
for r in csv.reader(open(sys.argv[1])):
    # db,ts,pid,tid,address,write,order,nr_ptes,zero_page,fallback,latency_ns,proc_id,vma_id
    if r[1] == "ts" or r[8] != "0" or r[7] == "0":
        continue
    if sys.argv[3] and (r[0], r[11]) not in want:
        continue
    a = int(r[4], 16)
    key, up = (r[0], r[11], a >> 21), (r[0], r[11], a >> 30)
    lab = 0 if key in seen else 1 if up in seen1g else 2
    seen.add(key)
    seen1g.add(up)
    g.setdefault((4096 << int(r[6]), lab), []).append(int(r[10]))
for size in sorted({k[0] for k in g}):
    out, base = [str(size)], g.get((size, 0))
    for lab in (0, 1, 2):
        v = g.get((size, lab), [])
        out += [str(len(v)), "%.0f" % st.mean(v) if v else "-", "%.0f" % st.median(v) if v else "-"]
    for lab in (1, 2):
        v = g.get((size, lab))
        if v and base:
            out += ["%.0f" % (st.mean(v) - st.mean(base)), "%.0f" % (st.median(v) - st.median(base))]
        else:
            out += ["-", "-"]
    print(" ".join(out))
PY
