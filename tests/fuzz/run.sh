#!/bin/sh
# tests/fuzz/run.sh [SECONDS] - run each libFuzzer harness built in build-fuzz/fuzz/ (make
# fuzz-build; `make fuzz` does both) for SECONDS (default 60), starting from its seed
# corpus tests/fuzz/corpus/NAME/ (left unchanged: new inputs go to build-fuzz/corpus/NAME/)
# and its dictionary tests/fuzz/NAME.dict if any. Prints one line per harness: executions,
# corpus size and findings (crash, leak, timeout or out-of-memory inputs, kept in
# build-fuzz/findings/NAME/; the log is build-fuzz/logs/NAME.log). Exit 1 on any finding.
#
# Reproduce a finding: build-fuzz/fuzz/NAME build-fuzz/findings/NAME/crash-...
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
cd "$TOP"
secs=${1:-60}
found=0
n=0
for h in build-fuzz/fuzz/*; do
	[ -x "$h" ] || continue
	name=$(basename "$h")
	n=$((n + 1))
	seed=tests/fuzz/corpus/$name
	work=build-fuzz/corpus/$name
	finds=build-fuzz/findings/$name
	log=build-fuzz/logs/$name.log
	dict=tests/fuzz/$name.dict
	[ -d "$seed" ] || { echo "$name: no seed corpus $seed" >&2; exit 1; }
	rm -rf "$finds"
	mkdir -p "$work" "$finds" build-fuzz/logs
	[ -f "$dict" ] || dict=
	# scratch files of a harness (fuzz-header's directory and database): in memory if can
	tmp=$(mktemp -d "$( [ -w /dev/shm ] && echo /dev/shm || echo "${TMPDIR:-/tmp}")/ft-fuzz.XXXXXX")
	TMPDIR=$tmp "$h" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="$finds/" ${dict:+-dict="$dict"} \
		"$work" "$seed" > "$log" 2>&1
	rc=$?
	rm -rf "$tmp"
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	# a crash ends the run before the final stats: take the last progress line instead
	[ -n "$execs" ] || execs=$(sed -n 's/^#\([0-9]*\).*/\1/p' "$log" | tail -1)
	nfind=$(ls "$finds" | wc -l)
	echo "$name: ${execs:-0} executions in ${secs}s, corpus $(ls "$work" | wc -l) inputs" \
		"(seeds $(ls "$seed" | wc -l)), $nfind findings (exit $rc)"
	if [ "$nfind" != 0 ] || [ $rc != 0 ]; then
		found=1
		grep -m1 -A12 '==ERROR\|runtime error\|ERROR: libFuzzer\|deadly signal' "$log" |
			sed 's/^/    /'
		ls "$finds" | sed 's/^/    finding: /'
	fi
done
[ $n -gt 0 ] || { echo "no harness in build-fuzz/fuzz: run make fuzz-build" >&2; exit 1; }
exit $found
