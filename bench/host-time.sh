#!/bin/sh
# bench/host-time.sh - the host cost model against this host's own kernel time (issue 24
# item 4): each command runs on the host under 4K and under 16K, 32K and 64K mTHP and its
# kernel time is measured (sampled at 4 kHz in a cgroup of its own, bench/ksample.c and
# vm/ksample.h; getrusage's tick-split system time beside it); the same command recorded in the
# guest under order0 and replayed as mthp:16K, mthp:32K, mthp:64K with the host model
# (`foliotrace calibrate --host`, `replay --cost-model native`) predicts the change. Per
# command and size the measured and the predicted change of system time, and their gap.
#
#   sh bench/host-time.sh [-n RUNS] [-d DIR] [-c CLOCK] [-C] [-s] [-f] [CMD ...]   (root; CMD a `sh -c` string)
#	default: the commands of bench/host-mthp.sh (xz -6 of 4 MiB of linux-source-6.1,
#	python3 building a list of 1e6 strings, gcc -O2 -c replay/sim.c) and kbuild (the
#	bundled workload's 6 objects, its prepared tree copied into DIR/kb)
#
# The host model is made again for each command, just before its host runs (`calibrate
# --host --sizes 16K,32K,64K --runs 9`, DIR/model-N.db for the Nth command): this VM's cost
# of a fault moved by half with the load of the machine (docs/cost-model.md), so a model
# is only good for runs under the load it was measured at. -C calibrates with --cold: the
# models then price cold faults (cold_ns), in the TIME lines too, and
# bench/host-time-rules.py can set the cold rules beside the model without them.
#
# -s: also the recording's own stream on the host (docs/cost-model.md, "The stream alone"):
# its anonymous memory behaviour exported as for a guest replay (`guest replay --export`)
# and replayed by ft-replayer on the host under the same settings and runs, after the
# command's: the same VMAs, faults and order, without the command's own work between two
# faults. One STREAM line per size after the TIME lines: its kernel time, change and price
# of a fault removed, set between the model's and the command's.
#
# -f: also a second host model for each command (made before the default one, which stays
# the one made just before the host runs), calibrated around the footprint of the
# recording's processes (`calibrate --host --footprints`, DIR/model-N-fp.db;
# docs/cost-model.md, "The footprint"): F, the mean of each process's anonymous faults
# times 4K weighted by its faults (MiB), rounded to a power of two P (16M at least); the
# footprints P/2 (16M at least) and 2P. Its prediction beside the default model's, one
# FOOTPRINT line per size after the TIME lines:
#	FOOTPRINT cmd="..." size=16K footprints=32M,128M real=-P% pred=-P% ns_per_fault=HOST/MODEL
#	          gap=P
# (as in the TIME line above it) and before the last lines sum_time_gap_points=X (the
# default model's, over every command and size), sum_time_gap_points_footprints=X and
# worst_time_gap_points_footprints=X.
#
# CLOCK: the guest clock of the recordings, icount (default: guest time is instructions,
# so which faults are cold, docs/cost-model.md "Cold faults", does not depend on how TCG
# stretches each piece of code) or tcg.
#
# DIR (default build/host-time) keeps what is slow to make, reused when present: the
# guest recordings (DIR/rec-6.1-icount-CKSUM.db, or DIR/rec-6.1-CKSUM.db on tcg, CKSUM the
# command's `cksum`), the input and the kbuild tree. Delete a file to make it again.
#
# Host: RUNS runs per setting (default 5), the settings interleaved (4K, 16K, 32K, 64K, then
# again) so that the load moves all alike, after one warm-up run; the median system time
# (and minor faults) per setting: the sampled kernel time, and getrusage's system time as a
# cross-check (rusage=, at HZ=250 a 4 ms tick's sample). Knobs: bench/host-lib.sh, every one restored on exit,
# on failure and on INT, TERM and HUP. Predicted change at size S: (fault_time_ns of
# mthp:S - fault_time_ns of order0) of the replay, over the host's median system time at
# 4K: the model predicts the fault work that changes, the rest of the kernel's time (exec,
# file faults, syscalls) is the host's measured one.
#
# Per command and size one line
#	TIME cmd="..." size=16K sys_4k_ms=X sys_ms=X real=-P% real_span=-P..-P% rusage=-P%
#	     pred_fault_4k_ms=X pred_delta_ms=X pred=-P% pred_span=-P..-P% cold=C/F
#	     ns_per_fault=HOST/MODEL gap=P beyond_span=P
# (cold: the replay's cold faults of the F faults of mthp:S, docs/cost-model.md; priced only
# with -C. pred_span: pred scaled by the 5th and 95th percentiles of the model's new_ns over
# resamples of its runs, the SPREAD line after its MODEL lines (calibrate --host's): how far
# the model's own runs leave the prediction uncertain; the bytes of a replay hardly change
# with the size, so the change predicted is new_ns's times the faults removed, to within a
# point, and the spread of byte_ns and cold_ns is left out; real_span: the measured change's
# 5th and 95th percentiles over resamples of the host's rounds, bench/host-lib.sh
# change_span();
# beyond_span: how far apart the two spans are, in points, 0 when they overlap;
# ns_per_fault: the change of kernel time per fault removed, ns (negative: saved), on the
# host (its medians' change over its minor faults at 4K less at S: the file faults are the
# same under both) and in the model (the replay's fault_time_ns over its faults): the gap
# is their difference times the faults removed)
# after HOST lines with each setting's runs. Last lines: worst_beyond_span_points=X, then
# worst_time_gap_points=X
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
FT=$TOP/build/foliotrace
RUNS=5
CPU_S=${FT_HOST_TIME_CPU_S:-3}	# CPU seconds a host run takes at least (REP below)
SIZES="16 32 64"
DIR=$TOP/build/host-time

