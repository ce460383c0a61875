#!/bin/sh
# bench/sites-scale.sh - the site handling at the scale of a kbuild recording (issue 23):
# replay, compare --by site, report and advise on a SYNTHETIC trace (replay/synth.c's
# kbuild-like stream, stored by tests/cli/synth-db.c) given SITES distinct call sites and
# CALLS calls (call i at site i % SITES), one site_touch run per call over 2 events each.
# Each step's CPU time (user + system: the machine is shared, wall time moves with the
# load; wall time is printed too) and peak RSS (GNU time) at SITES/4, SITES/2 and SITES
# (CALLS likewise), and per step the larger ratio of its CPU time per doubling (1.0 flat,
# 2.0 linear, 4.0 quadratic). advise probes every site at every order (docs/sites.md, "How
# advise probes") on the same trace.
#
#   sh bench/sites-scale.sh [SITES [CALLS]]	(default 100000 1000000)
#
# Last line: sites_scale sites=N calls=M replay_cpu_s=.. compare_cpu_s=.. report_cpu_s=..
# advise_cpu_s=.. (at the largest scale) and the largest ratio per doubling.
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP"
SITES=${1:-100000}
CALLS=${2:-1000000}
FT=$TOP/build/foliotrace
make -s all build/testprogs/synth-db
[ -x /usr/bin/time ] || { echo "bench/sites-scale.sh: GNU time is missing" >&2; exit 1; }
command -v sqlite3 > /dev/null || { echo "bench/sites-scale.sh: sqlite3 is missing" >&2; exit 1; }
W=$(mktemp -d "${TMPDIR:-/tmp}/sites-scale.XXXXXX")
trap 'rm -rf "$W"' EXIT
echo "bench/sites-scale.sh: $(nproc) cpus, load average $(cut -d' ' -f1-3 /proc/loadavg)" \
	"(the machine is shared: times move with the load)"

. "$TOP/tests/cli/synth-sites.inc"
# mkdb DB SITES CALLS: the trace, 2 x CALLS faults, CALLS calls over SITES sites, one run
# per call
mkdb() {
	build/testprogs/synth-db "$1" kbuild-like 3 $((2 * $3)) > /dev/null
	synth_sites "$1" "$2" "$3" "$3"
}

# timed NAME CMD...: run CMD; "NAME wall_s user_s sys_s KiB" appended to $W/times
timed() {
	name=$1
	shift
	/usr/bin/time -f "$name %e %U %S %M" -a -o "$W/times" "$@" > /dev/null 2> "$W/err" || {
		echo "bench/sites-scale.sh: $name failed: $(tail -n 2 "$W/err")" >&2
		exit 1
	}
}

for div in 4 2 1; do
	s=$((SITES / div)) c=$((CALLS / div))
	db=$W/s$div.db
	mkdb "$db" "$s" "$c"
	timed "replay/$div" "$FT" replay "$db" -P order0 -P mcpage:4
	timed "compare/$div" "$FT" compare "$db" --by site
	timed "report/$div" "$FT" report "$db" -o "$W/r$div.html"
	timed "advise/$div" "$FT" advise "$db" -b 10
	echo "scale 1/$div: $s sites, $c calls, $((2 * c)) faults"
	rm -f "$db" "$W/r$div.html"
done
awk -v sites="$SITES" -v calls="$CALLS" '
	{ split($1, p, "/"); w[p[1], p[2]] = $2; t[p[1], p[2]] = $3 + $4; m[p[1], p[2]] = $5 }
	END {
		n = split("replay compare report advise", order, " ")
		printf "%-8s %9s %9s %9s %8s %8s %8s %8s %8s\n", "step", "cpu@1/4", "cpu@1/2",
			"cpu@1", "wall@1", "MiB@1/4", "MiB@1/2", "MiB@1", "x/doubl"
		for (i = 1; i <= n; i++) {
			k = order[i]
			r1 = t[k, 2] > 0 ? t[k, 1] / t[k, 2] : 0
			r2 = t[k, 4] > 0 ? t[k, 2] / t[k, 4] : 0
			r = r1 > r2 ? r1 : r2
			if (r > worst) worst = r
			printf "%-8s %9.2f %9.2f %9.2f %8.2f %8.1f %8.1f %8.1f %8.2f\n", k, t[k, 4],
				t[k, 2], t[k, 1], w[k, 1], m[k, 4] / 1024, m[k, 2] / 1024,
				m[k, 1] / 1024, r
		}
		printf "sites_scale sites=%d calls=%d replay_cpu_s=%.2f compare_cpu_s=%.2f " \
			"report_cpu_s=%.2f advise_cpu_s=%.2f worst_ratio_per_doubling=%.2f\n",
			sites, calls, t["replay", 1], t["compare", 1], t["report", 1],
			t["advise", 1], worst
	}' "$W/times"
