# bench/host-lib.sh - sourced by bench/host-mthp.sh and bench/host-time.sh: this host's
# mTHP knobs checked, saved, set and restored, by the rules of vm/host-knobs.h (which
# `foliotrace calibrate --host` follows in C), the interleaved runs and their medians:
#   4K = the top-level enabled and every hugepages-*kB/enabled `never`; size S = the same
#   but hugepages-SkB/enabled `always` (per-size `always` acts whatever the top-level says,
#   which only serves `inherit` sizes; with PMD THP off khugepaged sleeps).
# The caller sets `me`, TOP, FT, W (its work directory), DIR (what is kept between runs),
# RUNS and SIZES, defines die(), host SIZE_KB CMD (one run, one line of numbers) and
# cleanup_more (its own cleanup, run after the knobs are restored), keeps the pid of the
# running command's session in CHILD, and calls host_traps once W exists.
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

# knobs_save: every knob as "FILE VALUE" lines in $W/saved, written whole before any change,
# under the knobs' lock (vm/host-knobs.h: one writer at a time; the lock's descriptor 9 is
# held until this shell exits, after the restore), waited for if another writer holds it
knobs_save() {
	lock=${FT_HOST_KNOBS_LOCK:-/run/lock/foliotrace-thp-knobs}
	exec 9>> "$lock" || die "cannot open the mTHP knobs' lock $lock"
	flock -n 9 || {
		echo "$me: waiting for another program changing the mTHP knobs (it holds $lock)" >&2
		flock 9 || die "cannot lock $lock"
	}
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

# interleave CMD [PREFIX]: RUNS rounds of one run per setting (4K, then SIZES), so that the
# load of the machine moves every setting alike; setting S's lines in $W/PREFIXS (PREFIX
# h by default)
interleave() {
	il=${2:-h}
	for s in 4 $SIZES; do
		: > "$W/$il$s"
	done
	r=0
	while [ "$r" -lt "$RUNS" ]; do
		for s in 4 $SIZES; do
			host "$s" "$1" >> "$W/$il$s"
		done
		r=$((r + 1))
	done
}

# change_span BASE FILE: the 5th and 95th percentiles, "LO HI" in %, of the change from
# BASE's runs to FILE's (their first columns, line r of each round r, as interleave
# writes them) over 200 resamples of the rounds: drawn with replacement, a round's two
# runs together, as they ran one after the other; each resample's change that of its
# medians. From a fixed seed: the same runs give the same span.
change_span() {
	awk -v k=200 '
		function sort(v, n,    i, j, t) {
			for (i = 2; i <= n; i++)
				for (j = i; j > 1 && v[j - 1] > v[j]; j--) {
					t = v[j]; v[j] = v[j - 1]; v[j - 1] = t
				}
		}
		function med(v, n) {
			sort(v, n)
			return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
		}
		FNR == NR { a[FNR] = $1; n = FNR; next }
		{ b[FNR] = $1 }
		END {
			srand(1)
			for (i = 1; i <= k; i++) {
				for (r = 1; r <= n; r++) {
					j = int(rand() * n) + 1
					x[r] = a[j]; y[r] = b[j]
				}
				c[i] = 100 * (med(y, n) / med(x, n) - 1)
			}
			sort(c, k)
			printf "%.1f %.1f\n", c[int(0.05 * (k - 1) + 1.5)], c[int(0.95 * (k - 1) + 1.5)]
		}' "$1" "$2"
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

# default_cmds: the benches' default commands, in CMD_XZ CMD_PY CMD_GCC CMD_KBUILD (`sh -c`
# strings): xz -6 of 4 MiB of linux-source-6.1, python3 building a list of 1e6 strings,
# gcc -O2 -c replay/sim.c, and the bundled kbuild's 6 objects of mm/ in a copy of its
# prepared tree (DIR/kb, so that host runs do not write the cache's). The input and the
# copy are made in DIR once.
default_cmds() {
	# (an if: `[ -s input ] || { ...; } && mv` would mv, and fail, when the input is kept)
	if [ ! -s "$DIR/input.tar" ]; then
		{ xz -dc /usr/src/linux-source-6.1.tar.xz 2> /dev/null |
			head -c 4M > "$DIR/input.tar.tmp" || [ -s "$DIR/input.tar.tmp" ]; } &&
			mv "$DIR/input.tar.tmp" "$DIR/input.tar" ||
			die "cannot read /usr/src/linux-source-6.1.tar.xz"
	fi
	tree=${FOLIOTRACE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/foliotrace}/kbuild-x86_64
	[ -f "$DIR/kb/mk-key" ] || { [ -f "$tree/mk-key" ] && rm -rf "$DIR/kb.tmp" &&
		cp -a "$tree" "$DIR/kb.tmp" && mv "$DIR/kb.tmp" "$DIR/kb"; } ||
		die "no kbuild tree in $tree (foliotrace record -- kbuild prepares it)"
	CMD_XZ="xz -6 -T1 -c $DIR/input.tar > /dev/null"
	CMD_PY="/usr/bin/python3 -c 'x = [str(i) for i in range(1000000)]'"
	CMD_GCC="gcc -O2 -pipe -std=gnu11 -D_GNU_SOURCE -I$TOP -I$TOP/build/gen -c $TOP/replay/sim.c -o /dev/null"
	CMD_KBUILD="rm -f $DIR/kb/obj/mm/*.o; FT_KBUILD_TREE=$DIR/kb sh $TOP/workloads/kbuild.sh -j 2"
}

# recording KERNEL CMD: the x86_64 guest recording of `sh -c CMD` on guest kernel KERNEL
# (6.1 or 6.12) under order0, on the guest clock REC_CLOCK (tcg if unset, or icount:
# `record --clock`), made if absent and kept as DIR/rec-KERNEL-CKSUM.db (tcg) or
# DIR/rec-KERNEL-icount-CKSUM.db, its CTF trace beside it as DB.ctf (CKSUM the command's
# cksum: delete the database to record again); its path in REC. Recorded in a session of
# its own (CHILD), so that an interrupted recording is ended whole: not to be called in a
# subshell, whose CHILD the EXIT trap would not see.
recording() {
	case ${REC_CLOCK:-tcg} in
	tcg) rec_tag=$1 ;;
	icount) rec_tag=$1-icount ;;
	*) die "unknown guest clock '$REC_CLOCK' (tcg or icount)" ;;
	esac
	REC=$DIR/rec-$rec_tag-$(printf %s "$2" | cksum | cut -d' ' -f1).db
	if [ ! -s "$REC" ]; then
		rm -rf "$REC.tmp" "$REC.tmp.ctf"
		setsid "$FT" record --kernel "$1" --clock "${REC_CLOCK:-tcg}" -o "$REC.tmp" \
			-- sh -c "$2" \
			> "$W/rec.out" 2>&1 < /dev/null 9>&- &
		CHILD=$!
		wait "$CHILD" || { CHILD=; cat "$W/rec.out" >&2; die "guest recording on $1 failed: $2"; }
		CHILD=
		mv "$REC.tmp" "$REC"
		# record keeps the CTF trace beside the database (DB.ctf): named after it
		rm -rf "$REC.ctf"
		[ ! -d "$REC.tmp.ctf" ] || mv "$REC.tmp.ctf" "$REC.ctf"
	elif ! "$FT" query "$REC" summary > /dev/null 2>&1; then
		# kept by an older foliotrace: its schema is migrated only by a command that opens
		# it for writing (docs/schema.md), which a storing replay does
		"$FT" replay "$REC" --policy order0 > /dev/null ||
			die "cannot read the kept recording $REC (delete it to record again)"
	fi
}

# replay_sizes CMD [ARG...]: the recording in REC replayed under mthp:SIZE for each of SIZES
# (and order0, replay's baseline), with ARGS, not stored; its JSON in $W/replay.json
replay_sizes() {
	rs_cmd=$1
	shift
	rs_policies=
	for s in $SIZES; do
		rs_policies="$rs_policies -P mthp:${s}K"
	done
	# shellcheck disable=SC2086 # the policy options are split on purpose
	"$FT" replay "$REC" $rs_policies "$@" --format json -q -n > "$W/replay.json" ||
		die "replay failed: $rs_cmd"
}
