#!/bin/sh
# bench/cost-model-icount.sh - the fault cost model against guest replays on the
# deterministic clock, for every bundled workload and knob policy (issue 24 item 2;
# docs/cost-model.md, "Under icount").
#
#   sh bench/cost-model-icount.sh [--arch x86_64|arm64] [--cpus N] [-d DIR] [WORKLOAD...]
#
# Calibration (as tests/guest/cost-model-icount.sh): anon-touch 32M --fork recorded under
# `--clock icount` with order0, mcpage:2, mthp:32K, mthp:64K and thp (32K and 64K: the
# per-cpu list's and the buddy allocator's folios, buddy_ns; --fork: then a child's COW of
# every page, of 4K folios under order0, of large ones under the others: cow_ns and
# cow_large_ns), `foliotrace calibrate`. Then
# the bundled workloads of SCRIPT below, run one after another in one guest and recorded
# there under order0 on the icount clock, are replayed in one icount guest per policy of
# POLICIES (`foliotrace guest replay --clock icount`; every knob policy of the 6.1 guest:
# mcpage:N and mthp:SIZE set the same knob, `foliotrace guest knob`); the model is
# calibrated into that database, each workload's processes are simulated with it
# (`foliotrace replay --comm NAME`, malloc-churn by `--pid`) and `compare --sim-vs-real`
# read for the same selection. anon-touch, the calibration's workload, is printed too (set
# `cal`: in sample, left out of the worst figure); the others are held out (set `held`).
# kbuild runs from a root filesystem share, not the initramfs, so it has its own
# recording and guests (x86_64 only: arm64 would need `foliotrace guest rootfs`'s root;
# not measured); kv-redis is x86_64 only, the arm64 initramfs has no redis. WORKLOAD
# arguments print only those.
# Every database stays in DIR (default: a temporary directory, removed at the end): a
# rerun with the same DIR skips the recordings and the guest replays it has, and refits.
# Guest time is instructions, so the figures do not depend on the host's load; the run
# time does (docs/times.md). One line per workload and policy:
#
#   arch workload policy set predicted_ns measured_ns error_pct
#
# --cpus N: guest cpus of every recording and replay (run.sh's default: 2 on arm64; x86_64
# runs 1 under icount whatever it says). On arm64 use --cpus 1: with two vCPUs QEMU's icount
# clock counts both vCPUs' instructions, so a fault's latency holds the other vCPU's work
# whenever QEMU switches to it mid-fault (docs/cost-model.md, "Under icount").
# error = (measured - predicted) / predicted x 100. Last line: worst_fault_time_error_pct=X,
# the largest |error| of the held-out lines. FT_BENCH_POLICIES replaces POLICIES,
# FT_BENCH_CAL_POLICIES the calibration's (order0 mcpage:2 mthp:32K mthp:64K thp).
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
FT=${FT:-$TOP/build/foliotrace}
arch=x86_64
dir=
cpus=
usage() {
	echo "usage: sh bench/cost-model-icount.sh [--arch x86_64|arm64] [--cpus N] [-d DIR] [WORKLOAD...]" >&2
	exit 2
}
while [ $# -gt 0 ]; do
	case $1 in
	--arch) [ $# -ge 2 ] || usage; arch=$2; shift 2 ;;
	--cpus) [ $# -ge 2 ] || usage; cpus="--cpus $2"; shift 2 ;;
	-d) [ $# -ge 2 ] || usage; dir=$2; shift 2 ;;
	-h|--help) usage ;;
	-*) usage ;;
	*) break ;;
	esac
done
case $arch in x86_64|arm64) ;; *) usage ;; esac
POLICIES=${FT_BENCH_POLICIES:-"order0 mcpage:2 mcpage:4 mthp:16K mthp:32K mthp:64K thp"}
CAL_POLICIES=${FT_BENCH_CAL_POLICIES:-"order0 mcpage:2 mthp:32K mthp:64K thp"}
# the workloads, run one after another in one guest (one recording, one guest replay per
# policy); each is then selected by its command name (malloc-churn by the pid it prints:
# it re-executes itself, docs/workloads.md; kv-redis is its server)
SCRIPT="anon-touch 32M && pf-loop --size 2M --loops 4 && malloc-churn --size 16M --loops 1 &&
fork-cow --size 4M && sparse --size 64M --touches 1024 && kv-redis --requests 500 --clients 2"
WORKLOADS="anon-touch pf-loop malloc-churn fork-cow sparse kv-redis"
# the arm64 initramfs has no redis (guest-kernel/initramfs.sh copies the x86_64 host's)
if [ "$arch" = arm64 ]; then
	SCRIPT=${SCRIPT% && kv-redis*}
	WORKLOADS=${WORKLOADS% kv-redis}
fi
SCRIPT=$(echo "$SCRIPT" | tr '\n' ' ')
if [ -z "$dir" ]; then
	dir=$(mktemp -d "${TMPDIR:-/tmp}/foliotrace-cost-icount.XXXXXX")
	trap 'rm -rf "$dir"' EXIT
fi
mkdir -p "$dir"
log() { echo "# $*" >&2; }
sql() { "$FT" query "$1" --format csv sql "$2" | tail -n +2; }

