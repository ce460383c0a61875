#!/bin/sh
# bench/plugin.sh - a policy plugin against the same rule built in: contrib/policies/
# mthp-like.so beside the built-in mthp, the same size lists, side by side in one
# `foliotrace replay` pass (the simulators take turns on each 4096-event batch, so both
# see the same load), REPS passes. Each policy's time is replay's elapsed_ns: the time in
# its simulator, the plugin's guard (one sigsetjmp per batch) and hooks included.
#
#   sh bench/plugin.sh [NR_FAULTS] [REPS]     default 10000000 5
#
# The stream is SYNTHETIC (replay/synth.c kbuild-like, written by tests/cli/synth-db.c).
# Per pass and size list: speed = builtin time / plugin time (1.0: as fast; the issue's
# bar is 0.5); then plugin_speed_min=R plugin_speed_median=R over every pass and size
# list. With valgrind, last, the count that does not move with the load: instructions per
# event inside the simulator (bench/replay-cg.sh's way, 1M faults, the plugin's code
# included) of mthp and of the plugin for two size lists, and their ratio, ir_speed=R.
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP"
N=${1:-10000000}
REPS=${2:-5}
make -s build/foliotrace build/testprogs/synth-db policies
DIR=$(mktemp -d "$TOP/build/bench-plugin.XXXXXX")
trap 'rm -rf "$DIR"' EXIT
build/testprogs/synth-db "$DIR/k.db" kbuild-like 1 "$N" > /dev/null
echo "bench/plugin.sh: $(nproc) cpus, load average $(cut -d' ' -f1-3 /proc/loadavg)" \
	"(the machine is shared: numbers move with the load)"
SIZES="16K,32K,64K 16K 8K,1M"
set --
for s in $SIZES; do
	set -- "$@" -P "mthp:$s" -P "plugin:build/policies/mthp-like.so:$s"
done
i=0
while [ $i -lt "$REPS" ]; do
	build/foliotrace replay "$DIR/k.db" -q -n "$@" --format json > "$DIR/run-$i.json"
	i=$((i + 1))
done
python3 - "$DIR" "$REPS" <<'PY'
import json, statistics, sys
d, reps = sys.argv[1], int(sys.argv[2])
speeds = []
for i in range(reps):
    runs = json.load(open("%s/run-%d.json" % (d, i)))["runs"][1:]
    if i == 0:
        print("stream: SYNTHETIC 'kbuild-like' from replay/synth.c: %d events, %d faults under order0"
              % (json.load(open("%s/run-0.json" % d))["events"],
                 json.load(open("%s/run-0.json" % d))["runs"][0]["metrics"]["faults"]))
    for b, p in zip(runs[0::2], runs[1::2]):
        assert b["metrics"] == p["metrics"], (b["policy"], p["policy"])
        s = b["elapsed_ns"] / p["elapsed_ns"]
        speeds.append(s)
        print("pass %d  %-22s %9.1f ms  %-32s %9.1f ms  speed %.3f  (%d faults, metrics equal)"
              % (i + 1, b["policy"], b["elapsed_ns"] / 1e6, p["policy"], p["elapsed_ns"] / 1e6,
                 s, b["metrics"]["faults"]))
print("plugin_speed_min=%.3f plugin_speed_median=%.3f" % (min(speeds), statistics.median(speeds)))
PY
command -v valgrind > /dev/null || { echo "valgrind missing: no instruction counts"; exit 0; }
${CC:-gcc} -O2 -g -std=gnu11 -D_GNU_SOURCE -I. -Ibuild/gen -o "$DIR/bench" bench/replay-bench.c \
	build/libft.a -lsqlite3 -lm -ldl
# ir POLICY: instructions per event in rp_sim_new/feed_sites/finish/free and their callees
ir() {
	FT_BENCH_REPS=1 valgrind --tool=callgrind --toggle-collect=rp_sim_new \
		--toggle-collect=rp_sim_feed_sites --toggle-collect=rp_sim_finish \
		--toggle-collect=rp_sim_free --callgrind-out-file="$DIR/cg.out" "$DIR/bench" \
		kbuild-like 1000000 "$1" > "$DIR/out" 2> "$DIR/err"
	n=$(callgrind_annotate "$DIR/cg.out" | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }')
	ev=$(sed -n 's/^stream: .*: \([0-9]*\) events, .*/\1/p' "$DIR/out")
	echo "scale=1; $n / 2 / $ev" | bc	# the policy's pass and the one-pass run
}
for s in 16K,32K,64K 16K; do
	b=$(ir "mthp:$s")
	p=$(ir "plugin:build/policies/mthp-like.so:$s")
	echo "mthp:$s ir_per_event=$b plugin:mthp-like:$s ir_per_event=$p ir_speed=$(echo "scale=3; $b / $p" | bc)"
done
