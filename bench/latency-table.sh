#!/bin/sh
# latency-table.sh - the mcpage RFC's fault latency table, fragmented and not, by one
# command (docs/latency.md): record WORKLOAD once in a guest under order0, guest-replay the
# recording under each policy with the guest's memory as it boots and again after
# `--fragment SPEC`, then print `foliotrace compare DB --latency`: per policy and
# condition, fault latency p50/p90/p95/p99/max and alloc_failed fallbacks per order.
#
# Then, per condition, the fault time: the sum of the measured latencies, the typical
# part (sum over orders of faults x p50), and the model's prediction (docs/cost-model.md:
# calibrated on tests/data/ARCH-anon-touch-{order0,mcpage2}, replayed over the recording,
# in a copy of the database), each against order0 of the same condition; and the
# alloc_failed fallbacks of each fragmented guest against `replay --frag buddyinfo` of it.
#
# Usage: bench/latency-table.sh [--arch A] [--mem SIZE] [--fragment SPEC]
#                               [--policies "P1 P2 ..."] [-o DB] [--] WORKLOAD [ARG...]
#        bench/latency-table.sh --print DB      (the tables of a database made so)
#   default: the host's arch, --mem 512M, --fragment order:1,pct:50,seed:7 (no free block
#   above 8K, so 16K, 64K and 2M allocations all meet it; pct 50, not more: under thp the
#   kernel raises min_free_kbytes to 25M, and the fragmenter's reserve, 3 x that + 8M, is
#   then 30% of a 512M guest's free memory), policies order0 mcpage:2 mcpage:4 thp (the
#   RFC's 4K, 16K and 2M rows, and 64K for the seeds' -42%); without -o the database is
#   made in a temporary directory and removed. Every guest runs under run.sh's timeout
#   (--timeout 600 here).
# Example: bench/latency-table.sh --arch arm64 -o lat-arm64.db anon-touch 64M
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
FT=${FT:-$TOP/build/foliotrace}
arch=$(uname -m)
[ "$arch" = aarch64 ] && arch=arm64
mem=512M
spec=order:1,pct:50,seed:7
policies="order0 mcpage:2 mcpage:4 thp"
db=
print=
usage() {
	echo "usage: bench/latency-table.sh [--arch A] [--mem SIZE] [--fragment SPEC]" \
		"[--policies LIST] [-o DB] [--] WORKLOAD [ARG...]" >&2
	exit 2
}
while [ $# -gt 0 ]; do
	case $1 in
	--arch) [ $# -ge 2 ] || usage; arch=$2; shift 2 ;;
	--mem) [ $# -ge 2 ] || usage; mem=$2; shift 2 ;;
	--fragment) [ $# -ge 2 ] || usage; spec=$2; shift 2 ;;
	--policies) [ $# -ge 2 ] || usage; policies=$2; shift 2 ;;
	-o) [ $# -ge 2 ] || usage; db=$2; shift 2 ;;
	--print) [ $# -eq 2 ] || usage; print=$2; shift 2 ;;
	--) shift; break ;;
	-*) usage ;;
	*) break ;;
	esac
