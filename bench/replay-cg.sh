#!/bin/sh
# bench/replay-cg.sh - instructions per event of each policy's simulator, counted by
# callgrind: unlike bench/replay.sh's times, the count does not move with the machine's load.
#
#   sh bench/replay-cg.sh [NR_FAULTS] [GENERATOR|DB]     default 1000000 kbuild-like
#   FT_BENCH_POLICIES="thp thp+khugepaged" sh bench/replay-cg.sh ...   other policies
#
# Runs bench/replay-bench.c once per policy under valgrind --tool=callgrind, collecting
# only inside the simulator (rp_sim_new/feed_sites/finish/free) with FT_BENCH_REPS=1: the
# policy's own pass and the one-pass run of that one policy, so the count is halved.
# Prints "POLICY ir_per_event=N" per policy, then the plain read's count the same way
# (time_scan runs 3 times then: alone, beside the policy, beside the one pass).
# The functions are named one by one, none calling another: --toggle-collect flips
# collection at each entry and exit, so a matching function entered from another one
# (rp_sim_feed jumps to rp_sim_feed_sites) would switch collection off instead.
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP"
N=${1:-1000000}
GEN=${2:-kbuild-like}
command -v valgrind > /dev/null || { echo "bench/replay-cg.sh: valgrind is missing" >&2; exit 1; }
make -s build/libft.a
W=$(mktemp -d "${TMPDIR:-/tmp}/replay-cg.XXXXXX")
trap 'rm -rf "$W"' EXIT
${CC:-gcc} -O2 -g -std=gnu11 -D_GNU_SOURCE -I. -Ibuild/gen -o "$W/bench" bench/replay-bench.c \
	build/libft.a -lsqlite3 -lm
# ir "FN..." POLICY: instructions counted inside the functions FN...
ir() {
	tc=
	for f in $1; do tc="$tc --toggle-collect=$f"; done
	FT_BENCH_REPS=1 valgrind --tool=callgrind $tc \
		--callgrind-out-file="$W/cg.out" "$W/bench" "$GEN" "$N" "$2" > "$W/out" 2> "$W/err"
	callgrind_annotate "$W/cg.out" | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }'
}
for p in ${FT_BENCH_POLICIES:-order0 mcpage:2 mcpage:4 mthp:16K,32K,64K faultaround:16 thp adaptive}; do
	n=$(ir 'rp_sim_new rp_sim_feed_sites rp_sim_finish rp_sim_free' "$p")
	ev=$(sed -n 's/^stream: .*: \([0-9]*\) events, .*/\1/p' "$W/out")
	echo "$p ir_per_event=$(echo "scale=1; $n / 2 / $ev" | bc)"
done
echo "scan (plain read) ir_per_event=$(echo "scale=1; $(ir time_scan order0) / 3 / $ev" | bc)"
