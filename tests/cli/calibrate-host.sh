#!/bin/sh
# calibrate-host.sh - `foliotrace calibrate --host` on a FAKE sysfs tree ($FT_HOST_THP_SYSFS,
# $FT_HOST_UID: vm/host-knobs.h, for tests): the refusals (a kernel without per-size mTHP,
# not root, a size the kernel lacks) end with one line on stderr and store nothing (no
# database created); usage errors exit 2; a calibration interrupted by INT, TERM or HUP
# dies of the signal with every knob as it was and no model stored; a second writer is
# refused while another holds the knobs' lock ($FT_HOST_KNOBS_LOCK), and a calibration
# releases it; the cold runs (anon-touch --between) are made only with --cold; the runs
# touch the sizes of --footprints, and a list of fewer than two sizes is refused; --host's
# options without it, and --with-partial with it, are usage errors. The real
# knobs are never written here (bench/host-time.sh runs the real calibration, docs/cost-model.md).
. "$(dirname "$0")/../test-lib.sh"

plan 44
# fake TOP: the settings of a kernel as it boots (PMD size inherit, the others never)
mktree() {
	mkdir -p "$1"
	echo "always [madvise] never" > "$1/enabled"
	for s in 16 32 64 2048; do
		mkdir -p "$1/hugepages-${s}kB"
		echo "always inherit madvise [never]" > "$1/hugepages-${s}kB/enabled"
	done
	echo "always [inherit] madvise never" > "$1/hugepages-2048kB/enabled"
}
# the setting of every knob of tree $1, one "FILE VALUE" line each: the bracketed word, or
# a plain file's word (what a write left)
settings() {
	for f in "$1/enabled" "$1"/hugepages-*kB/enabled; do
		v=$(sed -n 's/.*\[\(.*\)\].*/\1/p' "$f")
		echo "${f#"$1"/} ${v:-$(cat "$f")}"
	done
}
export FT_HOST_KNOBS_LOCK="$T/knobs.lock"
export FT_HOST_CALIBRATE_COLD_MIB=1	# the cold runs (--between 2M): 256 touches, not 16384
cal() { FT_HOST_THP_SYSFS=$TREE "$FT" calibrate --host --footprints 1M,2M "$@"; }

# refused NAME DB PATTERN: the last command exited 1 ($st) with one stderr line matching
# PATTERN, printed nothing, and DB was not created (3 tests)
refused() {
	check "$1: exit 1" test "$st" = 1
	check "$1: one line on stderr naming the problem" sh -c \
		'test "$(wc -l < "$1")" = 1 && grep -q -- "$2" "$1" && ! test -s "$3"' sh \
		"$T/err" "$3" "$T/out"
	check "$1: nothing stored (no database)" test ! -e "$2"
	[ "$st" = 1 ] || sed 's/^/# /' "$T/err"
}

# 1. no per-size mTHP (Linux before 6.8): only the top-level knob
TREE=$T/old
mkdir -p "$TREE"
echo "always [madvise] never" > "$TREE/enabled"
cal -o "$T/old.db" > "$T/out" 2> "$T/err"; st=$?
refused "no per-size mTHP" "$T/old.db" "per-size mTHP needs Linux 6.8"

# 2. not root
TREE=$T/thp
mktree "$TREE"
settings "$TREE" > "$T/before"
FT_HOST_UID=1000 cal -o "$T/user.db" > "$T/out" 2> "$T/err"; st=$?
refused "not root" "$T/user.db" "needs root (effective uid 1000)"

# 3. a size this kernel has no knob for
FT_HOST_UID=0 cal --sizes 16K,128K -o "$T/size.db" > "$T/out" 2> "$T/err"; st=$?
refused "--sizes 128K, no such knob" "$T/size.db" "hugepages-128kB/enabled"
check "the refusals wrote no knob" cmp "$T/before" "$(settings "$TREE" > "$T/after"; echo "$T/after")"

# 4. usage errors
for args in "--host $T/a.db" "--host" "--host --runs 0 -o $T/u.db" "--host --sizes 3K -o $T/u.db" \
	"--host --footprints 1M -o $T/u.db" "--host --footprints 3M,8M -o $T/u.db" \
	"--host --footprints 2M,2M -o $T/u.db" "--host --footprints 512K,2M -o $T/u.db" \
	"--host --footprints 1M,2M,4M,8M,16M,32M,64M,128M,256M -o $T/u.db" \
	"--runs 3 $T/a.db" "--footprints 1M,2M $T/a.db" "--host --with-partial -o $T/u.db"; do
	# shellcheck disable=SC2086 # the arguments are split on purpose
	FT_HOST_THP_SYSFS=$TREE FT_HOST_UID=0 "$FT" calibrate $args > /dev/null 2>&1
	check "calibrate $args: usage error, exit 2" test $? = 2
done

