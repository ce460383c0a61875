#!/bin/sh
# Build (or find) a Debian 12 root filesystem of another architecture for
# `foliotrace record --arch A -- CMD` (docs/guest.md, "arm64: the built root").
#
# usage: rootfs.sh [--arch arm64] [--packages LIST] [--print-dir] [--error-file FILE]
#
# LIST: more Debian packages, separated by commas or spaces, on top of DEFAULT_PACKAGES.
# The root is built by mmdebstrap (bookworm, main, with -updates and -security) and cached
# under $FOLIOTRACE_CACHE (default ~/.cache/foliotrace) as rootfs-<arch>-<key>/root, key =
# hash of the sorted package list, the arch, the mirror, the versions of mmdebstrap and
# qemu-user-static and this script. A warm call only hashes and returns. The root's
# directory is printed on the last line of stdout (with --print-dir only that line;
# everything else goes to stderr).
#
# Foreign-arch maintainer scripts run under qemu-user through binfmt_misc: this script
# mounts binfmt_misc and registers Debian's qemu-aarch64 line (flag F: the interpreter is
# opened at registration, so it works inside the chroot) when they are missing; that
# needs root. The build runs in tmp-rootfs-<arch>-<key>/ and is renamed into place when
# complete: an interrupted or failed build leaves nothing that counts as built. While it
# runs, a line a minute on stderr says what mmdebstrap is doing and the elapsed time
# (FT_ROOTFS_TICK: other interval, seconds). A failure is one line on stderr, exit 1;
# mmdebstrap's output stays in rootfs-<arch>-<key>.log. With --error-file, the line of a
# failure or usage error goes to FILE instead (the CLI prints it as its own one line).
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
ARCH=arm64
EXTRA=
PRINT_DIR=
ERRFILE=
# The bundled real workloads (docs/workloads.md: gcc, make, python3, xz, redis-server) and
# what `make defconfig && make mm/<file>.o` of linux-source-6.1 needs (the kbuild
# workload): bc (timeconst.h), flex and bison (kconfig), libc6-dev, libelf-dev and
# libssl-dev (host programs of scripts/ and certs/), the source tarball itself at
# /usr/src/linux-source-6.1.tar.xz, as on the host. procps: ps/top/free for scripts.
DEFAULT_PACKAGES="gcc make python3 xz-utils redis-server bc flex bison libc6-dev libelf-dev
 libssl-dev linux-source-6.1 procps"
# fail STATUS MESSAGE: one line, on stderr or into --error-file
fail() {
	st=$1
	shift
	if [ -n "$ERRFILE" ]; then echo "$*" > "$ERRFILE"; else echo "rootfs.sh: $*" >&2; fi
	exit "$st"
}
usage() { fail 2 "usage: rootfs.sh [--arch arm64] [--packages LIST] [--print-dir] [--error-file FILE]"; }
while [ $# -gt 0 ]; do
	case "$1" in
	--arch) [ $# -ge 2 ] || usage; ARCH=$2; shift 2 ;;
	--packages) [ $# -ge 2 ] || usage; EXTRA="$EXTRA $2"; shift 2 ;;
	--print-dir) PRINT_DIR=1; shift ;;
	--error-file) [ $# -ge 2 ] || usage; ERRFILE=$2; shift 2 ;;
	*) usage ;;
	esac
done
case "$ARCH" in
arm64) QEMU=aarch64 ;;
*) fail 2 "no root to build for '$ARCH' (arm64; x86_64 records on the host's own root)" ;;
esac
PACKAGES=$(echo "$DEFAULT_PACKAGES $EXTRA" | tr ', ' '\n\n' | sed '/^$/d' | sort -u)
for p in $PACKAGES; do
	case "$p" in
	[a-z0-9]*) case "$p" in *[!a-z0-9+.-]*) ;; *) continue ;; esac ;;
	esac
	fail 2 "'$p' is not a Debian package name"
done

