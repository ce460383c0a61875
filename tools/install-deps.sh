#!/bin/sh
# Install the Debian 12 packages foliotrace needs, only those missing, and unpack Debian
# 13's lttng-modules source for the 6.12 guest kernel (below). Run as root (or with
# sudo available). Also enables the arm64 architecture so the arm64 guest's initramfs can be
# assembled from Debian's arm64 packages (apt-get download, no chroot). mmdebstrap,
# qemu-user-static and arch-test build the arm64 root `record --arch arm64` runs programs
# in (guest-kernel/rootfs.sh, which registers qemu-aarch64 in binfmt_misc itself).
# debhelper and lintian build and check the package of `make deb` (docs/install.md).
set -eu
PKGS="build-essential pkg-config linux-source-6.1 linux-source-6.12 lttng-modules-dkms lttng-tools babeltrace2
 libbabeltrace2-dev libsqlite3-dev sqlite3 qemu-system-x86 qemu-system-arm busybox-static cpio
 flex bison bc libelf-dev libssl-dev gcc-aarch64-linux-gnu libc6-dev-arm64-cross kmod xz-utils
 chromium jq redis-server redis-tools libvirt-daemon libvirt-daemon-driver-qemu libvirt-clients
 man-db clang-14 libclang-rt-14-dev libunwind-dev liblzma-dev
 libunwind-dev:arm64 liblzma-dev:arm64 mmdebstrap qemu-user-static arch-test
 debhelper lintian"
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

# The 6.12 guest kernel's lttng-modules: Debian 13's lttng-modules-dkms 2.13.18 (architecture
# independent; its compatibility code covers kernels to 6.15), fetched with apt from a source
# list of its own (the system's apt sources and preferences are not touched, nothing from
# Debian 13 is installed: Debian 12's lttng-modules-dkms 2.13.9 stays the package the 6.1
# kernel builds with) and unpacked where guest-kernel/build-kernel.sh looks for it (6.12).
LT_VER=2.13.18-1+deb13u1
LT_DIR=${FT_LTTNG_6_12_SRC:-/usr/local/src/lttng-modules-2.13.18}
if [ "$(cat "$LT_DIR/.foliotrace-deb" 2>/dev/null)" != "lttng-modules-dkms=$LT_VER" ]; then
	echo "install-deps: fetching lttng-modules-dkms $LT_VER from Debian 13 (trixie)"
	A=/var/cache/foliotrace/apt-trixie
	$SUDO mkdir -p "$A/lists/partial" "$A/archives/partial" "$A/deb"
	echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie main" |
		$SUDO tee "$A/sources.list" > /dev/null
	APT_OPTS="-o Dir::Etc::SourceList=$A/sources.list -o Dir::Etc::SourceParts=/dev/null
		-o Dir::Etc::Preferences=/dev/null -o Dir::Etc::PreferencesParts=/dev/null
		-o Dir::State::Lists=$A/lists -o Dir::Cache=$A -o Dir::State::status=/dev/null
		-o APT::Architectures::=$(dpkg --print-architecture) -o Acquire::Languages=none"
	$SUDO apt-get -q $APT_OPTS update
	(cd "$A/deb" && $SUDO apt-get -q $APT_OPTS download "lttng-modules-dkms=$LT_VER")
	$SUDO rm -rf "$A/unpack"
	$SUDO dpkg-deb -x "$A/deb/lttng-modules-dkms_${LT_VER}_all.deb" "$A/unpack"
	$SUDO rm -rf "$LT_DIR"
	$SUDO mkdir -p "$(dirname "$LT_DIR")"
	$SUDO mv "$A/unpack/usr/src/lttng-modules-2.13.18" "$LT_DIR"
	echo "lttng-modules-dkms=$LT_VER" | $SUDO tee "$LT_DIR/.foliotrace-deb" > /dev/null
	$SUDO rm -rf "$A/unpack"
fi
echo "install-deps: all packages present"
