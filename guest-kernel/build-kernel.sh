#!/bin/sh
# Build the patched guest kernel and lttng-modules with the anon probe for one arch, into
# OUT (kernel image, config, kernel.release, modules.*, lttng/*.ko, times, build logs).
# Called by build.sh, which caches OUT under a hash of this file and every other input of
# the kernel build (so an edit here rebuilds kernels; an edit of build.sh does not).
#
# usage: build-kernel.sh ARCH OUT      env: FOLIOTRACE_CACHE (trees), JOBS (make -j)
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
ARCH=$1 tmp=$2
case "$ARCH" in
x86_64) MAKEARCH="ARCH=x86_64"; IMAGE=arch/x86/boot/bzImage; TARGET=bzImage ;;
arm64) MAKEARCH="ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-"; IMAGE=arch/arm64/boot/Image
	TARGET=Image ;;
*) echo "build-kernel.sh: unknown arch '$ARCH'" >&2; exit 2 ;;
esac
CACHE=${FOLIOTRACE_CACHE:-$HOME/.cache/foliotrace}
KSRC_TAR=/usr/src/linux-source-6.1.tar.xz
LTTNG_SRC=$(ls -d /usr/src/lttng-modules-2.13.* 2>/dev/null | tail -n 1)
JOBS=${JOBS:-$(nproc)}
say() { echo "build.sh: $*" >&2; }
die() { echo "build.sh: $*" >&2; exit 1; }
pkgver() { dpkg-query -W -f='${Package}=${Version}\n' "$@" 2>/dev/null; }
hash_inputs() { # hash_inputs FILE... : content hash of files (names and bytes)
	for f in "$@"; do printf '%s\n' "${f#$HERE/}"; cat "$f"; done | sha256sum | cut -c1-16
}
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