me=bench/host-time.sh
die() { echo "$me: $*" >&2; exit 1; }
usage() { echo "usage: sh $me [-n RUNS] [-d DIR] [-c icount|tcg] [-C] [-s] [-f] [CMD ...]" >&2; exit 2; }
REC_CLOCK=icount
CAL_COLD=
STREAM=
FOOT=
while getopts n:d:c:Csf o; do
	case $o in
	s) STREAM=1 ;;
	f) FOOT=1 ;;
	n) RUNS=$OPTARG ;;
	d) DIR=$OPTARG ;;
	c) REC_CLOCK=$OPTARG ;;
	C) CAL_COLD=--cold ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
case $RUNS in '' | *[!0-9]* | 0) usage ;; esac
case $REC_CLOCK in icount | tcg) ;; *) usage ;; esac
. "$TOP/bench/host-lib.sh"
# shellcheck disable=SC2086 # the sizes are split on purpose
knobs_check $SIZES
mkdir -p "$DIR"
DIR=$(cd "$DIR" && pwd)
W=$(mktemp -d "$DIR/run.XXXXXX")
CHILD=
cleanup_more() { :; }
host_traps

make -s -C "$TOP" >&2
KS=$W/ksample
REPLAYER=$TOP/build/workloads/$(uname -m)/ft-replayer
[ -z "$STREAM" ] || [ -x "$REPLAYER" ] || die "no $REPLAYER (make workloads builds it)"
${CC:-gcc} -O2 -std=gnu11 -D_GNU_SOURCE -I"$TOP" -I"$TOP/build/gen" -o "$KS" \
	"$TOP/bench/ksample.c" "$TOP/build/libft.a" -lsqlite3 -lm || die "cannot build bench/ksample.c"
