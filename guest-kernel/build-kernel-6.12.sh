#!/bin/sh
# Build the patched Linux 6.12 guest kernel (Debian's linux-source-6.12) and lttng-modules
# 2.13.18 with the anon probe for one arch, into OUT, as build-kernel.sh does for 6.1 (same
# OUT layout: image, config, kernel.release, modules.*, lttng/*.ko, times, build logs).
# A file of its own so that 6.1's scripts, which 6.1's cache key hashes, stay byte for byte
# what they were and the cached 6.1 kernels stay valid. Its own trees, never 6.1's:
#   $CACHE/linux-src-6.12      the patched source (patches/linux-6.12/)
#   $CACHE/obj-6.12-ARCH       kbuild's objects
#   $CACHE/lttng-6.12-ARCH     lttng-modules 2.13.18 (patches/lttng-modules-2.13.18/)
# Configuration: tinyconfig + config/common.config (shared with 6.1) + config/6.12/ARCH.config.
#
# usage: build-kernel-6.12.sh ARCH OUT      env: FOLIOTRACE_CACHE (trees), JOBS (make -j)
# Every failure ends with one line "build.sh: 6.12 ARCH: STEP failed ..." naming the step.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
ARCH=$1 tmp=$2
case "$ARCH" in
x86_64) MAKEARCH="ARCH=x86_64"; IMAGE=arch/x86/boot/bzImage; TARGET=bzImage ;;
arm64) MAKEARCH="ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-"; IMAGE=arch/arm64/boot/Image
	TARGET=Image ;;
*) echo "build-kernel-6.12.sh: unknown arch '$ARCH'" >&2; exit 2 ;;
esac
CACHE=${FOLIOTRACE_CACHE:-$HOME/.cache/foliotrace}
KSRC_TAR=/usr/src/linux-source-6.12.tar.xz
# unpacked from Debian 13's lttng-modules-dkms by tools/install-deps.sh (not installed as a
# package: Debian 12's 2.13.9, which the 6.1 kernel builds with, stays the installed one)
LTTNG_SRC=${FT_LTTNG_6_12_SRC:-/usr/local/src/lttng-modules-2.13.18}
JOBS=${JOBS:-$(nproc)}
say() { echo "build.sh: 6.12 $ARCH: $*" >&2; }
die() { echo "build.sh: 6.12 $ARCH: $*" >&2; exit 1; }
pkgver() { dpkg-query -W -f='${Package}=${Version}\n' "$@" 2>/dev/null; }
hash_inputs() { # hash_inputs FILE... : content hash of files (names and bytes)
	for f in "$@"; do printf '%s\n' "${f#$HERE/}"; cat "$f"; done | sha256sum | cut -c1-16
}
[ -f "$KSRC_TAR" ] || die "source step failed: missing $KSRC_TAR (apt-get install linux-source-6.12)"
[ -d "$LTTNG_SRC" ] || die "source step failed: missing $LTTNG_SRC (tools/install-deps.sh)"
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

src=$CACHE/linux-src-6.12
obj=$CACHE/obj-6.12-$ARCH
patches=$(ls "$HERE"/patches/linux-6.12/*.patch 2>/dev/null || :)
skey=$( { pkgver linux-source-6.12; [ -z "$patches" ] || hash_inputs $patches; } |
	sha256sum | cut -c1-16)
if [ "$(cat "$src/.foliotrace-key" 2>/dev/null)" != "$skey" ]; then
	say "unpacking $KSRC_TAR and applying $(echo $patches | wc -w) patches"
	rm -rf "$CACHE/linux-src-6.12.new"
	mkdir -p "$CACHE/linux-src-6.12.new"
	tar -C "$CACHE/linux-src-6.12.new" -xf "$KSRC_TAR" || die "unpack step failed"
	new=$CACHE/linux-src-6.12.new/linux-source-6.12
	for p in $patches; do
		patch -s -d "$new" -p1 < "$p" || die "patch step failed: $(basename "$p") does not apply"
	done
	if [ -d "$src" ]; then
		rm -f "$src/.foliotrace-key"
		sync_tree "$new" "$src"
		rm -rf "$CACHE/linux-src-6.12.new"
	else
		mv "$new" "$src"
		rmdir "$CACHE/linux-src-6.12.new"
	fi
	echo "$skey" > "$src/.foliotrace-key"
fi

say "configuring"
mkdir -p "$obj"
make -s -C "$src" O="$obj" $MAKEARCH tinyconfig >/dev/null 2>&1 || die "configure step failed (tinyconfig)"
frags="$HERE/config/common.config $HERE/config/6.12/$ARCH.config"
grep -h '^CONFIG_' $frags | while IFS='=' read -r opt val; do
	case "$val" in
	y) "$src/scripts/config" --file "$obj/.config" --enable "${opt#CONFIG_}" ;;
	n) "$src/scripts/config" --file "$obj/.config" --disable "${opt#CONFIG_}" ;;
	*) "$src/scripts/config" --file "$obj/.config" --set-val "${opt#CONFIG_}" "$val" ;;
	esac
done
make -s -C "$src" O="$obj" $MAKEARCH olddefconfig || die "configure step failed (olddefconfig)"
for line in $(grep -h '^CONFIG_' $frags); do
	grep -qx "$line" "$obj/.config" || die "configure step failed: $line did not stick"
done

# `modules` too: the guest has no module of its own, but it is what runs modpost on
# vmlinux.o and writes Module.symvers, without which 6.12's modpost refuses every symbol
# lttng-modules uses (6.1's only warned)
say "building the kernel ($TARGET, modules_prepare, modules; -j$JOBS)"
start=$(date +%s)
make -s -C "$src" O="$obj" $MAKEARCH -j"$JOBS" "$TARGET" modules_prepare modules \
	> "$tmp/kernel-build.log" 2>&1 ||
	{ tail -30 "$tmp/kernel-build.log" >&2; die "kernel build step failed ($tmp/kernel-build.log)"; }
echo "kernel_seconds=$(( $(date +%s) - start ))" > "$tmp/times"
[ -f "$obj/Module.symvers" ] || die "kernel build step failed: no Module.symvers"

say "building lttng-modules $(basename "$LTTNG_SRC") with the anon probe"
lt=$CACHE/lttng-6.12-$ARCH
rm -rf "$lt"
cp -a "$LTTNG_SRC" "$lt"
for p in $(ls "$HERE"/patches/lttng-modules-2.13.18/*.patch 2>/dev/null || :); do
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
