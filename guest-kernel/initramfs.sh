#!/bin/sh
# Assemble a guest initramfs (newc cpio, uncompressed: TCG decompresses slowly):
# busybox, lttng-tools with its libraries, kmod, the LTTng modules of KDIR, the bundled
# workloads, and guest-kernel/init as /init.
#
# usage: initramfs.sh ARCH KDIR WORKLOAD_DIR OUT.cpio
#   x86_64: the host's own lttng-tools, busybox-static and kmod (same Debian release).
#   arm64:  Debian's arm64 packages, fetched with `apt-get download PKG:arm64` into
#           $FOLIOTRACE_CACHE/debs-arm64 and unpacked (needs `dpkg --add-architecture arm64`,
#           done by tools/install-deps.sh); no chroot, no qemu-user.
set -eu
ARCH=$1 KDIR=$2 WL=$3 OUT=$4
HERE=$(cd "$(dirname "$0")" && pwd)
KVER=$(cat "$KDIR/kernel.release")
ROOT=$(dirname "$OUT")/rootfs
CACHE=${FOLIOTRACE_CACHE:-$HOME/.cache/foliotrace}
die() { echo "initramfs.sh: $*" >&2; exit 1; }

rm -rf "$ROOT"
mkdir -p "$ROOT"

case "$ARCH" in
x86_64)
	TRIPLET=x86_64-linux-gnu
	STRIP=strip
	mkdir -p "$ROOT/bin" "$ROOT/lib64"
	cp /bin/busybox "$ROOT/bin/busybox"
	# copy an ELF and every shared library it needs, at the same paths as on the host
	copy_elf() {
		mkdir -p "$ROOT$(dirname "$1")"
		cp -L "$1" "$ROOT$1"
		ldd "$1" | awk '/=>/ { print $3 } /^[ \t]*\/lib64/ { print $1 }' |
		while read -r l; do
			[ -n "$l" ] && [ -e "$l" ] || continue
			mkdir -p "$ROOT$(dirname "$l")"
			[ -e "$ROOT$l" ] || cp -L "$l" "$ROOT$l"
		done
	}
	for b in /usr/bin/lttng /usr/bin/lttng-sessiond \
		/usr/lib/$TRIPLET/lttng/libexec/lttng-consumerd /usr/bin/kmod; do
		[ -x "$b" ] || die "missing $b (apt-get install lttng-tools kmod)"
		copy_elf "$b"
	done
	# the key-value service workload (kv-redis): Debian's redis, if installed
	for b in /usr/bin/redis-server /usr/bin/redis-benchmark /usr/bin/redis-cli; do
		[ -x "$b" ] && copy_elf "$b"
	done
	cp -L /lib64/ld-linux-x86-64.so.2 "$ROOT/lib64/"
	mkdir -p "$ROOT/usr/share/xml/lttng"
	cp /usr/share/xml/lttng/session.xsd "$ROOT/usr/share/xml/lttng/"
	BBLIST=$(/bin/busybox --list)
	;;