done
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# tables DB: compare --latency, then fault time per condition against order0
tables() {
	"$FT" compare "$1" --latency || exit 1
	a=$("$FT" query "$1" --trace 1 --format csv sql "SELECT arch FROM trace WHERE trace_id = 1" |
		tail -1)
	cp "$1" "$T/pred.db"
	for p in order0 mcpage2; do
		"$FT" ingest -q -o "$T/cal.db" "$TOP/tests/data/$a-anon-touch-$p" || exit 1
	done
	# the fixtures were recorded under TCG before the runner wrote `accel` into the header
	# (docs/cost-model.md): key their model as the recording's, tcg
	python3 -c 'import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.execute("INSERT INTO trace_meta SELECT trace_id, '"'accel'"', '"'tcg'"' FROM trace")
c.commit()' "$T/cal.db" || exit 1
	"$FT" calibrate -o "$T/pred.db" "$T/cal.db" > /dev/null || exit 1
	pols=$("$FT" query "$1" --format csv sql "SELECT DISTINCT policy FROM replay_run WHERE \
kind = 'guest' ORDER BY run_id" | tail -n +2 | tr -d '"' | sed 's/^/--policy /' | tr '\n' ' ')
	# shellcheck disable=SC2086 # pols is a list of words
	"$FT" replay "$T/pred.db" --trace 1 -q --dry-run $pols --format json > "$T/pred.json" ||
		exit 1
	"$FT" compare "$1" --latency --format json | python3 -c '
import json, sys
rows = json.load(sys.stdin)
pred = {r["policy"]: r["metrics"]["fault_time_ns"] for r in json.load(open(sys.argv[1]))["runs"]}
cond = {}
for r in rows:
    c = cond.setdefault((r["arch"], r["fragment"], r["source"], r["policy"]), [0, 0, 0])
    if r["faults"]:
        c[0] += r["faults"]; c[1] += r["faults"] * r["mean_ns"]; c[2] += r["faults"] * r["p50_ns"]
def vs(v, b):
    return "%+.1f%%" % ((v / b - 1) * 100) if b else "-"
print("\nfault time per condition: sum = sum of latency_ns; typical = sum of faults x p50 per "
      "order; predicted = the cost model over the recording (frag none); vs = against order0 "
      "of the same condition\n")
f = "%-7s %-22s %-12s %-9s %7s %10s %8s %11s %8s %12s %8s"
print(f % ("arch", "fragment", "source", "policy", "faults", "sum_us", "vs", "typical_us",
           "vs", "predicted_us", "vs"))
for (a, fr, src, p), (n, s, t) in cond.items():
    b = cond.get((a, fr, src, "order0"), [0, 0, 0])
    if src == "record":
        continue
    pr = pred.get(p, 0) if fr == "none" else 0
    pb = pred.get("order0", 0)
    print(f % (a, fr, src, p, n, round(s / 1e3), vs(s, b[1]), round(t / 1e3), vs(t, b[2]),
               round(pr / 1e3) if pr else "-", vs(pr, pb) if pr else "-"))
' "$T/pred.json"
	# the buddyinfo allocation model against the fragmented guests: each fragmented guest
	# trace simulated under its policy with replay --frag buddyinfo, seeded from its own
	# header buddyinfo.fragmented, compacting orders 1-3 from its vmstat.before's LRU
	# pages (the simulation covers the whole guest trace, the replayer's few own faults
	# included)
	"$FT" compare "$1" --latency --format json | python3 -c '
import json, sqlite3, subprocess, sys
ft, db = sys.argv[1:3]
meas = {}
for r in json.load(sys.stdin):
    k = (r["fragment"], r["policy"])
    meas[k] = meas.get(k, 0) + r["fallback_alloc_failed"]
c = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
q = ("SELECT r.guest_trace_id, r.policy, m.value, t.arch FROM replay_run r JOIN trace t ON "
     "t.trace_id = r.guest_trace_id JOIN trace_meta m ON m.trace_id = r.guest_trace_id AND "
     "m.key = \"fragment\" WHERE r.kind = \"guest\" ORDER BY r.run_id")
print("\nalloc_failed fallbacks of the fragmented guest replays: measured, and simulated by "
      "replay --frag buddyinfo over the guest trace\n")
f = "%-7s %-22s %-9s %9s %9s %8s"
print(f % ("arch", "fragment", "policy", "measured", "simulated", "error"))
for gid, pol, frag, arch in c.execute(q):
    out = subprocess.run([ft, "replay", db, "--trace", str(gid), "--policy", pol, "--frag",
                          "buddyinfo", "--dry-run", "-q", "--format", "json"],
                         capture_output=True, text=True, check=True).stdout
    sim = [r for r in json.loads(out)["runs"] if r["policy"] == pol][0]["metrics"]
    sim = sim["fallback_alloc_failed"]
    m = meas.get((frag, pol), 0)
    err = "%+.1f%%" % ((sim / m - 1) * 100) if m else ("0" if not sim else "-")
    print(f % (arch, frag, pol, m, sim, err))
' "$FT" "$1"
}
if [ -n "$print" ]; then
	tables "$print"
	exit 0
fi
[ $# -ge 1 ] || usage
if [ -z "$db" ]; then
	db=$T/latency.db
elif [ -e "$db" ]; then
	echo "latency-table.sh: $db exists; give a new path" >&2
	exit 1
fi
pflags=
for p in $policies; do
	pflags="$pflags --policy $p"
done
start=$(date +%s)
echo "# $arch, $mem: record $* under order0" >&2
"$FT" record --arch "$arch" --mem "$mem" --timeout 600 -o "$db" -- "$@" > "$T/log" 2>&1 ||
	{ tail -5 "$T/log" >&2; exit 1; }
echo "# guest replays, unfragmented:$pflags" >&2
# shellcheck disable=SC2086 # pflags is a list of words
"$FT" guest replay "$db" $pflags --mem "$mem" --timeout 600 > "$T/log" 2>&1 ||
	{ tail -5 "$T/log" >&2; exit 1; }
echo "# guest replays, --fragment $spec:$pflags" >&2
# shellcheck disable=SC2086
"$FT" guest replay "$db" $pflags --mem "$mem" --timeout 600 --fragment "$spec" \
	> "$T/log" 2>&1 || { tail -5 "$T/log" >&2; exit 1; }
echo "# runs took $(( $(date +%s) - start )) s" >&2
tables "$db"
