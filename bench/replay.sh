#!/bin/sh
# bench/replay.sh - replay engine throughput per policy, side by side with a plain
# sequential read of the same in-memory stream (and the event_chunk decoder), one run.
#
#   sh bench/replay.sh [NR_FAULTS] [GENERATOR|DB]     default 10000000 kbuild-like
#
# The stream is SYNTHETIC (replay/synth.c, named in the output), or the newest trace of the
# trace database DB (a recorded one: NR_FAULTS is then ignored).
# Last line: replay_faults_per_s=N scan_ratio=R, where R is the lowest over the policies of
# (plain read time / replay time), each policy timed alternately with the plain read (best
# of 5 each: the load of a shared machine moves both alike), and N that policy's rate of
# FAULT records replayed per second on one core: 1.0 would mean replaying costs no more
# than reading the stream.
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP"
N=${1:-10000000}
GEN=${2:-kbuild-like}
make -s build/libft.a
BIN=$(mktemp "${TMPDIR:-/tmp}/replay-bench.XXXXXX")
trap 'rm -f "$BIN"' EXIT
${CC:-gcc} -O2 -g -std=gnu11 -D_GNU_SOURCE -I. -Ibuild/gen -o "$BIN" bench/replay-bench.c \
	build/libft.a -lsqlite3 -lm
echo "bench/replay.sh: $(nproc) cpus, load average $(cut -d' ' -f1-3 /proc/loadavg)" \
	"(the machine is shared: numbers move with the load)"
"$BIN" "$GEN" "$N" order0 mcpage:2 mcpage:4 mthp:16K,32K,64K faultaround:16 thp adaptive
