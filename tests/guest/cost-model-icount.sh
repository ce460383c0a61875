#!/bin/sh
# Guest test: the cost model where it can be checked (issue 24 item 2). Under `--clock
# icount` a fault's latency_ns is the handler's instructions and repeats, so the model can
# be held to the issue's 10% on sums. Calibration: anon-touch 32M --fork recorded under
# order0, mcpage:2, mthp:32K, mthp:64K and thp (4K, 16K, 32K, 64K and PMD-mapped 2M folios,
# 16 of the last; then a child's COW of every page, of 4K folios under order0, of large
# ones under the others), then `foliotrace calibrate`. Held out: pf-loop --size 2M --loops 4, malloc-churn
# --size 16M --loops 1, fork-cow --size 4M and sparse --size 64M --touches 1024, recorded
# one after another in one guest under order0,
# and replayed in one guest per knob policy (--clock icount): order0, mcpage:2, mcpage:4,
# mthp:16K, mthp:32K, mthp:64K and thp. Asserted: the model's key says icount and it fits
# its PTE, large-folio, large-COW, refill and buddy terms; its cost of each calibration shape is within 10% of the
# mean latency of that shape's faults, computed here by awk over `query faults` (the fit's
# own weighted least squares is not redone); and for each held-out workload (its processes
# by name, --comm; malloc-churn, which re-executes itself, by the pid it prints) `compare --sim-vs-real` puts the predicted fault_time_ns within 10% of
# the sum the guest measured, for each policy. The measured side is the guests' own
# latencies; the model never sees them. bench/cost-model-icount.sh does the same for every
# bundled workload. FT_TEST_ARCH=arm64 runs it on the arm64 guest, with 1 cpu as x86_64
# (which runs 1 under icount anyway): with two vCPUs QEMU's icount clock also counts the
# other vCPU's instructions when it switches to it in the middle of a fault, and the
# guest's own COW faults, which set cow_ns, then average 2215 to 37091 per process instead
# of 1440-1472 each (docs/cost-model.md, "Under icount").
. "$(dirname "$0")/../test-lib.sh"
. "$(dirname "$0")/guest-lib.inc"

POLICIES="order0 mcpage:2 mcpage:4 mthp:16K mthp:32K mthp:64K thp"
WORKLOADS="pf-loop malloc-churn fork-cow sparse"
SCRIPT="pf-loop --size 2M --loops 4 && malloc-churn --size 16M --loops 1 &&
fork-cow --size 4M && sparse --size 64M --touches 1024"
SCRIPT=$(echo "$SCRIPT" | tr '\n' ' ')
CPUS="--cpus 1"
NPOL=$(echo $POLICIES | wc -w)
NWL=$(echo $WORKLOADS | wc -w)
# 5 calibration recordings, the held-out one, calibrate, key, shapes, guest replay, clocks,
# then per workload its compare and one check per policy
plan $((5 + 1 + 4 + 1 + NWL * (1 + NPOL)))
CAL=""
for p in order0 mcpage:2 mthp:32K mthp:64K thp; do
	db=$T/cal-$(echo "$p" | tr -d :).db
	s=$(date +%s)
	# shellcheck disable=SC2086 # two words
	"$FT" record --arch "$ARCH" $CPUS --clock icount --policy "$p" -o "$db" -- anon-touch 32M \
		--fork > "$db.out" 2> "$db.err"
	ok $? "record anon-touch 32M --fork under $p, --clock icount ($ARCH, $(( $(date +%s) - s )) s)"
	[ -s "$db.err" ] && sed 's/^/#   /' "$db.err" | tail -3
	CAL="$CAL $db"
done
DB=$T/ho.db
s=$(date +%s)
# shellcheck disable=SC2086
"$FT" record --arch "$ARCH" $CPUS --clock icount -o "$DB" -- sh -c "$SCRIPT" > "$DB.out" \
	2> "$DB.err"
ok $? "record the held-out $(echo $WORKLOADS | tr ' ' ',') in one guest under order0, --clock icount ($(( $(date +%s) - s )) s)"

# shellcheck disable=SC2086 # the list of databases is split on purpose
"$FT" calibrate -o "$DB" $CAL > "$T/cal.out" 2>&1
ok $? "calibrate from the 5 anon-touch recordings into the held-out database"
sed 's/^/#   /' "$T/cal.out"
sql() { sql_rows "$DB" "$1"; }
check "the model is keyed by the icount clock and fits a PTE, a large-folio, a large-COW, a refill and a buddy cost" test \
	"$(sql "SELECT clock || ' ' || (pte_ns > 0) || ' ' || (large_ns > 0) || ' ' || (cow_large_ns IS NOT NULL) || ' ' || (refill_ns >= 0 AND refill_block_ns > 0) || ' ' || (buddy_ns > 0) FROM cost_model")" = "icount 1 1 1 1 1"