[ $# -gt 0 ] || { default_cmds; set -- "$CMD_XZ" "$CMD_PY" "$CMD_GCC" "$CMD_KBUILD"; }


# host SIZE_KB CMD: one run under the knobs of SIZE_KB: CMD run $REP times in a row,
# "kernel_us user_us stime_us utime_us minflt sampled" per invocation (bench/ksample.c:
# sampled kernel and user time, then the rusage of the process trees)
host() {
	knobs "$1"
	setsid "$KS" "$REP" "$2" < /dev/null > "$W/ru" 9>&- &
	CHILD=$!
	wait "$CHILD" || { CHILD=; die "host run failed: $2"; }
	CHILD=
	knobs 4
	cat "$W/ru"
}

# calibrate N TAG [ARG...]: the host model for the Nth command into $DIR/model-N.db ($MODEL),
# calibrate --host given ARGs too, its lines labelled MODEL$TAG and SPREAD$TAG, with no knob
# of ours held (calibrate --host saves, locks and restores its own; it refuses, not waits,
# when another writer holds the lock: waited for here, then tried again)
calibrate() {
	MODEL=$DIR/model-$1.db
	tag=$2
	shift 2
	lock=${FT_HOST_KNOBS_LOCK:-/run/lock/foliotrace-thp-knobs}
	rm -f "$MODEL.tmp"
	t=0
	# shellcheck disable=SC2086 # CAL_COLD is empty or one word
	until "$FT" calibrate --host --sizes 16K,32K,64K --runs 9 $CAL_COLD "$@" -o "$MODEL.tmp" \
		> "$W/model" 2> "$W/model.err"; do
		t=$((t + 1))
		grep -q "another program is changing" "$W/model.err" && [ $t -lt 20 ] ||
			{ cat "$W/model.err" >&2; die "calibrate --host failed"; }
		flock "$lock" true
	done
	mv "$MODEL.tmp" "$MODEL"
	sed "s/^/MODEL$tag /" "$W/model"
	# the model's new_ns, and its 5th and 95th percentiles over resamples of the runs
	NEW=$(awk 'NR == 2 { print $5 }' "$W/model")
	SPREAD=$(sed -n 's/^calibrate --host: spread over \([0-9]*\) resamples of the \([0-9]*\) rounds: new_ns \([0-9.]*\)-\([0-9.]*\), byte_ns \([0-9.]*\)-\([0-9.]*\) .*/\3 \4 \5 \6 \1 \2/p' \
		"$W/model.err")
	[ -n "$SPREAD" ] || die "calibrate --host gave no spread: $(cat "$W/model.err")"
	echo "$SPREAD" | awk -v t="$tag" '{ printf "SPREAD%s new_ns=%s..%s byte_ns=%s..%s " \
		"resamples=%s rounds=%s\n", t, $1, $2, $3, $4, $5, $6 }'
}

# footprints: calibrate --host --footprints for the processes of the recording REC (-f above):
# "P/2,2P" in M, P the power of two nearest (in ratio) their fault-weighted footprint
footprints() {
	"$FT" query "$REC" procs --format csv | awk -F, '
		NR == 1 { for (i = 1; i <= NF; i++) if ($i == "anon_faults") c = i; next }
		{ s += $c; s2 += $c * $c }
		END {
			if (!c || !s) exit 1
			f = s2 / s / 256	# MiB: faults of 4K
			for (p = 16; p * sqrt(2) < f; p *= 2)
				;
			printf "%dM,%dM\n", (p / 2 < 16 ? 16 : p / 2), 2 * p }'
}

# warm_up CMD: one run at 4K (page cache, dentries), which also sets REP: the invocations
# per run that make it CPU_S seconds of CPU at least, since the kernel splits a task's time
# into user and system by the timer tick that finds it running (CONFIG_TICK_CPU_ACCOUNTING,
# 4 ms at HZ=250): a run of 40 ms of system time is 10 samples
warm_up() {
	REP=1
	host 4 "$1" > "$W/warm"
	read -r ws wu _ < "$W/warm"	# sampled kernel and user time, us
	REP=$(awk -v s="$ws" -v u="$wu" -v c="$CPU_S" 'BEGIN { r = int(c * 1e6 / (s + u + 1)) + 1;
		print (r > 1000 ? 1000 : r) }')
}

# host_lines LABEL CMD PREFIX REP: one line per setting with its runs ($W/PREFIXs)
host_lines() {
	for s in 4 $SIZES; do
		echo "$1 cmd=\"$2\" ${s}K rep=$4 sampled=$(awk 'NR == 1 { print $6 }' "$W/$3$s")" \
			"sys_ms=$(awk '{ printf "%s%.1f", (NR > 1 ? "," : ""), $1 / 1000 }' "$W/$3$s")" \
			"rusage_sys_ms=$(awk '{ printf "%s%.1f", (NR > 1 ? "," : ""), $3 / 1000 }' "$W/$3$s")" \
			"minflt=$(median "$W/$3$s" 5)"
	done
}

# The awk functions of a change, written once for the TIME, FOOTPRINT and STREAM lines:
# change: of kernel time from b to n, %; pred_change: of predicted fault time from p0 to ps
# (ns) over the host's 4K kernel time b (us), %; per_fault: dt over the faults removed
# from f0 to fs, "-" if none is; dist: |x - y|
CHANGE_AWK='
function change(n, b) { return 100 * (n / b - 1) }
function pred_change(ps, p0, b) { return 100 * (ps - p0) / 1e3 / b }
function per_fault(dt, f0, fs) { return f0 > fs ? sprintf("%.0f", dt / (f0 - fs)) : "-" }
function dist(x, y) { return x > y ? x - y : y - x }'

# host_price BASE FILE: the change of kernel time per minor fault removed, ns, from BASE's
# runs (4K) to FILE's (their medians); "-" if FILE has no fewer faults
host_price() {
	awk -v b="$(median "$1" 1)" -v n="$(median "$2" 1)" -v m0="$(median "$1" 5)" \
		-v ms="$(median "$2" 5)" "$CHANGE_AWK"'
		BEGIN { print per_fault(1e3 * (n - b), m0, ms) }'
}

# pred_col FILE POLICY N: column N of POLICY's line of predict's output FILE; N 4: its faults
pred_col() {
	awk -v p="$2" -v k="$3" '$1 == p { if (k == 4) { sub(/.*\//, "", $3); print $3 }
		else print $k }' "$1"
}

