#!/bin/sh
# bench/sites-stops.sh - the cost of ft-sites' stops alone, in the guest: bench/sites-stops.c
# (static) recorded as a workload; prints its STOPS lines (docs/sites.md, "Cost").
#
#   sh bench/sites-stops.sh [--arch A] [N]	(N map+unmap pairs per run, default 500)
#
# Per mode the workload's time per traced call and what the tracing adds to it
# (extra_ns_per_call): one stop with PTRACE_CONT, with PTRACE_GETREGS (ft-sites' stop), and
# two stops (PTRACE_SYSCALL to the syscall-exit stop: ft-sites before side file version 2);
# each also with tracer and workload on one CPU ("-cpu0") and on two ("-split"). The
# fastest of 3 interleaved runs each. All of it twice: in a guest whose idle vCPUs halt
# (idle=halt, as plain recordings run), and in one whose idle vCPUs poll (idle=poll, as
# `record --sites` runs: guest-kernel/run.sh).
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
FT=$TOP/build/foliotrace
ARCH=x86_64
[ "${1:-}" != --arch ] || { ARCH=$2; shift 2; }
N=${1:-500}
CC=cc
[ "$ARCH" = x86_64 ] || CC=aarch64-linux-gnu-gcc
make -s -C "$TOP" >&2
D=$(mktemp -d "${TMPDIR:-/tmp}/sites-stops.XXXXXX")
trap 'rm -rf "$D"' EXIT
$CC -O2 -Wall -static -o "$D/sites-stops" "$TOP/bench/sites-stops.c"
echo "bench/sites-stops.sh: $ARCH, $(nproc) cpus, load average" \
	"$(cut -d' ' -f1-3 /proc/loadavg) (the machine is shared: numbers move with the load)"
# once with idle vCPUs halting (a plain recording), once polling (as --sites records)
for poll in 0 1; do
	FT_IDLE_POLL=$poll "$FT" record --arch "$ARCH" -o "$D/s$poll.db" -- "$D/sites-stops" "$N" \
		> /dev/null 2> "$D/err" || { cat "$D/err" >&2; exit 1; }
	sed -n "s/^STOPS /STOPS idle=$([ $poll = 1 ] && echo poll || echo halt) /p" \
		"$D"/s$poll.db.ctf/*/workload.out
done
