#!/bin/sh
# Build a foliotrace guest: the patched kernel, lttng-modules with our probe, and the
# initramfs (busybox, lttng-tools, modules, bundled workloads, our /init).
#
# usage: build.sh [--arch x86_64|arm64] [--print-dir]
#
# Everything is cached under $FOLIOTRACE_CACHE (default ~/.cache/foliotrace), outside the
# clone, in two levels:
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
PRINT_DIR=
while [ $# -gt 0 ]; do
	case "$1" in
	--arch) ARCH=$2; shift 2 ;;
	--arch=*) ARCH=${1#--arch=}; shift ;;
	--print-dir) PRINT_DIR=1; shift ;;
	*) echo "usage: build.sh [--arch x86_64|arm64] [--print-dir]" >&2; exit 2 ;;
	esac
done
case "$ARCH" in
x86_64) MAKEARCH="ARCH=x86_64"; IMAGE=arch/x86/boot/bzImage; TARGET=bzImage ;;
arm64) MAKEARCH="ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-"; IMAGE=arch/arm64/boot/Image
	TARGET=Image ;;
*) echo "build.sh: unknown arch '$ARCH' (x86_64 or arm64)" >&2; exit 2 ;;
esac

CACHE=${FOLIOTRACE_CACHE:-$HOME/.cache/foliotrace}
KSRC_TAR=/usr/src/linux-source-6.1.tar.xz
LTTNG_SRC=$(ls -d /usr/src/lttng-modules-2.13.* 2>/dev/null | tail -n 1)
JOBS=${JOBS:-$(nproc)}
mkdir -p "$CACHE"

say() { [ -n "$PRINT_DIR" ] && echo "build.sh: $*" >&2 || echo "build.sh: $*"; }
die() { echo "build.sh: $*" >&2; exit 1; }
[ -f "$KSRC_TAR" ] || die "missing $KSRC_TAR (apt-get install linux-source-6.1; see make deps)"
[ -d "$LTTNG_SRC" ] || die "missing /usr/src/lttng-modules-2.13.* (apt-get install lttng-modules-dkms)"

pkgver() { dpkg-query -W -f='${Package}=${Version}\n' "$@" 2>/dev/null; }
hash_inputs() { # hash_inputs FILE... : content hash of files (names and bytes)
	for f in "$@"; do printf '%s\n' "${f#$TOP/}"; cat "$f"; done | sha256sum | cut -c1-16
}