# record DB POLICY CMD...: a recording under POLICY on the icount clock, unless DB has one
# (record's last line names the database once it is stored)
record() {
	_db=$1 _pol=$2
	shift 2
	if [ -s "$_db" ] && grep -q '^  stored in ' "$_db.out" 2> /dev/null; then
		return 0
	fi
	rm -rf "$_db" "$_db.ctf"
	_s=$(date +%s)
	# shellcheck disable=SC2086 # empty or two words
	"$FT" record --arch "$arch" $cpus --clock icount --policy "$_pol" -o "$_db" -- "$@" \
		> "$_db.out" 2> "$_db.err" || { tail -5 "$_db.err" >&2; return 1; }
	log "recorded $* under $_pol: $(( $(date +%s) - _s )) s"
}

# replay_guests DB: guest replays of the policies DB has none of
replay_guests() {
	_todo=
	for _p in $POLICIES; do
		_n=$(sql "$1" "SELECT count(*) FROM replay_run WHERE kind = 'guest' AND policy = '$_p'")
		[ -n "$_n" ] || { echo "bench/cost-model-icount.sh: cannot read $1" >&2; exit 1; }
		[ "$_n" != 0 ] || _todo="$_todo --policy $_p"
	done
	[ -n "$_todo" ] || return 0
	_s=$(date +%s)
	# shellcheck disable=SC2086 # the policy options are split on purpose
	"$FT" guest replay "$1" --arch "$arch" $cpus --clock icount $_todo \
		> "$1.replay.out" 2> "$1.replay.err" || { tail -8 "$1.replay.err" >&2; return 1; }
	log "guest replays ($_todo ): $(( $(date +%s) - _s )) s"
}

# a database of an older schema is read only once something opened it for writing: migrate
# those a rerun finds (replay writes; the run it stores is not read)
for db in "$dir"/*.db; do
	[ -s "$db" ] || continue
	"$FT" query "$db" summary > /dev/null 2>&1 || "$FT" replay "$db" --policy order0 > /dev/null
done
CAL=
for p in $CAL_POLICIES; do
	db=$dir/$arch-cal-anon-touch-fork-$(echo "$p" | tr -d :).db
	record "$db" "$p" anon-touch 32M --fork
	CAL="$CAL $db"
done
DB=$dir/$arch-workloads.db
record "$DB" order0 sh -c "$SCRIPT"
replay_guests "$DB"
# shellcheck disable=SC2086 # the list of databases is split on purpose
"$FT" calibrate -o "$DB" $CAL > "$dir/$arch-calibrate.out"
sed 's/^/# /' "$dir/$arch-calibrate.out" >&2
PARGS=$(for p in $POLICIES; do printf -- '--policy %s ' "$p"; done)
churn_pid=$(sed -n 's/^RESULT malloc-churn pid=\([0-9]*\).*/\1/p' "$DB".ctf/*-sh/workload.out |
	head -n 1)

# lines DB NAME SAMPLE [SELECTION...]: simulate the selection with the model (compare only
# reads), then one line per policy
lines() {
	_db=$1 _w=$2 _sample=$3
	shift 3
	# shellcheck disable=SC2086
	"$FT" replay "$_db" "$@" $PARGS > /dev/null
	"$FT" compare "$_db" --sim-vs-real "$@" --format json > "$dir/$arch-$_w.svr.json"
	for _p in $POLICIES; do
		jq -r --arg p "$_p" '.[] | select(.policy == $p and .metric == "fault_time_ns") |
			"\(.sim) \(.real) \(.error_pct)"' "$dir/$arch-$_w.svr.json" | {
			read -r sim real err || true
			printf '%-7s %-13s %-9s %-4s %12s %12s %8s\n' "$arch" "$_w" "$_p" "$_sample" \
				"${sim:-null}" "${real:-null}" "${err:-null}"
		}
	done
}
# wanted NAME [WORKLOAD...]: NAME is to be printed (no WORKLOAD given, or it is one)
wanted() {
	_n=$1
	shift
	[ $# -eq 0 ] && return 0
	case " $* " in *" $_n "*) return 0 ;; esac
	return 1
}

printf '%-7s %-13s %-9s %-4s %12s %12s %8s\n' arch workload policy set predicted_ns \
	measured_ns error_pct
out=$dir/$arch-lines
: > "$out"
for w in $WORKLOADS; do
	wanted "$w" "$@" || continue
	sel="--comm $w"
	[ "$w" = malloc-churn ] && sel="--pid $churn_pid"
	[ "$w" = kv-redis ] && sel="--comm redis-server"
	sample=held
	[ "$w" = anon-touch ] && sample='cal'
	# shellcheck disable=SC2086
	lines "$DB" "$w" "$sample" $sel | tee -a "$out"
done
# kbuild runs from the root filesystem (the host's on x86_64), so it has a guest of its
# own: one recording and a guest replay per policy of every process of the build
if [ "$arch" = x86_64 ] && wanted kbuild "$@"; then
	KB=$dir/$arch-kbuild.db
	record "$KB" order0 kbuild
	replay_guests "$KB"
	# shellcheck disable=SC2086
	"$FT" calibrate -o "$KB" $CAL > /dev/null
	lines "$KB" kbuild held | tee -a "$out"
fi
awk '$4 == "held" { e = $7 < 0 ? -$7 : $7; if ($7 == "null") e = 1e9; if (e > w) w = e }
	END { printf "worst_fault_time_error_pct=%.1f\n", w }' "$out"
