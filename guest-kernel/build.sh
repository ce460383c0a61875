#!/bin/sh
# Build a foliotrace guest: the patched kernel, lttng-modules with our probe, and the
# initramfs (busybox, lttng-tools, modules, bundled workloads, our /init).
#
# usage: build.sh [--arch x86_64|arm64] [--kernel 6.1|6.12] [--print-dir]
#
# --kernel (default 6.1) picks the series: 6.1 is Debian's linux-source-6.1 with patches/linux/
# and lttng-modules 2.13.9 (patches/lttng-modules/); 6.12 is Debian's linux-source-6.12
# with patches/linux-6.12/ and lttng-modules 2.13.18 (patches/lttng-modules-2.13.18/); both
# built by build-kernel.sh. 6.1's directory names are those of the time before 6.12
# existed; 6.12's all carry "6.12": kernel-6.12-<arch>-<kkey>, guest-6.12-<arch>-<gkey>,
# linux-src-6.12, obj-6.12-<arch>, lttng-6.12-<arch>, and its own build lock.
#
# Everything is cached under $FOLIOTRACE_CACHE (default $XDG_CACHE_HOME/foliotrace, and
# without XDG_CACHE_HOME ~/.cache/foliotrace), outside the clone or the install, in two
# levels:
#   kernel-<arch>-<kkey>/   kernel image + lttng .ko; kkey hashes what the kernel build
#                           reads: Debian's source packages' versions, our patches, configs
#                           and the scripts that build them. Cold: see docs/times.md.
#                           Built in linux-src/ and obj-<arch>/, kept between keys so a
#                           patch change rebuilds only the files it touches.
#   guest-<arch>-<gkey>/    the bootable guest: image + initramfs; gkey adds the initramfs
#                           inputs (init, workloads, lttng-tools version). Seconds.
# A warm call only hashes and returns. The guest directory is printed on the last line
# (with --print-dir, only that line), for run.sh and `foliotrace guest build`.
#
# Builds happen in a temporary directory renamed into place when complete, so an
# interrupted build never leaves a directory that looks finished.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/.." && pwd)
ARCH=x86_64
KERNEL=6.1
PRINT_DIR=
while [ $# -gt 0 ]; do
	case "$1" in
	--arch) ARCH=$2; shift 2 ;;
	--arch=*) ARCH=${1#--arch=}; shift ;;
	--kernel) KERNEL=$2; shift 2 ;;
	--kernel=*) KERNEL=${1#--kernel=}; shift ;;
	--print-dir) PRINT_DIR=1; shift ;;
	*) echo "usage: build.sh [--arch x86_64|arm64] [--kernel 6.1|6.12] [--print-dir]" >&2
		exit 2 ;;
	esac
done
case "$KERNEL" in
6.1|6.12) ;;
*) echo "build.sh: unknown kernel '$KERNEL' (6.1 or 6.12)" >&2; exit 2 ;;
esac
case "$ARCH" in
x86_64) IMAGE=bzImage ;;	# the kernel image build-kernel.sh leaves in the cache
arm64) IMAGE=Image ;;
*) echo "build.sh: unknown arch '$ARCH' (x86_64 or arm64)" >&2; exit 2 ;;
esac

CACHE=${FOLIOTRACE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/foliotrace}
mkdir -p "$CACHE"
# the scripts this one runs (build-kernel.sh, initramfs.sh) take the cache from here:
# they are hashed into the kernel's key, so their own default is left as it was
export FOLIOTRACE_CACHE="$CACHE"

say() { [ -n "$PRINT_DIR" ] && echo "build.sh: $*" >&2 || echo "build.sh: $*"; }
die() { echo "build.sh: $*" >&2; exit 1; }

pkgver() { dpkg-query -W -f='${Package}=${Version}\n' "$@" 2>/dev/null; }
hash_inputs() { # hash_inputs FILE... : content hash of files (names and bytes)
	for f in "$@"; do printf '%s\n' "${f#$TOP/}"; cat "$f"; done | sha256sum | cut -c1-16
}

