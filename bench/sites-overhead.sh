#!/bin/sh
# bench/sites-overhead.sh - what `record --sites` costs the workload: each workload recorded
# without and with the call-site tracer, one after the other in one run (docs/sites.md).
#
#   sh bench/sites-overhead.sh [--arch A] [--clock tcg|icount] [--baseline DIR] [--repeat N]
#	[WORKLOAD_COMMAND...]
#	default: "pf-loop --size 64M --loops 4" "malloc-churn --size 32M --loops 2"
#		 "kv-redis --requests 2000" kbuild
#
# Guest time of a run: from the first to the last event of the workload's own processes
# (process.workload = 1: the tree ft-launch started, without ft-sites and the guest's
# setup), on the trace clock. Per workload one line:
#	SITES workload="..." faults=N calls=N calls_per_100_faults=R plain_ns=N sites_ns=N
#	      ratio=R [base_sites_ns=N base_ratio=R] tracer: stops=N unwinds=N frames=N
#	      unwind_us=N page_reads=N peeks=N maps_reads=N regs_us=N resume_us=N max_stop_us=N
# where calls are the traced mapping calls of the --sites run, ratio = sites_ns/plain_ns,
# and the tracer's counters come from the side file's last line (tracer/guest/ft-sites.c).
# --clock icount records on the instruction counter (record --clock; docs/guest.md,
# "Clock"): guest time is instructions executed, 1 ns each, idle skipped, so the ratio is
# the work the tracer adds, whatever the host's load (x86_64: 1 cpu).
# --baseline DIR: another foliotrace checkout, built (e.g. `git archive COMMIT | tar -x`,
# then make): its `record --sites` runs too, right after the plain run, so an old and a
# new tracer are compared in one run on the same load (base_ratio = base_sites_ns/plain_ns).
# --repeat N: each configuration N times, interleaved (plain, baseline, sites, plain, ...);
# each span is the shortest of its N (the load of a shared machine only adds time).
# The goal (issue 14): ratio <= 1.10 for every workload under 1 call per 100 faults.
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
FT=$TOP/build/foliotrace
ARCH=x86_64
CLOCK=tcg
BASE=
REPEAT=1
while [ $# -gt 0 ]; do
	case $1 in
	--arch) ARCH=$2; shift 2 ;;
	--clock)
		case $2 in tcg|icount) CLOCK=$2 ;;
		*) echo "bench/sites-overhead.sh: --clock is tcg or icount" >&2; exit 2 ;; esac
		shift 2 ;;
	--baseline) BASE=$(cd "$2" && pwd); shift 2 ;;
	--repeat) REPEAT=$2; shift 2 ;;
	*) break ;;
	esac
done
[ -z "$BASE" ] || [ -x "$BASE/build/foliotrace" ] ||
	{ echo "bench/sites-overhead.sh: no $BASE/build/foliotrace: build the baseline first" >&2
	  exit 1; }
[ $# -gt 0 ] || set -- "pf-loop --size 64M --loops 4" "malloc-churn --size 32M --loops 2" \
	"kv-redis --requests 2000" kbuild
make -s -C "$TOP" >&2
D=$(mktemp -d "${TMPDIR:-/tmp}/sites-overhead.XXXXXX")
trap 'rm -rf "$D"' EXIT
echo "bench/sites-overhead.sh: $ARCH, clock $CLOCK, $(nproc) cpus, load average" \
	"$(cut -d' ' -f1-3 /proc/loadavg) (the machine is shared: numbers move with the load)"

# value DB TRACE SQL: one number (read with $FTQ, the foliotrace that wrote DB)
value() {
	"${FTQ:-$FT}" query "$1" --format csv sql "$3" | tail -n 1
}
span() { # span DB TRACE: guest time of the workload's processes, ns
	value "$1" "$2" "SELECT max(last_ts) - min(first_ts) FROM process
		WHERE trace_id = $2 AND workload = 1"
}

# rec FT DB WORKLOAD [--sites]: record; the run's span goes to $D/span
rec() {
	# shellcheck disable=SC2086 # the workload command is split on purpose
	"$1" record --arch "$ARCH" --clock "$CLOCK" ${4:-} -o "$2" -- $3 > /dev/null 2> "$D/err" ||
		{ cat "$D/err" >&2; exit 1; }
	FTQ=$1
	span "$2" "$(value "$2" 0 "SELECT max(trace_id) FROM trace")" > "$D/span"
	FTQ=
}
# min OLD: the smaller of OLD (empty: none yet) and the last span
min() {
	_s=$(cat "$D/span")
	[ -n "$_s" ] || { echo "bench/sites-overhead.sh: no span measured" >&2; exit 1; }
	if [ -z "$1" ] || [ "$_s" -lt "$1" ]; then echo "$_s"; else echo "$1"; fi
}

for w in "$@"; do
	plain= base= sites=
	i=0
	while [ $i -lt "$REPEAT" ]; do
		rec "$FT" "$D/plain.db" "$w"
		plain=$(min "$plain")
		if [ -n "$BASE" ]; then
			rec "$BASE/build/foliotrace" "$D/base.db" "$w" --sites
			base=$(min "$base")
		fi
		rec "$FT" "$D/sites.db" "$w" --sites
		sites=$(min "$sites")
		i=$((i + 1))
	done
	st=$(value "$D/sites.db" 0 "SELECT max(trace_id) FROM trace")
	faults=$(value "$D/sites.db" "$st" "SELECT sum(anon_faults) FROM process
		WHERE trace_id = $st AND workload = 1")
	calls=$(value "$D/sites.db" "$st" "SELECT count(*) FROM site_call
		WHERE trace_id = $st AND call <> 'none'")
	# the tracer's counters: the side file's last line (E ... stops=N ...)
	stats=$(tail -n 1 "$(ls -td "$D"/sites.db.ctf/*/ | head -n 1)sites.txt" |
		tr '\t' '\n' | grep = | tr '\n' ' ')
	awk -v w="$w" -v f="$faults" -v c="$calls" -v p="$plain" -v s="$sites" -v b="$base" \
	    -v st="$stats" 'BEGIN {
		printf "SITES workload=\"%s\" faults=%d calls=%d calls_per_100_faults=%.2f " \
		       "plain_ns=%.0f sites_ns=%.0f ratio=%.2f", w, f, c, f ? 100 * c / f : 0, p, s,
		       p ? s / p : 0
		if (b != "")
			printf " base_sites_ns=%.0f base_ratio=%.2f", b, p ? b / p : 0
		printf " tracer: %s\n", st }'
done
