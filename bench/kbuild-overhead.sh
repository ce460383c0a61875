#!/bin/sh
# bench/kbuild-overhead.sh - what recording costs kbuild, the third workload of issue 24's
# tracing-overhead goal (at most 1.10), which bench/overhead.sh's guest cannot run: kbuild
# compiles from a root filesystem share, and that guest has none.
#
#   sh bench/kbuild-overhead.sh [ROUNDS]
#
# The bundled kbuild in an x86_64 6.1 guest on the instruction counter (--clock icount:
# guest time is instructions executed, 1 ns each, idle skipped; 1 cpu), ROUNDS times
# (default 1), each round in this order: recorded as `foliotrace record --clock icount --
# kbuild` records it (the faults in anon_fault_batch events), recorded with one anon_fault
# per fault (FT_FAULT_BATCH=0: as before kernel patch 0008), and run untraced (run.sh
# --mode run) with the program, directory, environment and root the first recording used
# (its trace directory's exec, cwd, env, header/rootfs, cmd). Each run's time is the
# guest's busy time while kbuild ran (header workload_busy_seconds: /proc/stat's non-idle
# ticks, 10 ms; with 1 cpu under icount, the instructions executed, by every process: the
# compilers', the tracer's). Not its elapsed guest time (workload_seconds, printed too):
# kbuild reads its tree over 9p, and while the guest waits for the host's I/O the
# instruction counter's clock warps to the next timer, however short the wait, which adds
# idle time that has nothing to do with the work (one run: 102 s elapsed untraced, 133 s
# recorded one event a fault, 185 s batched). One line per run, then per mode the median
# over the rounds and its ratio to the untraced one's. Last lines:
#
#   overhead_kbuild_unbatched=R
#   overhead_kbuild=R
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
FT=$TOP/build/foliotrace
rounds=${1:-1}
case $rounds in '' | *[!0-9]* | 0) echo "usage: sh bench/kbuild-overhead.sh [ROUNDS]" >&2; exit 2 ;; esac
T=$(mktemp -d "${TMPDIR:-/tmp}/foliotrace-kbuild-overhead.XXXXXX")
trap 'rm -rf "$T"' EXIT
echo "bench/kbuild-overhead.sh: $(nproc) host cpus, load average $(cut -d' ' -f1-3 /proc/loadavg); x86_64 guest, clock icount; $rounds rounds" >&2

secs() { # secs DIR: "BUSY elapsed=ELAPSED"
	echo "$(cat "$1/header/workload_busy_seconds" 2>/dev/null || echo "?")" \
		"elapsed=$(cat "$1/header/workload_seconds" 2>/dev/null || echo "?")"
}
say() { echo "KB round=$1 mode=$2 seconds=$3"; }

i=1
while [ $i -le "$rounds" ]; do
	for mode in traced unbatched; do
		db=$T/$mode-$i.db
		batch=1
		[ $mode = traced ] || batch=0
		FT_FAULT_BATCH=$batch "$FT" record --clock icount -o "$db" -- kbuild \
			> "$T/out" 2> "$T/err" || {
			tail -3 "$T/err" >&2
			echo "bench/kbuild-overhead.sh: record -- kbuild failed ($mode, round $i)" >&2
			exit 1
		}
		d=$(ls -d "$db".ctf/*/ | head -n 1)
		say $i $mode "$(secs "$d")"
		[ $mode = traced ] && src=$d
	done
	# the untraced run: what the first recording ran, as it ran it
	set -- --arch x86_64 --clock icount --mode run --out "$T/plain-$i" \
		--exec "$(cat "$src/exec")" --cwd "$(cat "$src/cwd")" \
		--rootfs "$(cat "$src/header/rootfs")"
	while IFS= read -r e; do
		[ -n "$e" ] && set -- "$@" --env "$e"
	done < "$src/env"
	set -- "$@" --
	while IFS= read -r a; do
		set -- "$@" "$a"
	done < "$src/cmd"
	sh "$TOP/guest-kernel/run.sh" "$@" > "$T/out" 2> "$T/err" || {
		tail -3 "$T/err" >&2
		echo "bench/kbuild-overhead.sh: the untraced kbuild failed (round $i)" >&2
		exit 1
	}
	say $i plain "$(secs "$T/plain-$i")"
	grep -q '^RESULT kbuild .* status=0' "$T/plain-$i/workload.out" || {
		echo "bench/kbuild-overhead.sh: the untraced kbuild did not build (round $i)" >&2
		exit 1
	}
	rm -rf "$T"/*.db "$T"/*.db.ctf "$T/plain-$i"
	i=$((i + 1))
done | tee "$T/kb"
awk -f "$TOP/bench/median.awk" -f "$TOP/bench/kbuild-overhead.awk" "$T/kb"
