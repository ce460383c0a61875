#!/bin/sh
# bench/host-mthp.sh - foliotrace's mTHP simulation against this host's own kernel (Linux
# 6.8+, per-size mTHP knobs): each command runs on the host under 4K and under 16K, 32K and
# 64K mTHP, and is recorded in the guest under order0 and replayed as mthp:16K, mthp:32K and
# mthp:64K; per size the real and the simulated reduction of anonymous faults (issue 13).
#
#   sh bench/host-mthp.sh [-n RUNS] [-d DIR] [--kernel LIST] [CMD ...]
#	(root; each CMD a `sh -c` string) default: xz -6 of 4 MiB of linux-source-6.1,
#	python3 building a list of 1e6 strings, gcc -O2 -c replay/sim.c, and the bundled
#	kbuild's 6 objects (bench/host-lib.sh, default_cmds)
#
# --kernel LIST (default 6.1): the guest kernels to record on, comma-separated (6.1,
# 6.12): each command is recorded on each and set against the same host runs. DIR
# (default build/host-mthp) keeps the recordings (DIR/rec-KERNEL-CKSUM.db), the input and
# the kbuild tree's copy between runs; delete a file to make it again.
#
# What is compared (docs/benchmarks.md): anonymous faults that allocate a folio, i.e.
# write faults on absent pages of anonymous mappings plus writes to a zero-page PTE (read
# faults that map the zero page are left out on both sides; file-backed faults, page cache
# and file fault-around are not anonymous). Host: the kernel's kmem:mm_page_alloc
# tracepoint in the command's process tree (set_event_pid + event-fork), order-0
# allocations with __GFP_ZERO|__GFP_MOVABLE (anonymous faults and zero-page writes; COW
# copies are not zeroed, page tables are not movable) and large ones with
# __GFP_NOMEMALLOC|__GFP_MOVABLE (the mTHP fault path's GFP_TRANSHUGE_LIGHT; page cache
# folios have no __GFP_NOMEMALLOC); median of RUNS (default 3) per setting, the settings
# interleaved so the load moves all alike, after one warm-up run. Guest: the replayed
# `faults - zero_page_maps` of the workload's processes.
#
# Knobs: 4K = top-level enabled and every hugepages-*kB/enabled `never`; size S = the same
# but hugepages-SkB/enabled `always` (per-size `always` acts whatever the top-level says,
# which only serves `inherit` sizes; with PMD THP off khugepaged sleeps). Every knob is
# saved first and restored on exit, on failure and on INT, TERM or HUP.
#
# Per command, kernel and size one line
#	MTHP cmd="..." kernel=K size=16K host_4k=N host=N folios=N guest_order0=N guest=N
#	     real=-P% sim=-P% gap=P
# and the cross-check lines HOST (minor faults, median) before them; per kernel
#	KERNEL kernel=K worst_gap_points=X
# and last the worst over every kernel: worst_gap_points=X
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
FT=$TOP/build/foliotrace
T=/sys/kernel/tracing
RUNS=3
SIZES="16 32 64"
KERNELS=6.1
DIR=$TOP/build/host-mthp
TRACE_KB=${FT_TRACE_KB:-131072}	# per-cpu trace buffer, KiB: must hold every order-0 event

me=bench/host-mthp.sh
die() { echo "$me: $*" >&2; exit 1; }
usage() { echo "usage: sh $me [-n RUNS] [-d DIR] [--kernel 6.1|6.12[,...]] [CMD ...]" >&2; exit 2; }
while [ $# -gt 0 ]; do
	case $1 in
	-n) [ $# -ge 2 ] || usage; RUNS=$2; shift 2 ;;
	-d) [ $# -ge 2 ] || usage; DIR=$2; shift 2 ;;
	--kernel) [ $# -ge 2 ] || usage; KERNELS=$(echo "$2" | tr , ' '); shift 2 ;;
	--) shift; break ;;
	-*) usage ;;
	*) break ;;
	esac
done
case $RUNS in '' | *[!0-9]* | 0) usage ;; esac
for k in $KERNELS; do
	case $k in 6.1 | 6.12) ;; *) echo "$me: --kernel: no guest kernel $k (6.1, 6.12)" >&2; exit 2 ;; esac
