#!/bin/sh
# make demo: record the bundled workloads in an x86_64 guest, fit the fault cost model,
# replay them against the order policies of the seeds' threads, print the comparison, check the simulation of one
# workload against the same policies run in real guests, and write the HTML report (every
# workload: the workloads x policies tables, then a section per workload).
#   FT_DEMO_DIR   output directory (default build/demo); the database is $FT_DEMO_DIR/demo.db
#   FT_DEMO_ARCH  x86_64 (default) or arm64
#   FT_DEMO_CLOCK icount (default: guest time counted in instructions, which repeats, so the
#                 model's fault_time can be checked against the guest replays; x86_64 then
#                 runs 1 cpu) or tcg (the emulator's time, which does not repeat:
#                 docs/cost-model.md)
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
FT=$TOP/build/foliotrace
OUT=${FT_DEMO_DIR:-$TOP/build/demo}
ARCH=${FT_DEMO_ARCH:-x86_64}
CLOCK=${FT_DEMO_CLOCK:-icount}
DB=$OUT/demo.db
POLICIES="order0 mcpage:2 mcpage:4 mthp:16K,32K,64K thp"
start=$(date +%s)
step() { echo; echo "== $* ($(( $(date +%s) - start )) s)"; }

rm -rf "$OUT"
mkdir -p "$OUT"
if [ -z "${FT_GUEST_DIR:-}" ]; then
	step "building the $ARCH guest (cached after the first time)"
	"$FT" guest build --arch "$ARCH"
fi

# One guest boot per workload, each recorded under order0 so every first touch is seen.
while read -r name args; do
	[ -n "$name" ] || continue
	# kv-redis runs Debian's redis-server, which only the x86_64 guest has (it copies the
	# host's: docs/workloads.md)
	if [ "$name" = kv-redis ] && [ "$ARCH" != x86_64 ]; then
		step "skipping kv-redis: the $ARCH guest has no redis-server"
		continue
	fi
	step "recording $name $args"
	# shellcheck disable=SC2086
	"$FT" record --arch "$ARCH" --clock "$CLOCK" -o "$DB" -- $name $args
done <<WORKLOADS
anon-touch 64M
sparse --size 256M --touches 4096
pf-loop --size 16M --loops 8
malloc-churn --size 64M --loops 4
fork-cow --size 32M
kv-redis --requests 3000
WORKLOADS

# The cost model (docs/cost-model.md), so that compare's fault_time columns are filled:
# fitted on the order0 recordings above and one of anon-touch under mcpage:2 (a fit needs
# folios of more than one size), recorded in a database of its own so that it is not one
# of the demo's workloads; calibrate stores the model into the demo's database.
step "calibrating the cost model (one more recording: anon-touch 64M under mcpage:2)"
"$FT" record --arch "$ARCH" --clock "$CLOCK" --policy mcpage:2 -o "$OUT/calibrate.db" -- anon-touch 64M
"$FT" calibrate -o "$DB" "$DB" "$OUT/calibrate.db"

set --
for p in $POLICIES; do set -- "$@" --policy "$p"; done
for id in $("$FT" query "$DB" --format csv sql "SELECT trace_id FROM trace WHERE parent_trace_id IS NULL ORDER BY trace_id" | tail -n +2); do
	step "replaying trace $id: $(echo $POLICIES)"
	"$FT" replay "$DB" --trace "$id" "$@" > /dev/null
	"$FT" compare "$DB" --trace "$id" --baseline order0
done
step "checking the simulation in real guests: anon-touch under mcpage:2 and mcpage:4"
"$FT" guest replay "$DB" --trace 1 --arch "$ARCH" --policy mcpage:2 --policy mcpage:4
"$FT" compare "$DB" --trace 1 --sim-vs-real
step "writing $OUT/report.html"
"$FT" report "$DB" -o "$OUT/report.html"
step "done: database $DB, report $OUT/report.html"