kinputs="$HERE/build.sh $HERE/kconfig.sh $HERE/config/common.config $HERE/config/$ARCH.config
	$(ls "$HERE"/patches/linux/*.patch "$HERE"/patches/lttng-modules/*.patch)"
KKEY=$( { pkgver linux-source-6.1 lttng-modules-dkms; echo "$ARCH"; hash_inputs $kinputs; } |
	sha256sum | cut -c1-16)
KDIR=$CACHE/kernel-$ARCH-$KKEY

# sync_tree NEW OLD: make OLD's content equal to NEW's, touching only the files that differ,
# so kbuild rebuilds only what a patch change affects. NEW is removed.
sync_tree() {
	diff -rq "$2" "$1" | while read -r line; do
		case "$line" in
		"Files "*" differ")
			f=${line#Files }
			f=${f%% and *}
			cp -p "$1/${f#"$2"/}" "$f" ;;
		"Only in "*)
			d=${line#Only in }
			dir=${d%%: *}
			name=${d#*: }
			case "$dir" in
			"$1"*) cp -a "$dir/$name" "$2${dir#"$1"}/" ;;	# new file
			*) rm -rf "${dir:?}/$name" ;;			# file gone
			esac ;;
		esac
	done
	rm -rf "$1"
}

build_kernel() {
	tmp=$CACHE/tmp-kernel-$ARCH-$KKEY
	rm -rf "$tmp"
	mkdir -p "$tmp"
	# One patched source tree and one object tree per arch, at fixed paths: kbuild records
	# absolute paths, so a moved tree rebuilds fully; a changed patch rebuilds only what
	# it touches.
	src=$CACHE/linux-src
	obj=$CACHE/obj-$ARCH
	skey=$( { pkgver linux-source-6.1; hash_inputs "$HERE"/patches/linux/*.patch; } |
		sha256sum | cut -c1-16)
	if [ "$(cat "$src/.foliotrace-key" 2>/dev/null)" != "$skey" ]; then
		say "unpacking $KSRC_TAR and applying $(ls "$HERE"/patches/linux/*.patch | wc -l) patches"
		rm -rf "$CACHE/linux-src.new"
		mkdir -p "$CACHE/linux-src.new"
		tar -C "$CACHE/linux-src.new" -xf "$KSRC_TAR"
		new=$CACHE/linux-src.new/linux-source-6.1
		for p in "$HERE"/patches/linux/*.patch; do
			patch -s -d "$new" -p1 < "$p" || die "patch $(basename "$p") does not apply"
		done
		if [ -d "$src" ]; then
			rm -f "$src/.foliotrace-key"
			sync_tree "$new" "$src"
			rm -rf "$CACHE/linux-src.new"
		else
			mv "$new" "$src"
			rmdir "$CACHE/linux-src.new"
		fi
		echo "$skey" > "$src/.foliotrace-key"
	fi
	say "configuring the $ARCH kernel"
	sh "$HERE/kconfig.sh" "$src" "$obj" "$ARCH"
	say "building the $ARCH kernel ($TARGET, modules_prepare; -j$JOBS)"
	start=$(date +%s)
	make -s -C "$src" O="$obj" $MAKEARCH -j"$JOBS" "$TARGET" modules_prepare \
		> "$tmp/kernel-build.log" 2>&1 ||
		{ tail -30 "$tmp/kernel-build.log" >&2; die "kernel build failed ($tmp/kernel-build.log)"; }
	echo "kernel_seconds=$(( $(date +%s) - start ))" > "$tmp/times"

	say "building lttng-modules $(basename "$LTTNG_SRC") with the anon probe"
	lt=$CACHE/lttng-$ARCH
	rm -rf "$lt"
	cp -a "$LTTNG_SRC" "$lt"
	for p in "$HERE"/patches/lttng-modules/*.patch; do
		patch -s -d "$lt" -p1 < "$p" || die "patch $(basename "$p") does not apply"
	done
	start=$(date +%s)
	make -C "$lt" KERNELDIR="$obj" $MAKEARCH -j"$JOBS" modules > "$tmp/lttng-build.log" 2>&1 ||
		{ tail -30 "$tmp/lttng-build.log" >&2; die "lttng-modules build failed"; }
	echo "lttng_seconds=$(( $(date +%s) - start ))" >> "$tmp/times"
	[ -f "$lt/src/probes/lttng-probe-anon.ko" ] || die "lttng-probe-anon.ko was not built"

	cp "$obj/$IMAGE" "$tmp/$(basename "$IMAGE")"
	cp "$obj/.config" "$tmp/config"
	cat "$obj/include/config/kernel.release" > "$tmp/kernel.release"
	for f in modules.builtin modules.builtin.modinfo modules.order; do
		[ -f "$obj/$f" ] && cp "$obj/$f" "$tmp/" || :
	done
	mkdir -p "$tmp/lttng"
	(cd "$lt/src" && find . -name '*.ko' | while read -r k; do
		mkdir -p "$tmp/lttng/$(dirname "$k")"
		cp "$k" "$tmp/lttng/$k"
	done)
	rm -rf "$KDIR"
	mv "$tmp" "$KDIR"
	for old in "$CACHE"/kernel-$ARCH-*; do
		[ "$old" = "$KDIR" ] || rm -rf "$old"
	done
}

# Builds of both arches share the source tree: one build at a time.
exec 9>"$CACHE/.build-lock"
flock 9
if [ -f "$KDIR/kernel.release" ]; then
	say "kernel $ARCH $KKEY cached"
else
	build_kernel
fi

# Second level: the initramfs, from the cached kernel and the userland inputs.
make -s -C "$TOP" "workloads$( [ "$ARCH" = arm64 ] && echo -arm64)" >&2
ginputs="$HERE/initramfs.sh $HERE/init $(ls "$TOP"/build/workloads/$ARCH/*)"
GKEY=$( { echo "$KKEY"; pkgver lttng-tools busybox-static; hash_inputs $ginputs; } |
	sha256sum | cut -c1-16)
GDIR=$CACHE/guest-$ARCH-$GKEY
if [ -f "$GDIR/initrd.cpio" ]; then
	say "guest $ARCH $GKEY cached"
else
	tmp=$CACHE/tmp-guest-$ARCH-$GKEY
	rm -rf "$tmp"
	mkdir -p "$tmp"
	say "assembling the $ARCH initramfs"
	sh "$HERE/initramfs.sh" "$ARCH" "$KDIR" "$TOP/build/workloads/$ARCH" "$tmp/initrd.cpio" >&2
	cp "$KDIR/$(basename "$IMAGE")" "$tmp/"
	cp "$KDIR/kernel.release" "$KDIR/config" "$tmp/"
	[ -f "$KDIR/times" ] && cp "$KDIR/times" "$tmp/kernel-times"
	echo "$ARCH" > "$tmp/arch"
	basename "$IMAGE" > "$tmp/image"
	rm -rf "$GDIR"
	mv "$tmp" "$GDIR"
	for old in "$CACHE"/guest-$ARCH-*; do
		[ "$old" = "$GDIR" ] || rm -rf "$old"
	done
fi
if [ -n "$PRINT_DIR" ]; then
	echo "$GDIR"
else
	say "guest ready: $GDIR"
fi