# knobs_release: the knobs as saved, and the lock let go (for calibrate --host)
knobs_release() {
	knobs_restore || die "cannot restore the mTHP knobs"
	rm -f "$W/saved"
	exec 9>&-
}

# predict CMD: the guest recording (made if absent, bench/host-lib.sh), replayed with the host
# model ($MODEL): "POLICY fault_time_ns cold_faults/faults" lines
predict() {
	recording 6.1 "$1"
	replay_sizes "$1" --cost-model native --model-from "$MODEL"
	awk -v RS='"policy":"' 'NR > 1 {
		p = substr($0, 1, index($0, "\"") - 1)
		match($0, /"fault_time_ns":[0-9]+/); t = substr($0, RSTART + 16, RLENGTH - 16)
		match($0, /"faults":[0-9]+/); f = substr($0, RSTART + 9, RLENGTH - 9)
		match($0, /"cold_faults":[0-9]+/); print p, t, substr($0, RSTART + 14, RLENGTH - 14) "/" f }' \
		"$W/replay.json"
}

echo "$me: $(uname -r), $(nproc) cpus, load average $(cut -d' ' -f1-3 /proc/loadavg)," \
	"$RUNS runs per setting, recordings on the $REC_CLOCK clock"
: > "$W/gaps"
ci=0
for cmd in "$@"; do
	ci=$((ci + 1))
	recording 6.1 "$cmd"		# the slow part first, away from the model's runs
	if [ -n "$FOOT" ]; then	# first: the default model is the one made just before the runs
		fp=$(footprints) || die "no process with anonymous faults in $REC"
		calibrate "$ci-fp" _FOOTPRINTS --footprints "$fp"
		predict "$cmd" > "$W/predfp"
	fi
	calibrate "$ci" ""
	predict "$cmd" > "$W/pred"
	knobs_save
	warm_up "$cmd"
	interleave "$cmd"
	if [ -n "$STREAM" ]; then
		"$FT" guest replay "$REC" --export "$W/stream.ftr" 2> "$W/export.err" ||
			die "cannot export the stream of $REC: $(tail -n 1 "$W/export.err")"
		crep=$REP
		warm_up "$REPLAYER $W/stream.ftr"
		interleave "$REPLAYER $W/stream.ftr" s
		SREP=$REP
		REP=$crep
	fi
	knobs_release
	base=$(median "$W/h4" 1)
	rbase=$(median "$W/h4" 3)
	[ "$base" -gt 0 ] && [ "$rbase" -gt 0 ] || die "no system time measured: $cmd"
	host_lines HOST "$cmd" h "$REP"
	[ -z "$STREAM" ] || host_lines "HOST stream of" "$cmd" s "$SREP"
	p0=$(pred_col "$W/pred" order0 2)
	f0=$(pred_col "$W/pred" order0 4)	# its faults
	[ -n "$p0" ] && [ "$p0" -gt 0 ] || die "replay predicted no fault time (no host model?): $cmd"
	for s in $SIZES; do
		awk -v g="$W/gaps" -v c="$cmd" -v s="$s" -v b="$base" -v n="$(median "$W/h$s" 1)" -v p0="$p0" \
			-v rb="$rbase" -v rn="$(median "$W/h$s" 3)" \
			-v ps="$(pred_col "$W/pred" "mthp:${s}K" 2)" \
			-v cold="$(pred_col "$W/pred" "mthp:${s}K" 3)" \
			-v new="$NEW" -v sp="$SPREAD" -v rs="$(change_span "$W/h4" "$W/h$s")" \
			-v hf="$(host_price "$W/h4" "$W/h$s")" -v f0="$f0" \
			-v fs="$(pred_col "$W/pred" "mthp:${s}K" 4)" "$CHANGE_AWK"'
			BEGIN {
			real = change(n, b); d = (ps - p0) / 1e3; pred = pred_change(ps, p0, b)
			gap = dist(real, pred)
			split(sp, q, " ")
			lo = pred * q[2] / new; hi = pred * q[1] / new
			if (lo > hi) { t = lo; lo = hi; hi = t }
			split(rs, m, " ")
			out = m[2] < lo ? lo - m[2] : (m[1] > hi ? m[1] - hi : 0)
			pf = per_fault(ps - p0, f0, fs)
			printf "TIME cmd=\"%s\" size=%sK sys_4k_ms=%.1f sys_ms=%.1f real=%.1f%% " \
			       "real_span=%.1f..%.1f%% rusage=%.1f%% pred_fault_4k_ms=%.1f " \
			       "pred_delta_ms=%.1f pred=%.1f%% pred_span=%.1f..%.1f%% cold=%s " \
			       "ns_per_fault=%s/%s gap=%.1f beyond_span=%.1f\n", c, s, b / 1e3, n / 1e3,
			       real, m[1], m[2], change(rn, rb), p0 / 1e6, d / 1e3, pred, lo, hi,
			       cold, hf, pf, gap, out
			print gap, out >> g }'
	done
	[ -z "$FOOT" ] || for s in $SIZES; do
		awk -v g="$W/gapsfp" -v c="$cmd" -v s="$s" -v fp="$fp" -v b="$base" \
			-v n="$(median "$W/h$s" 1)" -v hf="$(host_price "$W/h4" "$W/h$s")" \
			-v p0="$(pred_col "$W/predfp" order0 2)" \
			-v ps="$(pred_col "$W/predfp" "mthp:${s}K" 2)" \
			-v f0="$f0" -v fs="$(pred_col "$W/predfp" "mthp:${s}K" 4)" "$CHANGE_AWK"'
			BEGIN {
			real = change(n, b); pred = pred_change(ps, p0, b); gap = dist(real, pred)
			pf = per_fault(ps - p0, f0, fs)
			printf "FOOTPRINT cmd=\"%s\" size=%sK footprints=%s real=%.1f%% pred=%.1f%% " \
			       "ns_per_fault=%s/%s gap=%.1f\n", c, s, fp, real, pred, hf, pf, gap
			print gap >> g }'
	done
	[ -z "$STREAM" ] || for s in $SIZES; do
		awk -v c="$cmd" -v s="$s" -v r="$SREP" -v b="$(median "$W/s4" 1)" \
			-v n="$(median "$W/s$s" 1)" -v m0="$(median "$W/s4" 5)" \
			-v ms="$(median "$W/s$s" 5)" -v rs="$(change_span "$W/s4" "$W/s$s")" \
			-v hf="$(host_price "$W/s4" "$W/s$s")" "$CHANGE_AWK"'
			BEGIN {
			split(rs, m, " ")
			printf "STREAM cmd=\"%s\" size=%sK rep=%s sys_4k_ms=%.1f sys_ms=%.1f " \
			       "real=%.1f%% real_span=%.1f..%.1f%% minflt=%d/%d ns_per_fault=%s\n", c, s,
			       r, b / 1e3, n / 1e3, change(n, b), m[1], m[2], m0, ms, hf }'
	done
done
[ -z "$FOOT" ] || { awk '{ d += $1 } END { printf "sum_time_gap_points=%.1f\n", d }' "$W/gaps"
	awk 'BEGIN { w = 0 } { a += $1 } $1 > w { w = $1 } END {
		printf "sum_time_gap_points_footprints=%.1f\n", a
		printf "worst_time_gap_points_footprints=%.1f\n", w }' "$W/gapsfp"; }
awk 'BEGIN { w = 0 } $2 > w { w = $2 } END { printf "worst_beyond_span_points=%.1f\n", w }' "$W/gaps"
awk 'BEGIN { w = 0 } $1 > w { w = $1 } END { printf "worst_time_gap_points=%.1f\n", w }' "$W/gaps"
