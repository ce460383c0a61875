#!/bin/sh
# Install the Debian 12 packages foliotrace needs, only those missing. Run as root (or with
# sudo available). Also enables the arm64 architecture so the arm64 guest's initramfs can be
# assembled from Debian's arm64 packages (apt-get download, no chroot). mmdebstrap,
# qemu-user-static and arch-test build the arm64 root `record --arch arm64` runs programs
# in (guest-kernel/rootfs.sh, which registers qemu-aarch64 in binfmt_misc itself).
set -eu
PKGS="build-essential pkg-config linux-source-6.1 lttng-modules-dkms lttng-tools babeltrace2
 libbabeltrace2-dev libsqlite3-dev sqlite3 qemu-system-x86 qemu-system-arm busybox-static cpio
 flex bison bc libelf-dev libssl-dev gcc-aarch64-linux-gnu libc6-dev-arm64-cross kmod xz-utils
 chromium jq redis-server redis-tools libvirt-daemon libvirt-daemon-driver-qemu libvirt-clients
 man-db clang-14 libclang-rt-14-dev libunwind-dev liblzma-dev
 libunwind-dev:arm64 liblzma-dev:arm64 mmdebstrap qemu-user-static arch-test"
SUDO=
[ "$(id -u)" = 0 ] || SUDO=sudo
missing=
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing="$missing $p"
done
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
	$SUDO dpkg --add-architecture arm64
	need_update=1
fi
if [ -n "$missing" ] || [ -n "${need_update:-}" ]; then
	echo "install-deps: installing:${missing:- (none; arm64 architecture added)}"
	$SUDO apt-get update -q
	[ -z "$missing" ] || DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q \
		--no-install-recommends $missing
fi
echo "install-deps: all packages present"
