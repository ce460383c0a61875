#!/bin/sh
# Build a patched guest kernel and lttng-modules with the anon probe for one arch and one
# kernel series, into OUT (kernel image, config, kernel.release, modules.*, lttng/*.ko,
# times, build logs). Called by build.sh, which caches OUT under a hash of this file and
# every other input of the kernel build (so an edit here rebuilds kernels; an edit of
# build.sh does not).
#
#   6.1    Debian's linux-source-6.1 + patches/linux/, lttng-modules 2.13.9 (Debian 12's
#          lttng-modules-dkms) + patches/lttng-modules/
#   6.12   Debian's linux-source-6.12 + patches/linux-6.12/, lttng-modules 2.13.18 (Debian
#          13's, unpacked by tools/install-deps.sh) + patches/lttng-modules-2.13.18/
#
# Each series has its own trees in the cache, at fixed paths (kbuild records absolute
# paths, so a moved tree rebuilds fully; a changed patch rebuilds only what it touches):
#   linux-src[-6.12]        the patched source (both arches)
#   obj-[6.12-]ARCH         kbuild's objects
#   lttng-[6.12-]ARCH       lttng-modules, patched and built against obj
# Configuration: tinyconfig + config/common.config + config/ARCH.config (6.1) or
# config/6.12/ARCH.config (kconfig.sh).
#
# usage: build-kernel.sh ARCH OUT [6.1|6.12]     env: FOLIOTRACE_CACHE (trees), JOBS (make -j)
# Every failure ends with one line "build.sh: SERIES ARCH: STEP failed ..." naming the step
# (source, unpack, patch, configure, kernel build, lttng-modules patch, lttng-modules build).
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
ARCH=$1 tmp=$2 SERIES=${3:-6.1}
case "$ARCH" in
x86_64) MAKEARCH="ARCH=x86_64"; IMAGE=arch/x86/boot/bzImage; TARGET=bzImage ;;
arm64) MAKEARCH="ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-"; IMAGE=arch/arm64/boot/Image
	TARGET=Image ;;
*) echo "build-kernel.sh: unknown arch '$ARCH'" >&2; exit 2 ;;
esac
CACHE=${FOLIOTRACE_CACHE:-$HOME/.cache/foliotrace}
case "$SERIES" in
6.1)
	S=			# the series' infix in the cache's names ("" for 6.1's, older)
	PATCHES=$HERE/patches/linux
	LTTNG_PATCHES=$HERE/patches/lttng-modules
	LTTNG_SRC=$(ls -d /usr/src/lttng-modules-2.13.* 2>/dev/null | tail -n 1)
	ARCH_CONFIG=$HERE/config/$ARCH.config
	# 6.1's modpost only warns about the symbols lttng-modules uses
	MODULES= ;;
6.12)
	S=6.12-
	PATCHES=$HERE/patches/linux-6.12
	LTTNG_PATCHES=$HERE/patches/lttng-modules-2.13.18
	# not installed as a package: Debian 12's 2.13.9, which 6.1 builds with, stays installed
	LTTNG_SRC=${FT_LTTNG_6_12_SRC:-/usr/local/src/lttng-modules-2.13.18}
	ARCH_CONFIG=$HERE/config/6.12/$ARCH.config
	# the guest has no module of its own, but `modules` runs modpost on vmlinux.o and
	# writes Module.symvers, without which 6.12's modpost refuses every symbol
	# lttng-modules uses
	MODULES=modules ;;
*) echo "build-kernel.sh: unknown kernel series '$SERIES' (6.1 or 6.12)" >&2; exit 2 ;;
esac
KSRC_TAR=/usr/src/linux-source-$SERIES.tar.xz
JOBS=${JOBS:-$(nproc)}
say() { echo "build.sh: $SERIES $ARCH: $*" >&2; }
die() { echo "build.sh: $SERIES $ARCH: $*" >&2; exit 1; }
pkgver() { dpkg-query -W -f='${Package}=${Version}\n' "$@" 2>/dev/null; }
hash_inputs() { # hash_inputs FILE... : content hash of files (names and bytes)
	for f in "$@"; do printf '%s\n' "${f#$HERE/}"; cat "$f"; done | sha256sum | cut -c1-16
}
[ -f "$KSRC_TAR" ] || die "source step failed: missing $KSRC_TAR (apt-get install linux-source-$SERIES)"
[ -d "$LTTNG_SRC" ] || die "source step failed: no lttng-modules source for $SERIES (see make deps)"
mkdir -p "$tmp"

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

src=$CACHE/linux-src${S:+-${S%-}}
obj=$CACHE/obj-$S$ARCH
patches=$(ls "$PATCHES"/*.patch 2>/dev/null || :)
skey=$( { pkgver linux-source-$SERIES; [ -z "$patches" ] || hash_inputs $patches; } |
	sha256sum | cut -c1-16)
if [ "$(cat "$src/.foliotrace-key" 2>/dev/null)" != "$skey" ]; then
	say "unpacking $KSRC_TAR and applying $(echo $patches | wc -w) patches"
	rm -rf "$src.new"
	mkdir -p "$src.new"
	tar -C "$src.new" -xf "$KSRC_TAR" || die "unpack step failed"
	new=$src.new/linux-source-$SERIES
	for p in $patches; do
		patch -s -d "$new" -p1 < "$p" || die "patch step failed: $(basename "$p") does not apply"
	done
	if [ -d "$src" ]; then
		rm -f "$src/.foliotrace-key"
		sync_tree "$new" "$src"
		rm -rf "$src.new"
	else
		mv "$new" "$src"
		rmdir "$src.new"
	fi
	echo "$skey" > "$src/.foliotrace-key"
fi

say "configuring"
sh "$HERE/kconfig.sh" "$src" "$obj" "$ARCH" "$HERE/config/common.config" "$ARCH_CONFIG" ||
	die "configure step failed (the kconfig.sh line above)"
say "building the kernel ($TARGET, modules_prepare${MODULES:+, $MODULES}; -j$JOBS)"
start=$(date +%s)
make -s -C "$src" O="$obj" $MAKEARCH -j"$JOBS" "$TARGET" modules_prepare $MODULES \
	> "$tmp/kernel-build.log" 2>&1 ||
	{ tail -30 "$tmp/kernel-build.log" >&2; die "kernel build step failed ($tmp/kernel-build.log)"; }
echo "kernel_seconds=$(( $(date +%s) - start ))" > "$tmp/times"
[ -z "$MODULES" ] || [ -f "$obj/Module.symvers" ] || die "kernel build step failed: no Module.symvers"

say "building lttng-modules $(basename "$LTTNG_SRC") with the anon probe"
lt=$CACHE/lttng-$S$ARCH
rm -rf "$lt"
cp -a "$LTTNG_SRC" "$lt"
for p in $(ls "$LTTNG_PATCHES"/*.patch 2>/dev/null || :); do
	patch -s -d "$lt" -p1 < "$p" ||
		die "lttng-modules patch step failed: $(basename "$p") does not apply"
done
start=$(date +%s)
make -C "$lt" KERNELDIR="$obj" $MAKEARCH -j"$JOBS" modules > "$tmp/lttng-build.log" 2>&1 ||
	{ tail -30 "$tmp/lttng-build.log" >&2; die "lttng-modules build step failed ($tmp/lttng-build.log)"; }
echo "lttng_seconds=$(( $(date +%s) - start ))" >> "$tmp/times"
[ -f "$lt/src/probes/lttng-probe-anon.ko" ] ||
	die "lttng-modules build step failed: lttng-probe-anon.ko was not built"

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