# each calibration shape (all traces pooled, as the fit pools them): the mean latency of its
# new-folio faults (not the zero page), against the model's new_ns + byte_ns * bytes +
# pte_ns * ptes [+ large_ns for a folio of order 2 and up] [+ buddy_ns for one of order 4
# to 8] [+ refill_ns + refill_block_ns
# * 63 (4K) or 15 (16K) for each of the faults' per-cpu list refills, as many as
# bench/pcp-refills.py's model of the lists counts over the calibration traces, spread
# over them]
coef=$(sql "SELECT new_ns || ' ' || byte_ns || ' ' || pte_ns || ' ' || large_ns || ' ' || refill_ns || ' ' || refill_block_ns || ' ' || buddy_ns FROM cost_model")
r0=0 r2=0
for db in $CAL; do
	tot=$(python3 "$TOP/bench/pcp-refills.py" --totals "$db".ctf/*/trace)
	n=$(echo "$tot" | sed -n 's/^new=\([0-9]*\) .*/\1/p')
	r0=$((r0 + ${n:-0}))
	n=$(echo "$tot" | sed -n 's/.* new2=\([0-9]*\) .*/\1/p')
	r2=$((r2 + ${n:-0}))
done
diag "the calibration's 4K faults refilled their per-cpu list $r0 times, its 16K ones $r2 (bench/pcp-refills.py)"
for db in $CAL; do "$FT" query "$db" faults --format csv; done | awk -F, -v c="$coef" -v ps=4096 \
	-v r0="$r0" -v r2="$r2" '
	BEGIN { split(c, k, " ") }
	$1 != "ts" && $8 == 0 { key = $6 " " $7; n[key]++; s[key] += $10 }
	END {
		for (key in n) {
			if (n[key] < 16) continue
			split(key, f, " ")
			m = k[1] + k[2] * ps * 2 ^ f[1] + k[3] * f[2] + (f[1] >= 2 ? k[4] : 0)
			if (f[1] >= 4 && f[1] < 9)
				m += k[7]
			# the refills, spread over the 4K and the 16K faults
			if (f[1] == 0 && f[2] == 1)
				m += (k[5] + 63 * k[6]) * r0 / n[key]
			if (f[1] == 2 && f[2] == 4)
				m += (k[5] + 15 * k[6]) * r2 / n[key]
			e = (m - s[key] / n[key]) / (s[key] / n[key]) * 100
			printf "order %d ptes %d: %d faults, mean %.0f ns, model %.0f ns (%+.1f%%)%s\n",
				f[1], f[2], n[key], s[key] / n[key], m, e, (e > 10 || e < -10) ? " BAD" : ""
		}
	}' > "$T/shapes"
sed 's/^/# /' "$T/shapes"
ok $([ "$(wc -l < "$T/shapes")" = 5 ] && ! grep -q BAD "$T/shapes"; echo $?) \
	"the model's cost of each of the 5 calibration shapes within 10% of its faults' mean"

PARGS=$(for p in $POLICIES; do printf -- '--policy %s ' "$p"; done)
s=$(date +%s)
# shellcheck disable=SC2086 # the policy options are split on purpose
"$FT" guest replay "$DB" --arch "$ARCH" $CPUS --clock icount $PARGS > "$T/replay.out" \
	2> "$T/replay.err"
rc=$?
ok $rc "guest replay under $(echo $POLICIES | tr ' ' ','), --clock icount ($(( $(date +%s) - s )) s)"
[ $rc = 0 ] || sed 's/^/#   /' "$T/replay.err" | tail -12
check "the $NPOL guest traces were recorded on the icount clock" test \
	"$(sql "SELECT count(*) FROM trace WHERE parent_trace_id = 1 AND clock = 'icount'")" = "$NPOL"
churn=$(sed -n 's/^RESULT malloc-churn pid=\([0-9]*\).*/\1/p' "$DB".ctf/*-sh/workload.out |
	head -n 1)
for w in $WORKLOADS; do
	sel="--comm $w"
	[ "$w" = malloc-churn ] && sel="--pid ${churn:-0}"
	# the simulations of this selection, with the model (compare only reads)
	# shellcheck disable=SC2086
	"$FT" replay "$DB" $sel $PARGS > /dev/null
	# shellcheck disable=SC2086
	"$FT" compare "$DB" --sim-vs-real $sel --format csv > "$T/$w.csv" 2> "$T/$w.err"
	ok $? "$w: compare --sim-vs-real $sel"
	for p in $POLICIES; do
		line=$(grep "^$p,fault_time_ns," "$T/$w.csv")
		sim=$(echo "$line" | cut -d, -f3)
		real=$(echo "$line" | cut -d, -f4)
		err=$(echo "$line" | cut -d, -f5)
		diag "$w $p: policy,metric,sim,real,error_pct,kind = $line"
		# error_pct = (real - sim) / sim, as compare prints it. order0's sums were 7-10%
		# below the prediction here before refill_ns (the per-cpu list refills the
		# streaming calibration pays, 1 fault in 63, and these workloads mostly do not)
		# and this check allowed 11% on that side; now each refill the engines count is
		# priced (docs/cost-model.md, "Per-cpu list refills"), and the goal's 10% holds
		# both ways
		ok $([ -n "$sim" ] && [ "${real:-0}" -gt 0 ] &&
			awk -v e="$err" 'BEGIN { exit !(e != "" && e <= 10 && e >= -10) }'; echo $?) \
			"$w $p: predicted fault_time_ns within 10% of the guest's measured sum (${sim:-?} against ${real:-?} ns, ${err:-?}%)"
	done
done
done_testing