CACHE=${FOLIOTRACE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/foliotrace}
MIRROR=${FT_DEBIAN_MIRROR:-http://deb.debian.org/debian}
SECURITY=${FT_DEBIAN_SECURITY:-http://deb.debian.org/debian-security}
SUITE=bookworm
TICK=${FT_ROOTFS_TICK:-60}
# What the root is made of (with the packages, the mirrors and the tools' versions),
# all hashed into the key: changing any of it builds a new root. ROOTFS_FORMAT: bump it
# when a change of this script changes the root in another way.
ROOTFS_FORMAT=1
VARIANT=apt
DPKGOPTS="path-exclude=/usr/share/man/* path-exclude=/usr/share/doc/*
 path-include=/usr/share/doc/*/copyright path-exclude=/usr/share/locale/*
 path-exclude=/usr/share/info/*"

say() { echo "rootfs.sh: $*" >&2; }
die() { fail 1 "$*"; }
command -v mmdebstrap > /dev/null || die "mmdebstrap is not installed (make deps)"
pkgver() { dpkg-query -W -f='${Package}=${Version}\n' "$@" 2>/dev/null || true; }

KEY=$( { echo "$ROOTFS_FORMAT $ARCH $SUITE $VARIANT $MIRROR $SECURITY"; echo "$DPKGOPTS";
	echo "$PACKAGES"; pkgver mmdebstrap qemu-user-static; } | sha256sum | cut -c1-16)
RDIR=$CACHE/rootfs-$ARCH-$KEY
LOG=$CACHE/rootfs-$ARCH-$KEY.log
TMP=$CACHE/tmp-rootfs-$ARCH-$KEY

done_root() {
	touch "$RDIR"	# most recently used: the last one evicted
	[ -n "$PRINT_DIR" ] || say "$ARCH root $KEY: $(wc -l < "$RDIR/installed") packages"
	echo "$RDIR/root"
	exit 0
}
# A built root needs no lock: it appears complete, by rename.
[ -d "$RDIR/root" ] && done_root

# remove_tree DIR: a chroot mmdebstrap was killed in may still have /proc, /sys, /dev
# mounted inside: unmount them (deepest first) before removing, and never cross into
# another file system (rm --one-file-system), so the host's /dev can never be deleted.
remove_tree() {
	[ -e "$1" ] || return 0
	awk -v d="$1" '$5 == d || index($5, d "/") == 1 { print $5 }' /proc/self/mountinfo |
		sort -r | while read -r m; do umount -l "$m" 2>/dev/null || true; done
	if awk -v d="$1" '$5 == d || index($5, d "/") == 1 { f = 1 } END { exit !f }' \
		/proc/self/mountinfo; then
		die "cannot unmount what is mounted under $1; remove it by hand"
	fi
	rm -rf --one-file-system "$1"
}

# Foreign programs (maintainer scripts) run through binfmt_misc and qemu-user-static.
binfmt() {
	case "$(uname -m)" in aarch64) [ "$ARCH" = arm64 ] && return 0 ;; esac
	F=/proc/sys/fs/binfmt_misc
	if [ ! -e "$F/register" ]; then
		[ "$(id -u)" = 0 ] || die "binfmt_misc is not mounted; as root: mount -t binfmt_misc binfmt_misc $F"
		mount -t binfmt_misc binfmt_misc "$F" || die "cannot mount binfmt_misc on $F"
	fi
	grep -qx enabled "$F/status" || die "binfmt_misc is disabled ($F/status)"
	if ! grep -qx enabled "$F/qemu-$QEMU" 2>/dev/null; then
		conf=/usr/lib/binfmt.d/qemu-$QEMU.conf
		[ -f "$conf" ] || die "$conf is missing (apt-get install qemu-user-static; make deps)"
		[ "$(id -u)" = 0 ] || die "qemu-$QEMU is not registered in binfmt_misc; as root: grep -v '^#' $conf > $F/register"
		[ ! -e "$F/qemu-$QEMU" ] || echo -1 > "$F/qemu-$QEMU"	# registered, disabled
		grep -v '^#' "$conf" > "$F/register" || die "cannot register qemu-$QEMU in $F"
		say "registered qemu-$QEMU in binfmt_misc ($conf)"
	fi
}

# ticker PID T0: while PID lives, a line every TICK seconds: mmdebstrap's phase (its last
# "I:" line) or the package dpkg is at, and the elapsed time.
ticker() {
	while sleep "$TICK" < /dev/null > /dev/null 2>&1 && kill -0 "$1" 2>/dev/null; do
		el=$(( $(date +%s) - $2 ))
		at=$(grep -E '^I: |^(Unpacking|Setting up) ' "$LOG" 2>/dev/null | tail -n 1 |
			sed 's/^I: //; s/ (.*//' | cut -c1-70)
		say "$ARCH root: ${at:-starting}, $((el / 60))m$((el % 60))s elapsed"
	done
}

# stop_build: TERM to mmdebstrap's process group, KILL after 10 s, then remove the tree.
# (dash's kill takes no "--": a negative pid names the group.)
stop_build() {
	kill "$tpid" 2>/dev/null || true
	kill -TERM "-$mpid" 2>/dev/null || true
	n=0
	while kill -0 "$mpid" 2>/dev/null && [ $n -lt 10 ]; do sleep 1; n=$((n + 1)); done
	kill -KILL "-$mpid" 2>/dev/null || true
	wait "$mpid" 2>/dev/null || true
	remove_tree "$TMP"
}

build() {
	binfmt
	for old in "$CACHE"/tmp-rootfs-"$ARCH"-*; do	# interrupted builds (we hold the lock)
		remove_tree "$old"
	done
	mkdir -p "$TMP"
	t0=$(date +%s)
	say "building the $ARCH Debian $SUITE root with mmdebstrap ($(echo $PACKAGES | wc -w)" \
		"packages asked for, 6-20 minutes; log in $LOG)"
	# mmdebstrap runs in the background, in its own process group, so that an interrupt
	# reaches this shell's trap at once and the trap stops all of it (apt, dpkg, the
	# maintainer scripts: on TERM alone mmdebstrap waits for the running step to finish);
	# remove_tree then unmounts what it left mounted in the chroot.
	set -f	# DPKGOPTS' globs are dpkg's
	set --
	for o in $DPKGOPTS; do set -- "$@" --dpkgopt="$o"; done
	set +f
	setsid mmdebstrap --verbose --mode=auto --variant="$VARIANT" --arch="$ARCH" \
		--include="$(echo $PACKAGES | tr ' ' ,)" --aptopt='Acquire::Retries "3"' "$@" \
		"$SUITE" "$TMP/root" "deb $MIRROR $SUITE main" "deb $MIRROR $SUITE-updates main" \
		"deb $SECURITY $SUITE-security main" < /dev/null > "$LOG" 2>&1 9>&- &
	mpid=$!
	ticker $mpid "$t0" 9>&- &	# neither may hold the lock (fd 9) after this shell
	tpid=$!
	trap 'stop_build; say "interrupted; nothing kept"; exit 130' INT TERM HUP
	rc=0
	wait $mpid || rc=$?
	kill $tpid 2>/dev/null || true
	trap - INT TERM HUP
	if [ $rc != 0 ]; then
		why=$(grep -E '^E: ' "$LOG" | head -n 1 | cut -c4-200)
		remove_tree "$TMP"
		die "mmdebstrap failed (exit $rc): ${why:-see the log}; log in $LOG"
	fi
	[ -x "$TMP/root/bin/sh" ] && [ -d "$TMP/root/usr" ] || { remove_tree "$TMP"; die "mmdebstrap left no root in $TMP"; }
	echo "$PACKAGES" > "$TMP/packages"
	dpkg-query --admindir="$TMP/root/var/lib/dpkg" -W -f='${Package}=${Version}\n' > "$TMP/installed"
	echo $(( $(date +%s) - t0 )) > "$TMP/build-seconds"
	remove_tree "$RDIR"
	mv "$TMP" "$RDIR"
	say "$ARCH root built in $(cat "$RDIR/build-seconds") s: $RDIR/root"
	# Keep the 3 most recently used roots of this arch (about 1 GB each).
	ls -dt "$CACHE"/rootfs-"$ARCH"-*/ | tail -n +4 | while read -r old; do
		remove_tree "${old%/}"
		rm -f "${old%/}.log"
	done
}

# One build per arch at a time: a second call waits and finds the root built.
mkdir -p "$CACHE"
exec 9>"$CACHE/.rootfs-lock-$ARCH"
if ! flock -n 9; then
	say "waiting for another build of the $ARCH root"
	flock 9
fi
[ -d "$RDIR/root" ] || build
exec 9>&-
done_root