# 5. interrupted: the calibration is stopped by each signal while a size is on (a knob
# reads always); it dies of the signal, every knob as before, no model stored
n=0
for sig in INT TERM HUP; do
	n=$((n + 1))
	rm -f "$T/int.db"
	# exec: $! is calibrate itself, not a subshell
	(FT_HOST_THP_SYSFS=$TREE FT_HOST_UID=0 exec "$FT" calibrate --host --footprints 1M,2M \
		--runs 1000 -o "$T/int.db" > /dev/null 2> "$T/err") &
	pid=$!
	# wait (3000 polls at most, not a time bound) until a size is on, then signal at once
	i=0 on=1
	while [ $i -lt 3000 ]; do
		grep -qx always "$TREE"/hugepages-*kB/enabled 2> /dev/null && { on=0; break; }
		sleep 0.1
		i=$((i + 1))
	done
	kill -s "$sig" "$pid"
	ok $on "$sig: a size was switched on before the signal"
	wait "$pid"
	st=$?
	case $sig in INT) num=2 ;; TERM) num=15 ;; HUP) num=1 ;; esac
	check "$sig: calibrate died of the signal (status $st)" test "$st" = $((128 + num))
	settings "$TREE" > "$T/after"
	check "$sig: every knob restored" cmp "$T/before" "$T/after"
	[ -e "$T/int.db" ] && rows=$("$FT" query "$T/int.db" --format csv sql \
		"SELECT count(*) FROM cost_model" | tail -n 1) || rows=0
	check "$sig: no model stored" test "$rows" = 0
done
ps -eo pid=,args= | grep -F -- "-o $T/int.db" | grep -v grep > "$T/left" || :
check "no calibration process left" test ! -s "$T/left"
# the kernel-time sampler's cgroup (vm/ksample.h), under this shell's own cgroup v2 group
cg=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)$(sed -n 's/^0:://p' /proc/self/cgroup)
check "no sampler cgroup left by the signals (${cg:-no cgroup v2})" sh -c \
	'! ls -d "$1"/foliotrace-ksample-* > /dev/null 2>&1' sh "${cg%/}"

# 6. another writer holds the knobs' lock (as bench/host-lib.sh does, flock(1)): refused at
# once, nothing written; once it is gone, the next one is not refused for the lock
flock -o "$FT_HOST_KNOBS_LOCK" sleep 60 &
holder=$!
i=0
while [ $i -lt 3000 ] && flock -n "$FT_HOST_KNOBS_LOCK" true; do sleep 0.1; i=$((i + 1)); done
FT_HOST_UID=0 cal -o "$T/locked.db" > "$T/out" 2> "$T/err"; st=$?
refused "the knobs' lock held by another writer" "$T/locked.db" "another program is changing this machine's mTHP knobs"
check "the refused calibration wrote no knob" cmp "$T/before" "$(settings "$TREE" > "$T/after"; echo "$T/after")"
kill "$holder"; wait "$holder" 2> /dev/null
# (on the fake tree the 1-2 MiB runs may be too short to time: refused or not for that)
FT_HOST_UID=0 cal --runs 1 --sizes 16K -o "$T/free.db" > "$T/out" 2> "$T/err"
check "with the holder gone, calibrate is not refused for the lock" sh -c \
	'! grep -q "another program is changing" "$1" && flock -n "$2" true' sh "$T/err" \
	"$FT_HOST_KNOBS_LOCK"

# 7. the cold runs only with --cold: -v prints each setting's medians, those of the cold
# runs marked --between (printed before the fit, which the fake tree's short runs may fail)
FT_HOST_UID=0 cal --runs 1 --sizes 16K -v -o "$T/hot.db" > /dev/null 2> "$T/hot.err"
check "without --cold: 4 settings' medians (4K and 16K, 1 and 2 MiB), none --between" sh -c \
	'test "$(grep -c "anon-touch [12]M: minflt" "$1")" = 4 && ! grep -q -- --between "$1"' \
	sh "$T/hot.err"
FT_HOST_UID=0 cal --runs 1 --sizes 16K --cold -v -o "$T/cold.db" > /dev/null 2> "$T/cold.err"
check "with --cold: and the cold runs' medians under 4K and 16K" sh -c \
	'test "$(grep -c "anon-touch [12]M: minflt" "$1")" = 4 &&
	 test "$(grep -c "anon-touch 1M --between 2M: minflt" "$1")" = 2' sh "$T/cold.err"

# 8. --footprints: the runs touch the sizes given (-v's medians), not the default's
FT_HOST_THP_SYSFS=$TREE FT_HOST_UID=0 "$FT" calibrate --host --footprints 2M,4M --runs 1 \
	--sizes 16K -v -o "$T/fp.db" > /dev/null 2> "$T/fp.err"
check "--footprints 2M,4M: 4 settings' medians at 2M and 4M, none at another size" sh -c \
	'test "$(grep -c "anon-touch [24]M: minflt" "$1")" = 4 &&
	 test "$(grep -c "anon-touch [0-9]*M: minflt" "$1")" = 4' sh "$T/fp.err"
done_testing
