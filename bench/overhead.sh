#!/bin/sh
# bench/overhead.sh - what recording costs the workload: guest time with the anon events
# recorded and not recorded, side by side in one guest boot.
#
#   sh bench/overhead.sh [--clock tcg|icount] [ROUNDS]
#
# One x86_64 guest (FT_BENCH_ARCH to change) of the cached build boots in run.sh's ready
# mode (LTTng's session daemon up, its modules and the anon probe loaded, no session) and
# runs bench/overhead-guest.sh: each workload alternately without a session and with the
# recording session record uses (run.sh's channel chan0 and event list; FT_SUBBUF,
# FT_NSUBBUF and FT_LTTNG_OPTS, extra enable-channel options, to try others), ROUNDS
# times (default 3). The guest time of each run comes from /proc/uptime in the guest;
# per workload the ratio of the medians (traced / plain) is printed. --clock icount runs
# the guest on the instruction counter (run.sh --clock; docs/guest.md, "Clock"): guest time
# is then instructions executed, 1 ns each, idle skipped, so the ratio is the work tracing
# adds, whatever the host's load (x86_64: 1 cpu). Workloads: pf-loop
# --size 64M --loops 16 (a fault and nothing else), malloc-churn, kv-redis --requests
# 2000 (when the host has redis to copy in); not kbuild, which runs from a root
# filesystem share in a tree prepared on the host (workloads/kbuild.sh), which this guest
# has not. FT_OVERHEAD_WORKLOADS, an extended regular expression, picks some (e.g.
# 'pf-loop'). FT_OVERHEAD_MODES adds the modes of bench/overhead-guest.sh that split the
# cost (tmpfs, snapshot, faults, filtered, pinned, allocs, pagealloc, unbatched, batch),
# each printed as its own ratio to the untraced time. Fails if a recording run discarded events or
# reported another minflt than the untraced run of its round. Last lines:
#
#   overhead_pfloop=R
#   overhead_worst=R workload=NAME	(over the workloads other than pf-loop)
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
clock=tcg
if [ "${1:-}" = --clock ]; then
	case ${2:-} in tcg|icount) clock=$2 ;; *) echo "usage: sh bench/overhead.sh [--clock tcg|icount] [ROUNDS]" >&2; exit 2 ;; esac
	shift 2
fi
rounds=${1:-3}
arch=${FT_BENCH_ARCH:-x86_64}
T=$(mktemp -d "${TMPDIR:-/tmp}/foliotrace-overhead.XXXXXX")
trap 'rm -rf "$T"' EXIT
tab=$(printf '\t')
{
	echo "pf-loop${tab}pf-loop --size 64M --loops 16"
	echo "malloc-churn${tab}malloc-churn"
	if command -v redis-server > /dev/null; then echo "kv-redis${tab}kv-redis --requests 2000"; fi
} | grep -E "^(${FT_OVERHEAD_WORKLOADS:-[^	]*})$tab" > "$T/overhead.list"
# plain and traced, and the modes that split the cost (bench/overhead-guest.sh)
modes="plain traced ${FT_OVERHEAD_MODES:-}"
# run.sh's event list (guest-kernel/events.sh: FT_FAULT_BATCH=0, one event a fault) and
# channel defaults (the same variables record uses)
events=$(. "$TOP/guest-kernel/events.sh" && echo "$EVENTS")
subbuf=${FT_SUBBUF:-8M} nsubbuf=${FT_NSUBBUF:-8}
echo "bench/overhead.sh: $(nproc) host cpus, load average $(cut -d' ' -f1-3 /proc/loadavg); $arch guest, clock $clock; chan0 $nsubbuf x $subbuf ${FT_LTTNG_OPTS:-}" >&2
set +e
sh "$TOP/guest-kernel/run.sh" --arch "$arch" --clock "$clock" --mode ready --out "$T/out" \
	--timeout "${FT_GUEST_TIMEOUT:-3600}" \
	--file "$TOP/bench/overhead-guest.sh" --file "$T/overhead.list" -- \
	sh /mnt/out/in/overhead-guest.sh "$rounds" "$subbuf" "$nsubbuf" "$events" \
	/mnt/out/in/overhead.list "$modes" "${FT_LTTNG_OPTS:-}" >&2
rc=$?
set -e
[ -f "$T/out/workload.out" ] && grep '^OH ' "$T/out/workload.out" > "$T/oh" || :
if [ $rc != 0 ]; then
	cat "$T/out/workload.out" >&2 2>/dev/null
	echo "bench/overhead.sh: the guest run failed (run.sh exit $rc)" >&2
	exit 1
fi
cat "$T/oh"
awk -f "$TOP/bench/median.awk" -f "$TOP/bench/overhead.awk" "$T/oh"
