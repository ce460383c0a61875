#!/bin/sh
# Guest test: +shrinker and +limit against the 6.12 kernel's THP shrinker in a memory
# cgroup (issue 26 item 4; docs/policies.md "Checked against 6.12"). One workload,
#
#   anon-touch 32M --stride 64K --fill 61696K
#
# writes 32 of the 512 pages of each of 16 THPs (non-zero bytes), then every page of a
# 60.25M MADV_NOHUGEPAGE VMA (4K pages), is recorded in the 6.12 guest under order0 (THP
# never, no limit: the stream the simulator replays), then under
# thp+shrinker:max_ptes_none=409+limit:64M (THP always, khugepaged at its defaults, the
# workload in a cgroup with memory.max 64M): the kernel's counters (vmstat, the 2048kB
# per-size stats, the cgroup's memory.peak) against `replay` of the order0 trace under the
# same spec. The fill makes memory.max bind once the THPs are in; without swap the only
# anonymous memory reclaim can free is what the shrinker splits off, and the fill is sized
# so that every THP must be split for it to fit (15 splits leave 32 pages too many, 16
# leave the cgroup 448 pages of room for what is not the workload's anonymous memory),
# where the kernel and the model (a 4K charge's reclaim scans the whole deferred split
# list and splits every underused THP at once) end on the same count. The same spec at max_ptes_none=511: no underused split, so the
# kernel's cgroup OOM-kills the workload during the fill and the model counts the pages
# over the limit (oom). Last, --zeros under 409: the written pages hold zeros, which the
# kernel's thp_underused() reads as unused and frees with the rest; the trace (the same
# as without --zeros) cannot tell, so the model frees 32 pages a THP fewer: the effect is
# measured from the workload's own VmRSS (rss_kb) at its end.
#
# Then where the limit binds at a THP's fault: anon-touch 128M --stride 64K --fill 4K (64
# THPs of 32 written pages; the fill only prints rss_kb) under order0 and the 409 spec.
# The kernel maps THPs until the next one's charge fails (GFP_TRANSHUGE_LIGHT: no
# reclaim, thp_fault_fallback_charge), maps 4K pages in the ranges that follow until a 4K
# charge overflows, and that charge's reclaim splits every THP on the deferred list at
# once; the ranges after it get THPs again. THPs at the fault and splits within 10% of the
# simulator's, peak RSS within 2% of memory.peak. The charge fallbacks are the room left
# when the first THP's charge fails (less than a THP's 513 pages, so the remainder of the
# room modulo 513) over a fallback range's 33 pages: a few dozen pages of charge move them
# by a range. The model charges the anonymous pages and their page tables; the kernel's
# cgroup also holds each CPU's charge stock (0 to MEMCG_CHARGE_BATCH, 64 pages, per CPU,
# unknown at any instant) and the task's kernel memory. So the kernel's count must lie
# within 10% of the model's range over that stock: the replay at memory.max less 0, 8, ...
# 64 x CPUs pages.
FT_TEST_KERNEL=6.12
. "$(dirname "$0")/../test-lib.sh"
. "$(dirname "$0")/guest-lib.inc"

plan 25

