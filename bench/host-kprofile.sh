#!/bin/sh
# bench/host-kprofile.sh - where a command's kernel time goes on this host under 4K and
# under each mTHP size, and so how much of its change a fault model can price (issue 24
# item 4: "say what the model misses"). Each run samples the command's process tree in a
# cgroup v2 group of its own (`perf record -a -G`, so that the teardown at exit is seen:
# vm/ksample.h) every 250 us of its kernel-mode run time, with call chains; each sample is
# put in the first class its chain matches (bench/kprofile-classes.awk; teardown first, as
# an exit's zap is under do_exit, a fault's entry last of the faults):
#
#	teardown     exit_mmap, munmap (zap, freeing the folios and the page tables)
#	fault:anon   do_anonymous_page (allocation, zeroing, the PTEs)
#	fault:cow    do_wp_page, wp_page_copy
#	fault:file   do_read_fault, do_cow_fault, do_shared_fault, filemap_map_pages
#	fault:entry  the rest under exc_page_fault: the exception, the VMA lookup, the page
#	             table's allocation, the return (on this VM most samples land on
#	             exc_page_fault itself, where it enables interrupts)
#	exec, fork, exit (the rest of do_exit), mmap (mmap, brk), rw (read, write),
#	syscall (the other system calls), other (interrupts and the rest)
#
#   sh bench/host-kprofile.sh [-n RUNS] [-r REP] [-l LEAVES] [-d DIR] [CMD ...]
#	(root, perf; CMD a `sh -c` string)
#	default: bench/host-time.sh's commands (xz, python3, gcc -O2 -c, kbuild)
#
# RUNS rounds (default 5) of one run per setting, 4K then 16K, 32K, 64K, after a warm-up
# run; a run is CMD REP times in a row, reported per invocation: REP as given, or by
# default as many as make a run last FT_HOST_KPROFILE_S seconds (default 3; from the
# warm-up's wall time, at most 1000), since a command of 40 ms of kernel time is 160
# samples a run. Per command,
# setting and class the mean over the runs (ms per invocation), the median of the runs'
# sums, and the minor faults (perf stat's page-faults of the process tree, medians). Knobs
# as bench/host-lib.sh: saved, set, restored on every exit.
#
# Per command one CLASS line per class, then per size
#	SPLIT cmd="..." size=16K kernel_4k_ms=X kernel_ms=X change=-P% faults=-P% anon=P rest=P
# anon: the change of fault:anon, fault:entry and teardown, in points of the 4K kernel
# time (from the classes' means): the work `foliotrace calibrate --host` measures, whose
# anon-touch runs fault, zero and tear down anonymous memory, and so the part of the
# change the host model prices; rest: the change of every other class, which it does not
# (they add up to change but for the medians' difference). Last line:
# worst_rest_points=X, the largest change of the rest, in points.
#
# With -l LEAVES, per command also the LEAVES leaf functions (bench/kprofile-leaves.awk: the
# function a sample interrupted) whose kernel time changes most from 4K to the largest
# size, most first:
#	LEAF cmd="..." sym=FUNC 4K_ms=X 16K_ms=X 32K_ms=X 64K_ms=X ns_per_fault=16K:N,...
# ns_per_fault: the function's change at each size over the faults it removed (ns per
# fault removed; negative: time saved), the figure to set beside the host model's `new_ns`
# and beside another command's (anon-touch's, what `calibrate --host` runs). On a VM
# without a PMU a sample taken with interrupts off lands where they are turned back on.
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
RUNS=5
REP=auto
RUN_S=${FT_HOST_KPROFILE_S:-3}	# seconds a run takes at least, when REP is auto
SIZES="16 32 64"
DIR=$TOP/build/host-time

me=bench/host-kprofile.sh
die() { echo "$me: $*" >&2; exit 1; }
usage() { echo "usage: sh $me [-n RUNS] [-r REP] [-l LEAVES] [-d DIR] [CMD ...]" >&2; exit 2; }
LEAVES=0
while getopts n:r:l:d: o; do
	case $o in
	n) RUNS=$OPTARG ;;
	r) REP=$OPTARG ;;
	l) LEAVES=$OPTARG ;;
	d) DIR=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
