# bench/host-lib.sh - sourced by bench/host-mthp.sh and bench/host-time.sh: this host's
# mTHP knobs checked, saved, set and restored, by the rules of vm/host-knobs.h (which
# `foliotrace calibrate --host` follows in C), the interleaved runs and their medians:
#   4K = the top-level enabled and every hugepages-*kB/enabled `never`; size S = the same
#   but hugepages-SkB/enabled `always` (per-size `always` acts whatever the top-level says,
#   which only serves `inherit` sizes; with PMD THP off khugepaged sleeps).
# The caller sets `me`, W (its work directory), RUNS and SIZES, defines die(), host
# SIZE_KB CMD (one run, one line of numbers) and cleanup_more (its own cleanup, run after
# the knobs are restored), keeps the pid of the running command's session in CHILD, and
# calls host_traps once W exists.
K=/sys/kernel/mm/transparent_hugepage

# knobs_check SIZE_KB...: each size has a per-size knob (else die); not root: exit 77
knobs_check() {
	for s in "$@"; do
		[ -e "$K/hugepages-${s}kB/enabled" ] ||
			die "this kernel ($(uname -r)) has no $K/hugepages-${s}kB/enabled (per-size mTHP: Linux 6.8+)"
	done
	if [ "$(id -u)" != 0 ]; then
		echo "$me: skipped: writing $K needs root" >&2
		exit 77
	fi
}

# knobs_save: every knob as "FILE VALUE" lines in $W/saved, written whole before any change
knobs_save() {
	for f in "$K/enabled" "$K"/hugepages-*kB/enabled; do
		[ -f "$f" ] || continue
		v=$(sed -n 's/.*\[\(.*\)\].*/\1/p' "$f")
		[ -n "$v" ] || die "cannot read the setting of $f"
		echo "$f $v"
	done > "$W/saved.tmp"
	mv "$W/saved.tmp" "$W/saved"
}

# knobs SIZE_KB: 4 = every size never; else only that size always
knobs() {
	echo never > "$K/enabled"
	for f in "$K"/hugepages-*kB/enabled; do
		echo never > "$f"
	done
	[ "$1" = 4 ] || echo always > "$K/hugepages-$1kB/enabled"
}

# knobs_restore: every saved knob back; status 1 if one could not be (said on stderr)
knobs_restore() {
	[ -s "$W/saved" ] || return 0
	kr=0
	while read -r f v; do
		echo "$v" > "$f" || { echo "$me: cannot restore $f to $v" >&2; kr=1; }
	done < "$W/saved"
	return $kr
}

# interleave CMD: RUNS rounds of one run per setting (4K, then SIZES), so that the load of
# the machine moves every setting alike; setting S's lines in $W/hS
interleave() {
	for s in 4 $SIZES; do
		: > "$W/h$s"
	done
	r=0
	while [ "$r" -lt "$RUNS" ]; do
		for s in 4 $SIZES; do
			host "$s" "$1" >> "$W/h$s"
		done
		r=$((r + 1))
	done
}

# median FILE COLUMN: median of the column's values (RUNS lines)
median() {
	awk -v c="$2" '{ print $c }' "$1" | sort -n | awk '{ v[NR] = $1 }
		END { print (NR % 2) ? v[(NR + 1) / 2] : int((v[NR / 2] + v[NR / 2 + 1]) / 2) }'
}

# the EXIT trap: the running command first, so that nothing runs under a knob being
# restored (every process of its session: QEMU's `timeout` makes a process group of its
# own), then the knobs, the caller's cleanup, W
host_cleanup() {
	st=$?
	trap '' INT TERM HUP
	[ -z "$CHILD" ] || { pkill -TERM -s "$CHILD" 2> /dev/null || :; wait "$CHILD" 2> /dev/null || :; }
	knobs_restore || st=1
	cleanup_more
	rm -rf "$W"
	exit "$st"
}
host_traps() {
	trap host_cleanup EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	trap 'exit 129' HUP
}