done
[ -n "$KERNELS" ] || usage

. "$TOP/bench/host-lib.sh"
# shellcheck disable=SC2086 # the sizes are split on purpose
knobs_check $SIZES
command -v /usr/bin/time > /dev/null || die "/usr/bin/time (GNU time) is missing"

mkdir -p "$DIR"
DIR=$(cd "$DIR" && pwd)
W=$(mktemp -d "$DIR/run.XXXXXX")
MOUNTED= CHILD= IZ= IL=
cleanup_more() {
	for i in $IZ $IL; do
		[ -d "$i" ] || continue
		echo 0 > "$i/events/kmem/mm_page_alloc/enable" 2> /dev/null || :
		rmdir "$i" 2> /dev/null || :
	done
	[ -z "$MOUNTED" ] || umount "$T" 2> /dev/null || :
}
host_traps

# guest KERNEL CMD: the recording on KERNEL (bench/host-lib.sh) replayed under the sizes;
# "POLICY allocating_faults" lines (called with a redirection, not in a subshell: CHILD)
guest() {
	recording "$1" "$2"
	replay_sizes "$2"
	awk -v RS='"policy":"' 'NR > 1 {
		p = substr($0, 1, index($0, "\"") - 1)
		match($0, /"faults":[0-9]+/); f = substr($0, RSTART + 9, RLENGTH - 9)
		match($0, /"zero_page_maps":[0-9]+/); z = substr($0, RSTART + 17, RLENGTH - 17)
		print p, f - z }' "$W/replay.json"
}

