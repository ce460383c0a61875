#!/bin/sh
# Guest test: the cost model against real guests (issue 15). Calibrate from anon-touch 4M
# recorded under order0 and mcpage:2 in this guest, then record pf-loop --size 2M --loops 4
# (held out) under order0, replay it in two guests (order0, mthp:16K) and set the predicted
# fault_time_ns against the guest's measured sum of latency_ns (compare --sim-vs-real).
# All recorded afresh (the REAL fixtures of tests/data were the same commands): TCG's time
# per fault follows the kernel build as well as the host, and the fixtures' model, from a
# kernel built before patch 0007, put the 6.1 arm64 guest's order-2 faults at 3.3 and 3.6
# times its cost in two runs, while icount counted the same instructions in both kernels
# give or take the patch's 48 (and the fixtures predate the header's accel, so a model
# of fresh recordings has another key than theirs).
# The sums are printed, not asserted: under TCG one guest's total moves by up to 19x from
# one run to the next (arm64 mthp:16K: 8.9, 114.7 and 6.1 ms in three guests;
# docs/cost-model.md), so the issue's 10% is not met and no bound on them holds. What is
# asserted is what the model is: the typical fault. The median latency of the guest's
# new-folio faults of the policy's order (0, 2) within a factor 3 of the model's cost of
# such a fault (new_ns + byte_ns * bytes; model / median measured 0.73 to 1.39). Also:
# the guest traces record their accelerator in the header.
# FT_TEST_ARCH=arm64 runs it on the arm64 guest.
. "$(dirname "$0")/../test-lib.sh"
. "$(dirname "$0")/guest-lib.inc"

POLICIES="order0 mthp:16K"
plan 8
DB=$T/ho.db
for p in order0 mcpage:2; do
	"$FT" record --arch "$ARCH" --policy $p -o "$T/cal.db" -- anon-touch 4M \
		> "$T/cal-rec.out" 2>&1 || sed 's/^/#   /' "$T/cal-rec.out" | tail -5
done
"$FT" record --arch "$ARCH" -o "$DB" -- pf-loop --size 2M --loops 4 > "$T/ho-rec.out" 2>&1 ||
	sed 's/^/#   /' "$T/ho-rec.out" | tail -5
"$FT" calibrate -o "$DB" "$T/cal.db" > "$T/cal.out" 2>&1
ok $? "calibrated from $ARCH anon-touch 4M recorded under order0 + mcpage:2 into the held-out pf-loop recording's database"

"$FT" guest replay "$DB" --arch "$ARCH" --policy order0 --policy mthp:16K \
	> "$T/replay.out" 2> "$T/replay.err"
rc=$?
ok $rc "guest replay of pf-loop under $(echo $POLICIES | tr ' ' ',') ($ARCH)"
[ $rc = 0 ] || sed 's/^/#   /' "$T/replay.err" | tail -12
sql() { "$FT" query "$DB" --format csv sql "$1" | tail -n +2; }
acc=$(sql "SELECT group_concat(DISTINCT m.value) FROM trace t JOIN trace_meta m ON
	m.trace_id = t.trace_id AND m.key = 'accel' WHERE t.parent_trace_id = 1")
check "the guest traces record their accelerator (got '$acc')" \
	sh -c "[ '$acc' = tcg ] || [ '$acc' = kvm ]"

"$FT" compare "$DB" --sim-vs-real --format csv > "$T/svr.csv" 2> "$T/svr.err"
ok $? "compare --sim-vs-real"
for p in $POLICIES; do
	line=$(grep "^$p,fault_time_ns," "$T/svr.csv")
	diag "$p: policy,metric,sim,real,error_pct,kind = $line"
	sim=$(echo "$line" | cut -d, -f3)
	real=$(echo "$line" | cut -d, -f4)
	check "$p: fault_time_ns has a prediction and a measurement" \
		sh -c "[ -n '$sim' ] && [ -n '$real' ] && [ '$real' -gt 0 ]"
	case $p in order0) k=0 ;; mthp:16K) k=2 ;; esac
	g=$(sql "SELECT trace_id FROM trace WHERE parent_trace_id = 1 AND policy = '$p'")
	med=$("$FT" query "$DB" --trace "$g" latency --format csv |
		awk -F, -v k=$k '$1 == k && $2 == 0 { print $4 }')
	model=$(sql "SELECT new_ns + byte_ns * (4096 << $k) FROM cost_model")
	diag "$p: guest trace $g, median order-$k fault $med ns, model $model ns"
	check "$p: median order-$k fault in the guest within a factor 3 of the model's cost" \
		awk -v m="$med" -v c="$model" 'BEGIN { exit !(m > 0 && c / m > 1 / 3 && c / m < 3) }'
done
done_testing