arm64)
	TRIPLET=aarch64-linux-gnu
	STRIP=aarch64-linux-gnu-strip
	# runtime closure of lttng-sessiond, lttng, lttng-consumerd and kmod on Debian 12 arm64
	PKGS="busybox-static lttng-tools liblttng-ctl0 liburcu8 libxml2 libpopt0 libkmod2 kmod
		liblttng-ust-ctl5 liblttng-ust-common1 libnuma1 libzstd1 liblzma5 libssl3 zlib1g
		libicu72 libstdc++6 libgcc-s1 libc6"
	DEBS=$CACHE/debs-arm64
	if ! ls "$DEBS"/*.deb >/dev/null 2>&1; then
		mkdir -p "$DEBS.tmp"
		(cd "$DEBS.tmp" && apt-get download $(for p in $PKGS; do echo "$p:arm64"; done)) ||
			die "apt-get download of arm64 packages failed (dpkg --add-architecture arm64; apt-get update)"
		rm -rf "$DEBS"
		mv "$DEBS.tmp" "$DEBS"
	fi
	for d in "$DEBS"/*.deb; do dpkg-deb -x "$d" "$ROOT"; done
	rm -rf "$ROOT"/usr/share/doc "$ROOT"/usr/share/man "$ROOT"/usr/share/info \
		"$ROOT"/usr/share/locale "$ROOT"/usr/share/lintian "$ROOT"/etc/init.d \
		"$ROOT"/lib/systemd "$ROOT"/usr/lib/systemd "$ROOT/usr/lib/$TRIPLET/gconv"
	# libxml2 links libicuuc only
	rm -f "$ROOT/usr/lib/$TRIPLET"/libicui18n.so* "$ROOT/usr/lib/$TRIPLET"/libicuio.so* \
		"$ROOT/usr/lib/$TRIPLET"/libicutest.so* "$ROOT/usr/lib/$TRIPLET"/libicutu.so*
	[ -e "$ROOT/lib/ld-linux-aarch64.so.1" ] || die "missing the arm64 loader"
	[ -f "$ROOT/usr/share/xml/lttng/session.xsd" ] || die "missing session.xsd"
	# Every DT_NEEDED of what the guest runs must be in the unpacked packages: a missing
	# one is found here rather than as an obscure failure at boot.
	libpath() {
		for d in lib/$TRIPLET usr/lib/$TRIPLET lib usr/lib; do
			[ -e "$ROOT/$d/$1" ] && { echo "$d/$1"; return 0; }
		done
		return 1
	}
	todo="usr/bin/lttng usr/bin/lttng-sessiond usr/lib/$TRIPLET/lttng/libexec/lttng-consumerd
		bin/kmod"
	seen=" "
	while [ -n "$todo" ]; do
		set -- $todo
		f=$1
		shift
		todo="$*"
		case "$seen" in *" $f "*) continue ;; esac
		seen="$seen$f "
		for n in $(readelf -d "$ROOT/$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
			p=$(libpath "$n") || die "$n (needed by /$f) is in none of the packages"
			todo="$todo $p"
		done
	done
	# the arm64 busybox cannot run here: the host's busybox-static has the same applets
	BBLIST=$(/bin/busybox --list)
	;;
*)
	die "unknown arch $ARCH"
	;;
esac

mkdir -p "$ROOT/bin" "$ROOT/sbin" "$ROOT/usr/bin" "$ROOT/usr/sbin" "$ROOT/proc" "$ROOT/sys" \
	"$ROOT/dev" "$ROOT/tmp" "$ROOT/run" "$ROOT/mnt/out" "$ROOT/root" "$ROOT/etc" \
	"$ROOT/usr/libexec/foliotrace"
mkdir -p "$ROOT/var"
ln -sfn /run "$ROOT/var/run"
have() {
	for d in bin sbin usr/bin usr/sbin; do
		[ -e "$ROOT/$d/$1" ] || [ -L "$ROOT/$d/$1" ] && return 0
	done
	return 1
}
for a in $BBLIST; do have "$a" || ln -s busybox "$ROOT/bin/$a"; done
# kmod's module tools, not busybox's: lttng-sessiond loads modules through libkmod
for a in modprobe insmod rmmod lsmod modinfo depmod; do
	rm -f "$ROOT/bin/$a" "$ROOT/sbin/$a"
	ln -s /usr/bin/kmod "$ROOT/sbin/$a"
done
[ -e "$ROOT/usr/bin/kmod" ] || ln -s /bin/kmod "$ROOT/usr/bin/kmod"

# LTTng modules
MD="$ROOT/lib/modules/$KVER"
mkdir -p "$MD/extra"
cp -a "$KDIR/lttng/." "$MD/extra/"
for f in modules.builtin modules.builtin.modinfo modules.order; do
	[ -f "$KDIR/$f" ] && cp "$KDIR/$f" "$MD/" || :
done
# the kernel itself builds no modules: empty lists keep depmod quiet
[ -f "$MD/modules.builtin" ] || : > "$MD/modules.builtin"
[ -f "$MD/modules.order" ] || : > "$MD/modules.order"
find "$MD/extra" -name '*.ko' -exec $STRIP --strip-debug {} +
depmod -b "$ROOT" "$KVER"
[ -f "$MD/extra/probes/lttng-probe-anon.ko" ] || die "lttng-probe-anon.ko missing from $KDIR"

# workloads: /usr/libexec/foliotrace/NAME, also on PATH as /bin/NAME (they win over applets)
for w in "$WL"/*; do
	cp "$w" "$ROOT/usr/libexec/foliotrace/"
	rm -f "$ROOT/bin/$(basename "$w")"
	ln -s "/usr/libexec/foliotrace/$(basename "$w")" "$ROOT/bin/$(basename "$w")"
done
cp "$HERE/init" "$ROOT/init"
chmod +x "$ROOT/init"
echo 'root:x:0:0:root:/root:/bin/sh' > "$ROOT/etc/passwd"
printf 'root:x:0:\ntracing:x:999:\n' > "$ROOT/etc/group"
echo "$ARCH" > "$ROOT/etc/foliotrace-arch"

(cd "$ROOT" && find . -print0 | cpio --null -o -H newc --quiet) > "$OUT"
rm -rf "$ROOT"
echo "initramfs.sh: $OUT ($(du -h "$OUT" | cut -f1)), kernel $KVER"