case $RUNS in '' | *[!0-9]* | 0) usage ;; esac
case $REP in auto) ;; '' | *[!0-9]* | 0) usage ;; esac
case $LEAVES in '' | *[!0-9]*) usage ;; esac
case $RUN_S in '' | *[!0-9]* | 0) die "FT_HOST_KPROFILE_S: whole seconds, at least 1" ;; esac
. "$TOP/bench/host-lib.sh"
# shellcheck disable=SC2086 # the sizes are split on purpose
knobs_check $SIZES
command -v perf > /dev/null || die "no perf (Debian's linux-perf)"
CGMNT=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
[ -n "$CGMNT" ] || die "no cgroup v2 mount: the runs cannot be sampled as a group"
mkdir -p "$DIR"
DIR=$(cd "$DIR" && pwd)
W=$(mktemp -d "$DIR/kprof.XXXXXX")
GROUP=foliotrace-kprof.$$
CHILD=
cleanup_more() { rmdir "$CGMNT/$GROUP" 2> /dev/null || :; }
host_traps
mkdir "$CGMNT/$GROUP" || die "cannot make the cgroup $CGMNT/$GROUP"
knobs_save	# before the first write; host_cleanup restores them on every exit
[ $# -gt 0 ] || { default_cmds; set -- "$CMD_XZ" "$CMD_PY" "$CMD_GCC" "$CMD_KBUILD"; }

# host SIZE_KB CMD: one run under the knobs of SIZE_KB, CMD REP times: its classes' "RUN
# CLASS MS" lines (ms per invocation) and a "RUN faults N" line appended to $W/cSIZE, RUN
# printed (interleave appends it to $W/hSIZE, whose lines number the runs); the wall time
# of one invocation, ns, in HOST_NS
host() {
	knobs "$1"
	rm -f "$W/perf.data" "$W/faults" "$W/ns"
	# the command joins the group before its exec, perf stays out of it; perf stat counts
	# the faults of the process tree (inherited); loop.sh runs it REP times
	setsid perf record -q -g -e cpu-clock:k -c 250000 -a -G "$GROUP" -o "$W/perf.data" -- \
		sh -c 'echo $$ > "$1/cgroup.procs" &&
			exec perf stat -x, -e page-faults -o "$2" -- sh "$3" "$4" "$5" "$6"' \
		sh "$CGMNT/$GROUP" "$W/faults" "$W/loop.sh" "$REP" "$W/ns" "$2" \
		< /dev/null > /dev/null 2> "$W/perf.err" 9>&- &
	CHILD=$!
	wait "$CHILD" || { CHILD=; cat "$W/perf.err" >&2; die "host run failed: $2"; }
	CHILD=
	HOST_NS=$(($(cat "$W/ns") / REP))
	knobs 4
	r=$(($(wc -l < "$W/h$1") + 0))
	perf script -i "$W/perf.data" -F comm,ip,sym > "$W/script" 2> /dev/null || :
	awk -f "$TOP/bench/kprofile-classes.awk" "$W/script" |
		awk -v r="$r" -v rep="$REP" '{ printf "%d %s %.3f\n", r, $1, $2 * 0.25 / rep }' > "$W/run"
	[ -s "$W/run" ] || die "no kernel samples in a run of: $2"
	[ "$LEAVES" -eq 0 ] || awk -f "$TOP/bench/kprofile-leaves.awk" "$W/script" |
		awk -v rep="$REP" '{ printf "%s %.3f\n", $1, $2 * 0.25 / rep }' >> "$W/l$1"
	awk -F, -v r="$r" -v rep="$REP" '$3 == "page-faults" { printf "%d faults %d\n", r, $1 / rep }' \
		"$W/faults" >> "$W/run"
	grep -q ' faults ' "$W/run" || die "perf stat counted no page-faults: $2"
	# one line per run in hSIZE (interleave's count), the classes in cSIZE
	echo "$r"
	cat "$W/run" >> "$W/c$1"
}

# loop.sh REP NSFILE CMD: CMD REP times in a row, the wall time of them all (ns) in NSFILE
cat > "$W/loop.sh" << 'EOF'
t0=$(date +%s%N)
i=0
while [ "$i" -lt "$1" ]; do
	sh -c "$3" || exit 1
	i=$((i + 1))
done
echo $(($(date +%s%N) - t0)) > "$2"
EOF

CLASSES="fault:anon fault:entry fault:cow fault:file teardown exec fork exit mmap rw syscall other"
echo "$me: $RUNS runs per setting (4K and $SIZES KiB)" >&2
ASKED=$REP
: > "$W/worst"
for cmd in "$@"; do
	: > "$W/h4"
	: > "$W/c4"
	# warm-up (the page cache, the binaries), one invocation, which sets REP when auto
	REP=1
	host 4 "$cmd" > /dev/null
	REP=$ASKED
	[ "$REP" != auto ] || REP=$(awk -v ns="$HOST_NS" -v s="$RUN_S" 'BEGIN {
		r = int(s * 1e9 / (ns + 1)) + 1; print (r > 1000 ? 1000 : r) }')
	echo "$me: $REP invocations a run: $cmd" >&2
	for s in 4 $SIZES; do
		: > "$W/c$s"
		: > "$W/l$s"
	done
	interleave "$cmd"
	# per setting: the classes' means; the median of the runs' sums and of their faults
	# (sums in us: host-lib.sh's median() halves an even count's middle pair in integers)
	for s in 4 $SIZES; do
		awk -v s="$s" -v runs="$RUNS" '$2 != "faults" { m[$2] += $3 / runs }
			END { for (c in m) printf "%s mean %s %.3f\n", s, c, m[c] }' "$W/c$s"
		awk '$2 != "faults" { t[$1] += $3 }
			END { for (r in t) printf "%d\n", t[r] * 1000 }' "$W/c$s" | sort -n > "$W/sum"
		awk '$2 == "faults" { print $3 }' "$W/c$s" | sort -n > "$W/flt"
		echo "$s total $(median "$W/sum" 1) faults $(median "$W/flt" 1)"
	done > "$W/means"
	awk -v cmd="$cmd" -v sizes="4 $SIZES" -v classes="$CLASSES" -v worst="$W/worst" '
		$2 == "mean" { m[$1, $3] = $4; next }
		$2 == "total" { t[$1] = $3 / 1000; f[$1] = $5 }
		END {
			ns = split(sizes, sz, " ")
			nc = split(classes, cl, " ")
			for (i = 1; i <= nc; i++) {
				printf "CLASS cmd=\"%s\" class=%s", cmd, cl[i]
				for (j = 1; j <= ns; j++)
					printf " %sK_ms=%.1f", sz[j], m[sz[j], cl[i]]
				printf "\n"
			}
			for (j = 2; j <= ns; j++) {
				an = re = 0
				for (i = 1; i <= nc; i++) {
					d = m[sz[j], cl[i]] - m[4, cl[i]]
					if (cl[i] ~ /^(fault:anon|fault:entry|teardown)$/)
						an += d
					else
						re += d
				}
				restp = 100 * re / t[4]
				printf "SPLIT cmd=\"%s\" size=%sK kernel_4k_ms=%.1f kernel_ms=%.1f " \
				       "change=%+.1f%% faults=%+.1f%% anon=%+.1f rest=%+.1f\n",
				       cmd, sz[j], t[4], t[sz[j]], 100 * (t[sz[j]] - t[4]) / t[4],
				       100 * (f[sz[j]] - f[4]) / f[4], 100 * an / t[4], restp
				print (restp < 0 ? -restp : restp) >> worst
			}
		}' "$W/means"
	# the leaves: per setting each function's mean over the runs, then the LEAVES functions
	# whose change at the largest size is largest, most first (ties by name)
	[ "$LEAVES" -eq 0 ] || for s in 4 $SIZES; do
		awk -v s="$s" -v runs="$RUNS" '{ m[$1] += $2 / runs }
			END { for (f in m) printf "%s %s %.3f\n", s, f, m[f] }' "$W/l$s"
	done | awk -v cmd="$cmd" -v sizes="4 $SIZES" -v means="$W/means" '
		BEGIN {
			while ((getline l < means) > 0) {
				split(l, w, " ")
				if (w[2] == "total")
					f[w[1]] = w[5]
			}
		}
		{ m[$1, $2] = $3; fn[$2] = 1 }
		END {
			ns = split(sizes, sz, " ")
			for (x in fn) {
				line = sprintf("LEAF cmd=\"%s\" sym=%s", cmd, x)
				for (j = 1; j <= ns; j++)
					line = line sprintf(" %sK_ms=%.1f", sz[j], m[sz[j], x])
				sep = " ns_per_fault="
				for (j = 2; j <= ns; j++) {
					rm = f[4] - f[sz[j]]
					line = line sep sz[j] "K:" (rm > 0 ? \
						sprintf("%.0f", 1e6 * (m[sz[j], x] - m[4, x]) / rm) : "-")
					sep = ","
				}
				d = m[sz[ns], x] - m[4, x]
				printf "%.3f\t%s\n", (d < 0 ? -d : d), line
			}
		}' | sort -t "$(printf '\t')" -k1,1gr -k2,2 | head -n "$LEAVES" | cut -f 2-
done
printf 'worst_rest_points=%.1f\n' "$(sort -n "$W/worst" | tail -n 1)"