make -s -C "$TOP" >&2
[ $# -gt 0 ] || { default_cmds; set -- "$CMD_XZ" "$CMD_PY" "$CMD_GCC" "$CMD_KBUILD"; }

# The guest side first, before the knobs' lock is taken (the recordings take minutes; only
# the host runs need the knobs): command N's replay on kernel K in $W/sim-N-K
n=0
for cmd in "$@"; do
	n=$((n + 1))
	for k in $KERNELS; do
		guest "$k" "$cmd" > "$W/sim-$n-$k"
	done
done

# Save every knob this script may write (bench/host-lib.sh).
knobs_save

# The tracepoint, in two private instances: IZ counts order-0 zeroed movable allocations,
# IL large anonymous folios. Counting = the events in the buffer, so none may be lost.
[ -f "$T/trace_marker" ] || { mount -t tracefs nodev "$T" && MOUNTED=1; } ||
	die "cannot mount tracefs on $T"
FMT=$T/events/kmem/mm_page_alloc/format
[ -r "$FMT" ] || die "no kmem:mm_page_alloc tracepoint in $T"
# bit GFP_NAME: the flag's bit as this kernel's print fmt gives it ({... << (N))), "NAME"})
bit() {
	b=$(sed -n "s/.*<< (\([0-9]*\)))), \"$1\".*/\1/p" "$FMT")
	[ -n "$b" ] || die "cannot find $1 in $FMT"
	echo $((1 << b))
}
ZERO=$(bit __GFP_ZERO) MOVABLE=$(bit __GFP_MOVABLE) NOMEMALLOC=$(bit __GFP_NOMEMALLOC)
IZ=$T/instances/ft-host-mthp-$$-0
IL=$T/instances/ft-host-mthp-$$-L
for i in "$IZ" "$IL"; do
	mkdir "$i"
	echo "$TRACE_KB" > "$i/buffer_size_kb"
	echo 1 > "$i/options/event-fork"
done
echo "order == 0 && gfp_flags & $ZERO && gfp_flags & $MOVABLE" \
	> "$IZ/events/kmem/mm_page_alloc/filter"
echo "order > 0 && gfp_flags & $NOMEMALLOC && gfp_flags & $MOVABLE" \
	> "$IL/events/kmem/mm_page_alloc/filter"

# events INSTANCE: events in its buffer; fails if any was lost
events() {
	awk -v i="$1" '/^entries:/ { n += $2 } /^overrun:|^commit overrun:|^dropped events:/ { lost += $NF }
		END { if (lost) { printf "%s: %d events lost: raise FT_TRACE_KB\n", i, lost > "/dev/stderr"; exit 1 }
		      print n }' "$1"/per_cpu/cpu*/stats
}

# host SIZE_KB CMD: run CMD under the knobs, print "allocs folios minflt"
host() {
	knobs "$1"
	for i in "$IZ" "$IL"; do
		echo > "$i/trace"
	done
	# The wrapper puts itself in both pid lists before the events are enabled, then execs
	# CMD: only the command's process tree is counted. setsid: its own session, so an
	# interrupted run is ended whole.
	FT_IZ=$IZ FT_IL=$IL setsid /usr/bin/time -f %R -o "$W/minflt" sh -c '
		for i in "$FT_IZ" "$FT_IL"; do
			echo $$ > "$i/set_event_pid"
			echo 1 > "$i/events/kmem/mm_page_alloc/enable"
		done
		exec sh -c "$1"' sh "$2" > /dev/null 2> "$W/host.err" < /dev/null 9>&- &
	CHILD=$!
	wait "$CHILD" || { CHILD=; cat "$W/host.err" >&2; die "host run failed: $2"; }
	CHILD=
	for i in "$IZ" "$IL"; do
		echo 0 > "$i/events/kmem/mm_page_alloc/enable"
	done
	knobs 4
	z=$(events "$IZ") && l=$(events "$IL") || die "trace buffer overflow on: $2"
	echo "$((z + l)) $l $(cat "$W/minflt")"
}

cd "$W"
echo "$me: $(uname -r), $(nproc) cpus, load average $(cut -d' ' -f1-3 /proc/loadavg)," \
	"$RUNS runs per setting"
: > "$W/gaps"
n=0
for cmd in "$@"; do
	n=$((n + 1))
	host 4 "$cmd" > /dev/null	# warm-up: page cache, dentries
	interleave "$cmd"
	base=$(median "$W/h4" 1)
	[ "$base" -gt 0 ] || die "no anonymous faults counted on the host: $cmd"
	echo "HOST cmd=\"$cmd\" 4K allocating_faults=$base minflt=$(median "$W/h4" 3)" \
		"runs=$(awk '{ printf "%s%s", (NR > 1 ? "," : ""), $1 }' "$W/h4")"
	for s in $SIZES; do
		echo "HOST cmd=\"$cmd\" ${s}K allocating_faults=$(median "$W/h$s" 1) folios=$(median "$W/h$s" 2)" \
			"minflt=$(median "$W/h$s" 3) minflt_saved=$(($(median "$W/h4" 3) - $(median "$W/h$s" 3)))" \
			"allocs_saved=$((base - $(median "$W/h$s" 1))) runs=$(awk '{ printf "%s%s", (NR > 1 ? "," : ""), $1 }' "$W/h$s")"
	done
	for k in $KERNELS; do
		sbase=$(awk '$1 == "order0" { print $2 }' "$W/sim-$n-$k")
		[ -n "$sbase" ] && [ "$sbase" -gt 0 ] ||
			die "no anonymous faults in the $k recording: $cmd"
		for s in $SIZES; do
			sim=$(awk -v p="mthp:${s}K" '$1 == p { print $2 }' "$W/sim-$n-$k")
			awk -v c="$cmd" -v k="$k" -v s="$s" -v b="$base" -v n="$(median "$W/h$s" 1)" \
				-v sb="$sbase" -v sn="$sim" -v f="$(median "$W/h$s" 2)" 'BEGIN {
				real = 100 * (n / b - 1); sim = 100 * (sn / sb - 1)
				gap = real - sim; if (gap < 0) gap = -gap
				printf "MTHP cmd=\"%s\" kernel=%s size=%sK host_4k=%d host=%d folios=%d " \
				       "guest_order0=%d guest=%d real=%.1f%% sim=%.1f%% gap=%.1f\n",
				       c, k, s, b, n, f, sb, sn, real, sim, gap
				print k, gap >> "gaps" }'
		done
	done
done
for k in $KERNELS; do
	awk -v k="$k" 'BEGIN { w = 0 } $1 == k && $2 > w { w = $2 }
		END { printf "KERNEL kernel=%s worst_gap_points=%.1f\n", k, w }' "$W/gaps"
done
awk 'BEGIN { w = 0 } $2 > w { w = $2 } END { printf "worst_gap_points=%.1f\n", w }' "$W/gaps"