WL="anon-touch 32M --stride 64K --fill 61696K"
WL128="anon-touch 128M --stride 64K --fill 4K"
S409="thp+shrinker:max_ptes_none=409+limit:64M"
S511="thp+shrinker+limit:64M"
LIMIT=67108864
# rec NAME SPEC ARGS...: record anon-touch ARGS under SPEC into $T/NAME.db; its status
rec() {
	_rn=$1 _rp=$2
	shift 2
	timeout 1500 "$FT" record --arch "$ARCH" --kernel 6.12 --policy "$_rp" -o "$T/$_rn.db" \
		-- "$@" > "$T/$_rn.out" 2> "$T/$_rn.err"
}
# meta DB KEY: a trace_meta value of DB's trace, as stored (several lines for a file)
meta() {
	python3 -c "import sqlite3, sys
for (v,) in sqlite3.connect(sys.argv[1]).execute(
        'SELECT value FROM trace_meta WHERE key = ?', (sys.argv[2],)):
    print(v.rstrip('\\n'))" "$1" "$2"
}
# kv DB KEY NAME: NAME's value in the "NAME VALUE" lines of trace_meta KEY
kv() {
	meta "$1" "$2" | awk -v k="$3" '$1 == k { print $2 }'
}
# delta DB COUNTER: a /proc/vmstat counter's change across the workload
delta() {
	echo $(( $(kv "$1" vmstat.after "$2") - $(kv "$1" vmstat.before "$2") ))
}
# pmd_split DB: the 2048kB per-size split counter's change (mthp_stats, "SIZE NAME VALUE")
pmd_split() {
	_a=$(meta "$1" mthp_stats.after | awk '$1 == "2048kB" && $2 == "split" { print $3 }')
	_b=$(meta "$1" mthp_stats.before | awk '$1 == "2048kB" && $2 == "split" { print $3 }')
	echo $(( ${_a:-0} - ${_b:-0} ))
}
# rss DB: the workload's VmRSS at its end (anon-touch's rss_kb), from its RESULT line
rss() {
	sed -n 's/^RESULT .* rss_kb=\([0-9]*\).*/\1/p' "$1".ctf/*/workload.out 2>/dev/null | head -n 1
}
# rec_ok NAME SPEC WHAT ARGS...: rec, then one check that it exited 0, stderr's tail if not
rec_ok() {
	_on=$1 _os=$2 _ow=$3
	shift 3
	rec "$_on" "$_os" "$@"
	_orc=$?
	[ $_orc = 0 ] || sed 's/^/#   /' "$T/$_on.err" | tail -5
	ok $_orc "$_ow"
}
# sim SPEC METRIC: the simulator's total for SPEC, replaying the order0 trace
sim() {
	python3 -c "import json, sys; d = json.load(open(sys.argv[1]))
print([r for r in d['runs'] if r['policy'] == sys.argv[2]][0]['metrics'][sys.argv[3]])" \
		"$T/sim.json" "$1" "$2"
}

rec_ok order0 order0 "order0: $WL recorded in the 6.12 guest ($ARCH)" $WL
rec_ok t409 "$S409" "$S409: recorded, the workload fit its cgroup" $WL
rec t511 "$S511" $WL
rc=$?
diag "$S511: record exit $rc: $(tail -n 2 "$T/t511.err" | tr '\n' ' ')"
ok $([ $rc = 1 ] && grep -q "cgroup reached its memory.max (64 MiB" "$T/t511.err"; echo $?) \
	"$S511: the cgroup's OOM killer ended the workload, and record says it was the limit"
rec_ok zeros "$S409" "$S409: recorded with --zeros" $WL --zeros

"$FT" replay "$T/order0.db" -n --check-oracle -P "$S409" -P "$S511" \
	-P "thp+khugepaged+shrinker:max_ptes_none=409+limit:64M" --format json \
	> "$T/sim.json" 2> "$T/sim.err"
ok $? "replay of the order0 trace under the three specs (engine and oracle agree)"

# --- max_ptes_none=409 ---
knobs=$(meta "$T/t409.db" thp_knobs | tr '\n' ' ')
diag "t409 knobs: $knobs; memory.max $(meta "$T/t409.db" memcg.max)"
ok $([ "$(kv "$T/t409.db" thp_knobs khugepaged/max_ptes_none)" = 409 ] &&
	[ "$(kv "$T/t409.db" thp_knobs shrink_underused)" = 1 ] &&
	[ "$(meta "$T/t409.db" memcg.max)" = $LIMIT ]; echo $?) \
	"the guest set max_ptes_none 409, shrink_underused 1 and memory.max 64M"
ks=$(delta "$T/t409.db" thp_split_page) ku=$(delta "$T/t409.db" thp_underused_split_page)
kd=$(delta "$T/t409.db" thp_deferred_split_page) kp=$(pmd_split "$T/t409.db")
# the workload's own THPs: its cgroup's thp_fault_alloc (vmstat's counts every process)
kc=$(delta "$T/t409.db" thp_collapse_alloc) kf=$(kv "$T/t409.db" memcg.stat thp_fault_alloc)
kpeak=$(meta "$T/t409.db" memcg.peak)
ss=$(sim "$S409" splits) sfr=$(sim "$S409" split_freed_pages) speak=$(sim "$S409" peak_rss_bytes)
sf=$(sim "$S409" pmd_maps) sc=$(sim "thp+khugepaged+shrinker:max_ptes_none=409+limit:64M" collapses)
diag "kernel (409): thp_split_page $ks, thp_underused_split_page $ku, thp_deferred_split_page" \
	"$kd, 2048kB split $kp, thp_collapse_alloc $kc, thp_fault_alloc $kf (the cgroup's;" \
	"vmstat's $(delta "$T/t409.db" thp_fault_alloc)), memory.peak $kpeak;" \
	"memory.events: $(meta "$T/t409.db" memcg.events | tr '\n' ' ')"
diag "simulator (409): splits $ss, split_freed_pages $sfr, pmd_maps $sf, peak_rss_bytes" \
	"$speak; with +khugepaged: collapses $sc"
ok $([ "$ku" -gt 0 ] && [ "$ku" = "$ks" ]; echo $?) \
	"the kernel split underused THPs (thp_underused_split_page $ku of thp_split_page $ks): not vacuous"
[ -n "$ss" ] && within_pct "$ss" "$ks" 10
ok $? "splits: simulator $ss within 10% of the kernel's thp_split_page $ks"
[ -n "$ss" ] && within_pct "$ss" "$kp" 10
ok $? "splits: simulator $ss within 10% of the kernel's 2048kB split counter $kp"
ok $([ "$kd" = 0 ]; echo $?) \
	"thp_deferred_split_page $kd: no THP was partly unmapped (the model queues none either)"
[ -n "$sf" ] && within_pct "$sf" "$kf" 10
ok $? "THPs at the fault: simulator pmd_maps $sf within 10% of the kernel's thp_fault_alloc $kf"
ok $([ -n "$sc" ] && [ "$sc" = "$kc" ]; echo $?) \
	"collapses: simulator (+khugepaged) $sc, the kernel's thp_collapse_alloc $kc"
# freed by the splits, from the workload's VmRSS at its end: the order0 run holds the
# written pages and the fill; under 409 the unsplit THPs add their unwritten pages, so
# what the splits freed is the THPs' pages less the written ones less that difference
r0=$(rss "$T/order0.db") r409=$(rss "$T/t409.db") rz=$(rss "$T/zeros.db")
writes=$(sed -n 's/^RESULT .* writes=\([0-9]*\).*/\1/p' "$T"/order0.db.ctf/*/workload.out | head -n 1)
kfr=$(( ${kf:-0} * 512 - ${writes:-0} - (${r409:-0} - ${r0:-0}) / 4 ))
diag "VmRSS at the end: order0 $r0 KiB, 409 $r409 KiB, 409 --zeros $rz KiB; writes $writes"
[ -n "$sfr" ] && [ -n "$r0" ] && [ -n "$r409" ] && within_pct "$sfr" "$kfr" 10
ok $? "split_freed_pages: simulator $sfr within 10% of the kernel's $kfr (from VmRSS)"
[ -n "$speak" ] && [ -n "$kpeak" ] && within_pct "$speak" "$kpeak" 2
ok $? "peak RSS: simulator $speak within 2% of the cgroup's memory.peak $kpeak"

# --- max_ptes_none=511: thp_underused() returns false at once ---
ks5=$(delta "$T/t511.db" thp_split_page) ku5=$(delta "$T/t511.db" thp_underused_split_page)
ss5=$(sim "$S511" splits) so5=$(sim "$S511" oom) sp5=$(sim "$S511" peak_rss_bytes)
diag "kernel (511): thp_split_page $ks5, thp_underused_split_page $ku5, memory.peak" \
	"$(meta "$T/t511.db" memcg.peak), memory.events: $(meta "$T/t511.db" memcg.events | tr '\n' ' ')"
diag "simulator (511): splits $ss5, oom $so5 pages, peak_rss_bytes $sp5 (maps over the limit)"
ok $([ "$ks5" = 0 ] && [ "$ku5" = 0 ] && [ "$ss5" = 0 ]; echo $?) \
	"511: no split, kernel ($ks5, underused $ku5) and simulator ($ss5)"
ok $([ "$(kv "$T/t511.db" memcg.events oom_kill)" -ge 1 ] && [ "${so5:-0}" -gt 0 ]; echo $?) \
	"511: the limit cannot be kept: the kernel's cgroup OOM-killed, the simulator counts oom $so5"

# --- --zeros: page contents the trace does not hold ---
ksz=$(delta "$T/zeros.db" thp_split_page) kfz=$(kv "$T/zeros.db" memcg.stat thp_fault_alloc)
kfrz=$(( ${kfz:-0} * 512 - ${writes:-0} - (${rz:-0} - ${r0:-0}) / 4 ))
diag "--zeros: thp_split_page $ksz, freed $kfrz pages (non-zero bytes: $kfr; simulator $sfr" \
	"either way): the written zeros freed too, $((kfrz - kfr)) pages for $writes written"
ok $([ -n "$ksz" ] && [ "$ksz" = "$ks" ]; echo $?) \
	"--zeros: the same THPs split ($ksz, $ks without): all were underused either way"
[ -n "$rz" ] && within_pct $((kfrz - kfr)) "${writes:-0}" 10
ok $? "--zeros: the kernel freed the $writes pages written with zeros as well ($((kfrz - kfr)) more; the model cannot)"

# --- 128M: the limit binds at a THP's fault ---
rec_ok o128 order0 "order0: $WL128 recorded" $WL128
rec_ok t128 "$S409" "$S409: $WL128 recorded, the workload fit its cgroup" $WL128
"$FT" replay "$T/o128.db" -n --check-oracle -P "$S409" --format json > "$T/sim.json" 2> "$T/sim.err"
ok $? "replay of the 128M order0 trace under $S409 (engine and oracle agree)"
kf=$(kv "$T/t128.db" memcg.stat thp_fault_alloc) kfc=$(delta "$T/t128.db" thp_fault_fallback_charge)
ku=$(delta "$T/t128.db" thp_underused_split_page) kpeak=$(meta "$T/t128.db" memcg.peak)
sf=$(sim "$S409" pmd_maps) sfc=$(sim "$S409" fallback_alloc_failed) ss=$(sim "$S409" splits)
speak=$(sim "$S409" peak_rss_bytes)
diag "kernel (128M): thp_fault_alloc $kf (the cgroup's), thp_fault_fallback_charge $kfc," \
	"thp_underused_split_page $ku (thp_split_page $(delta "$T/t128.db" thp_split_page))," \
	"memory.peak $kpeak; memory.events: $(meta "$T/t128.db" memcg.events | tr '\n' ' ')"
diag "simulator (128M): pmd_maps $sf, fallback_alloc_failed $sfc, splits $ss, alloc_fails" \
	"$(sim "$S409" alloc_fails), oom $(sim "$S409" oom), peak_rss_bytes $speak"
[ -n "$sf" ] && [ -n "$kf" ] && [ "$kfc" -gt 0 ] && within_pct "$sf" "$kf" 10
ok $? "128M: THPs at the fault: simulator pmd_maps $sf within 10% of the kernel's $kf (some charges failed: $kfc)"
within_pct "$sfc" "$kfc" 10 || diag "charge fallbacks: simulator $sfc at memory.max not within 10% of $kfc"
# the model over the charge stock's range: memory.max less 0, 8, ... 64 x CPUs pages
cpus=$(python3 -c "import sqlite3, sys
print(sqlite3.connect(sys.argv[1]).execute('SELECT cpus FROM trace').fetchone()[0])" "$T/t128.db")
stock=$((64 * ${cpus:-2}))
specs=
for k in $(seq 0 8 $stock); do
	specs="$specs -P thp+shrinker:max_ptes_none=409+limit:$(( LIMIT / 1024 - 4 * k ))K"
done
"$FT" replay "$T/o128.db" -n $specs --format json > "$T/stock.json" 2> "$T/stock.err"
range=$(python3 -c "import json, sys
v = [r['metrics']['fallback_alloc_failed'] for r in json.load(open(sys.argv[1]))['runs']
     if '+limit:' in r['policy']]
print(min(v), max(v), len(v))" "$T/stock.json")
set -- $range
diag "simulator (128M) at memory.max less 0..$stock pages (the per-cpu charge stock of" \
	"${cpus:-2} CPUs), $3 limits: fallback_alloc_failed $1..$2"
ok $([ $# = 3 ] && [ "$kfc" -gt 0 ] && [ $((kfc * 10)) -ge $(($1 * 9)) ] &&
	[ $((kfc * 10)) -le $(($2 * 11)) ]; echo $?) \
	"128M: charge fallbacks: the kernel's thp_fault_fallback_charge $kfc within 10% of the simulator's $1..$2 over the charge stock"
[ -n "$ss" ] && [ "$ku" -gt 0 ] && within_pct "$ss" "$ku" 10
ok $? "128M: splits: simulator $ss within 10% of the kernel's thp_underused_split_page $ku"
[ -n "$speak" ] && [ -n "$kpeak" ] && within_pct "$speak" "$kpeak" 2
ok $? "128M: peak RSS: simulator $speak within 2% of the cgroup's memory.peak $kpeak"
done_testing