# S: the series' infix in the cache's names ("" for 6.1, whose names predate 6.12)
if [ "$KERNEL" = 6.1 ]; then
	S=
	KSRC_TAR=/usr/src/linux-source-6.1.tar.xz
	LTTNG_SRC=$(ls -d /usr/src/lttng-modules-2.13.* 2>/dev/null | tail -n 1)
	[ -f "$KSRC_TAR" ] || die "missing $KSRC_TAR (apt-get install linux-source-6.1; see make deps)"
	[ -d "$LTTNG_SRC" ] || die "missing /usr/src/lttng-modules-2.13.* (apt-get install lttng-modules-dkms)"
	kinputs="$HERE/build-kernel.sh $HERE/kconfig.sh $HERE/config/common.config $HERE/config/$ARCH.config
	$(ls "$HERE"/patches/linux/*.patch "$HERE"/patches/lttng-modules/*.patch)"
	KKEY=$( { pkgver linux-source-6.1 lttng-modules-dkms; echo "$ARCH"; hash_inputs $kinputs; } |
		sha256sum | cut -c1-16)
else
	S=6.12-
	KSRC_TAR=/usr/src/linux-source-6.12.tar.xz
	# Debian 13's lttng-modules-dkms, unpacked (not installed) by tools/install-deps.sh
	LTTNG_SRC=${FT_LTTNG_6_12_SRC:-/usr/local/src/lttng-modules-2.13.18}
	[ -f "$KSRC_TAR" ] || die "6.12 $ARCH: source step failed: missing $KSRC_TAR (apt-get install linux-source-6.12; see make deps)"
	[ -f "$LTTNG_SRC/.foliotrace-deb" ] || die "6.12 $ARCH: source step failed: missing $LTTNG_SRC (tools/install-deps.sh unpacks Debian 13's lttng-modules-dkms there)"
	kinputs="$HERE/build-kernel.sh $HERE/kconfig.sh $HERE/config/common.config $HERE/config/6.12/$ARCH.config
	$(ls "$HERE"/patches/linux-6.12/*.patch "$HERE"/patches/lttng-modules-2.13.18/*.patch)"
	KKEY=$( { pkgver linux-source-6.12; cat "$LTTNG_SRC/.foliotrace-deb"; echo "$ARCH"
		hash_inputs $kinputs; } | sha256sum | cut -c1-16)
fi
KDIR=$CACHE/kernel-$S$ARCH-$KKEY

# Objects a full build of each arch's tree writes (kernel + lttng-modules), measured on
# a cold build (docs/times.md); a build replaces it with its own count for the next one.
expected_objects() {
	cat "$CACHE/objects-$S$ARCH" 2>/dev/null && return
	case "$S$ARCH" in
	x86_64) echo 1483 ;;
	arm64) echo 1119 ;;
	6.12-x86_64) echo 1572 ;;
	6.12-arm64) echo 1190 ;;
	esac
}
count_objects() {
	find "$CACHE/obj-$S$ARCH" "$CACHE/lttng-$S$ARCH" -name '*.o' 2>/dev/null | wc -l
}
# progress_ticker PID: while PID lives, one line a minute (a cold build takes 20-40 minutes
# here): objects written so far against the expected total, and the elapsed time. sleep
# gets no copy of stderr, so a killed ticker never holds a caller's pipe open.
progress_ticker() {
	t0=$(date +%s)
	total=$(expected_objects)
	while sleep 60 < /dev/null > /dev/null 2>&1 && kill -0 "$1" 2>/dev/null; do
		el=$(( $(date +%s) - t0 ))
		echo "build.sh: ${S:+$KERNEL }$ARCH kernel: $(count_objects) of about $total objects," \
			"$((el / 60))m$((el % 60))s elapsed" >&2
	done
}

build_kernel() {
	tmp=$CACHE/tmp-kernel-$S$ARCH-$KKEY
	rm -rf "$tmp"
	# the build runs in the foreground (so ^C reaches make); the ticker stops when this
	# shell ($$ in the subshell too) is gone or kills it after the build
	progress_ticker $$ &
	tpid=$!
	sh "$HERE/build-kernel.sh" "$ARCH" "$tmp" "$KERNEL" >&2 || { kill $tpid 2>/dev/null; exit 1; }
	kill $tpid 2>/dev/null
	count_objects > "$CACHE/objects-$S$ARCH"
	rm -rf "$KDIR"
	mv "$tmp" "$KDIR"
	for old in "$CACHE"/kernel-$S$ARCH-*; do
		[ "$old" = "$KDIR" ] || rm -rf "$old"
	done
}

# Builds of both arches share the source tree: one build at a time (per series: 6.12 has
# its own tree and lock). A cached kernel needs no lock (KDIR appears complete, by
# rename), so a warm call never waits for a build.
if [ -f "$KDIR/kernel.release" ]; then
	say "kernel ${S:+$KERNEL }$ARCH $KKEY cached"
else
	exec 9>"$CACHE/.build-lock${S:+-${S%-}}"
	flock 9
	[ -f "$KDIR/kernel.release" ] || build_kernel
	exec 9>&-
fi

# Second level: the initramfs, from the cached kernel and the userland inputs: the bundled
# programs, built by make in a source tree (TOP has the Makefile), or installed by
# `make install` in TOP/workloads/ARCH (docs/install.md); vm/spawn.c looks in the same two.
if [ -f "$TOP/Makefile" ]; then
	WL=$TOP/build/workloads/$ARCH
	make -s -C "$TOP" "workloads$( [ "$ARCH" = arm64 ] && echo -arm64)" >&2
else
	WL=$TOP/workloads/$ARCH
	[ -x "$WL/ft-launch" ] || die "the $ARCH programs are not installed in $WL (make install builds them when the $ARCH compiler is there)"
fi
ginputs="$HERE/initramfs.sh $HERE/init $(ls "$WL"/*)"
GKEY=$( { echo "$KKEY"; pkgver lttng-tools busybox-static; hash_inputs $ginputs; } |
	sha256sum | cut -c1-16)
GDIR=$CACHE/guest-$S$ARCH-$GKEY
assemble_guest() {
	tmp=$CACHE/tmp-guest-$S$ARCH-$GKEY
	rm -rf "$tmp"
	mkdir -p "$tmp"
	say "assembling the $ARCH initramfs"
	sh "$HERE/initramfs.sh" "$ARCH" "$KDIR" "$WL" "$tmp/initrd.cpio" >&2
	cp "$KDIR/$IMAGE" "$tmp/"
	cp "$KDIR/kernel.release" "$KDIR/config" "$tmp/"
	[ -f "$KDIR/times" ] && cp "$KDIR/times" "$tmp/kernel-times"
	echo "$ARCH" > "$tmp/arch"
	echo "$IMAGE" > "$tmp/image"
	echo "$KERNEL" > "$tmp/series"	# run.sh: which knobs init sets (absent: 6.1)
	rm -rf "$GDIR"
	mv "$tmp" "$GDIR"
	# Keep the 4 most recently used guests of this arch (a few MB each): two checkouts,
	# or a branch switch, must not delete a guest another run is booting from.
	ls -dt "$CACHE"/guest-$S$ARCH-* | tail -n +5 | while read -r old; do
		rm -rf "$old"
	done
}

# Two calls for the same missing guest (two `foliotrace record` at once) must not assemble
# it in the same directory: one assembles under a per-arch lock, the other waits and
# finds it done. A cached guest needs no lock.
if [ -f "$GDIR/initrd.cpio" ]; then
	touch "$GDIR"	# most recently used: the last one evicted
	say "guest ${S:+$KERNEL }$ARCH $GKEY cached"
else
	exec 9>"$CACHE/.guest-lock-$S$ARCH"
	flock 9
	if [ -f "$GDIR/initrd.cpio" ]; then
		say "guest ${S:+$KERNEL }$ARCH $GKEY assembled by a concurrent call"
	else
		assemble_guest
	fi
	exec 9>&-
fi
if [ -n "$PRINT_DIR" ]; then
	echo "$GDIR"
else
	say "guest ready: $GDIR"
fi
