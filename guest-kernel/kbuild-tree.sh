#!/bin/sh
# Prepare the kernel tree the bundled `kbuild` workload compiles (workloads/kbuild.sh):
# Debian's linux-source-6.1, pristine, configured with the arch's defconfig and `make
# prepare`d (Kconfig, generated headers, fixdep and the other host programs, objtool on
# x86_64), so that a recording holds only `make -jN mm/OBJ.o ...`: the compiler's faults,
# not Kconfig's. Done once, outside any recording, cached under a key of the source
# package's version, the arch, the root and this file.
#
# usage: kbuild-tree.sh --arch x86_64|arm64 --root DIR [--make]
#
# DIR is the root filesystem the workload will run in (`/` for the host's own, x86_64
# only). The tree must be inside it, because the guest sees nothing else of the host:
#   root /        $FOLIOTRACE_CACHE/kbuild-x86_64/     (the host's / is the guest's root)
#   root DIR      DIR/usr/src/foliotrace-kbuild/       (written into that root)
# and it is prepared with that root's own make and gcc: on the host for /, chrooted into
# DIR otherwise (an arm64 root runs through qemu-user's binfmt handler; unshare -r gives
# the chroot to a user who is not root), except in the cross case below. kbuild compares
# the compiler's version text with the one the tree was configured with and reconfigures
# on a mismatch, which the recording must not do: the kernel's own make in the guest
# needs a tree configured by the root's own compiler (and host programs such as fixdep
# built for the root's arch).
#
# Cross case (arm64 root on an x86_64 host, the default objects): the workload then runs
# only kbuild.mk's compile commands (no Kconfig, no fixdep), so the tree is prepared and
# the objects built on the host with Debian's cross compiler (make ARCH=arm64
# CROSS_COMPILE=aarch64-linux-gnu-), 24 s instead of about 35 minutes under qemu-user
# (docs/times.md). The commands start with aarch64-linux-gnu-gcc, which the arm64 root
# has too (a link to its gcc-12), so they run unchanged in the guest; the host's path of
# the tree in them is rewritten to the guest's. Taken only when the host's cross gcc and
# the root's gcc are the same upstream version (gcc -dumpfullversion), so that the flags
# Kconfig and the Makefiles' cc-option probes chose are the root gcc's. --make (objects
# all or a list: the kernel's own make runs in the guest; foliotrace record passes it)
# keeps the native preparation, in its own directory /usr/src/foliotrace-kbuild-native
# in the cross case, made the first time it is asked for.
#
#
# Layout: TREE/linux-source-6.1 (the source), TREE/obj (O=, with .config), TREE/kbuild.mk
# (the compile commands of the default objects, see below), TREE/key, TREE/mk-key,
# TREE/times (seconds each step took).
# Prints the tree's path as the workload sees it (inside the root) on the last line of
# stdout; progress on stderr. Exit 0, or 1 with a one-line reason.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
ARCH= ROOT= MAKE=
while [ $# -gt 0 ]; do
	case "$1" in
	--arch) ARCH=$2; shift 2 ;;
	--root) ROOT=$2; shift 2 ;;
	--make) MAKE=1; shift ;;
	*) echo "usage: kbuild-tree.sh --arch x86_64|arm64 --root DIR [--make]" >&2; exit 2 ;;
	esac
done
case "$ARCH" in
x86_64|arm64) ;;
*) echo "usage: kbuild-tree.sh --arch x86_64|arm64 --root DIR [--make]" >&2; exit 2 ;;
esac
[ -n "$ROOT" ] || { echo "usage: kbuild-tree.sh --arch x86_64|arm64 --root DIR [--make]" >&2; exit 2; }
say() { echo "kbuild-tree.sh: $*" >&2; }
die() { echo "kbuild-tree.sh: $*" >&2; exit 1; }

CACHE=${FOLIOTRACE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/foliotrace}
KSRC_TAR=/usr/src/linux-source-6.1.tar.xz
[ -f "$KSRC_TAR" ] || die "missing $KSRC_TAR (apt-get install linux-source-6.1; see make deps)"
ROOT=$(cd "$ROOT" 2>/dev/null && pwd) || die "no such root directory: $ROOT"
CROSS=		# the cross compiler's prefix in the cross case (see the top)
if [ "$ROOT" = / ]; then
	[ "$ARCH" = "$(uname -m | sed 's/aarch64/arm64/')" ] ||
		die "the host's root has no $ARCH compiler: give an $ARCH root"
	TREE=$CACHE/kbuild-$ARCH		# as the workload sees it, and on the host
	HOST_TREE=$TREE
	inroot() { sh -c "$1"; }
else
	TREE=/usr/src/foliotrace-kbuild
	if [ "$(id -u)" = 0 ]; then
		inroot() { chroot "$ROOT" /bin/sh -c "$1"; }
	else
		inroot() { unshare -r chroot "$ROOT" /bin/sh -c "$1"; }
	fi
	if [ "$ARCH-$(uname -m)" = arm64-x86_64 ]; then
		v=$(aarch64-linux-gnu-gcc -dumpfullversion 2>/dev/null) || v=
		[ -z "$v" ] || [ "$v" != "$(inroot 'aarch64-linux-gnu-gcc -dumpfullversion' 2>/dev/null)" ] ||
			CROSS=aarch64-linux-gnu-
		# the kernel's own make needs the native tree, kept apart from the cross one
		[ -z "$CROSS" ] || [ -z "$MAKE" ] || { CROSS= TREE=$TREE-native; }
	fi
	HOST_TREE=$ROOT$TREE
fi
# need WHERE RUN TOOL...: exit 1 naming the first TOOL that `command -v`, run by RUN (sh -c
# on the host, inroot in the root), does not find in WHERE
need() {
	where=$1 run=$2
	shift 2
	for t in "$@"; do
		$run "command -v $t" > /dev/null 2>&1 ||
			die "$where has no $t (the kernel's prepare step needs $(echo "$*" | sed 's/ /, /g'))"
	done
}
if [ -n "$CROSS" ]; then
	# prepared on the host: the host's make and tools, the compiler run in the root
	need "the host" "sh -c" make flex bison bc
	need "the root $ROOT" inroot ${CROSS}gcc
	build() { sh -c "$1"; }
	MKARGS="ARCH=$ARCH CROSS_COMPILE=$CROSS"
	BTREE=$HOST_TREE	# the tree's path where it is built
else
	need "the root $ROOT" inroot make gcc flex bison bc
	build() { inroot "$1"; }
	MKARGS="ARCH=$ARCH"
	BTREE=$TREE
fi
# The objects of `kbuild` (--objects default; docs/workloads.md): chosen to record in at
# most 5 minutes under TCG on these machines (2 cores shared; measured in docs/times.md).
OBJECTS="mmap mprotect mremap madvise mlock mincore"
# Two cache levels: the prepared tree (pkey: source, arch, root, its compiler, and
# PREPARE_FORMAT, bumped when the preparing steps change; in the cross case also the host's
# cross compiler) and kbuild.mk (mkey: pkey and
# the object list and MK_FORMAT), so a new list does not unpack and prepare again.
PREPARE_FORMAT=1 MK_FORMAT=1
pkey=$( { dpkg-query -W -f='${Package}=${Version}\n' linux-source-6.1; echo "$ARCH $ROOT";
	inroot 'gcc --version | head -n 1; make --version | head -n 1'; echo "$PREPARE_FORMAT";
	[ -z "$CROSS" ] || { echo "cross $CROSS"; ${CROSS}gcc --version | head -n 1; make --version | head -n 1; }; } |
	sha256sum | cut -c1-16)
mkey=$(echo "$pkey $OBJECTS $MK_FORMAT" | sha256sum | cut -c1-16)

mkdir -p "$(dirname "$HOST_TREE")"
exec 9> "$HOST_TREE.lock"
flock 9	# one preparer per tree; a second caller waits, then finds it ready
start=$(date +%s)
if [ "$(cat "$HOST_TREE/key" 2>/dev/null)" != "$pkey" ]; then
	say "preparing the $ARCH kbuild tree in $HOST_TREE (unpack, defconfig, make prepare${CROSS:+ with ${CROSS}gcc on the host}; once)"
	# kbuild writes absolute paths into the object tree: it is built where it is used,
	# and a tree without the key file is incomplete and rebuilt from scratch
	rm -rf "$HOST_TREE"
	mkdir -p "$HOST_TREE"
	tar -C "$HOST_TREE" -xf "$KSRC_TAR"
	build "make -s -C $BTREE/linux-source-6.1 O=$BTREE/obj $MKARGS defconfig &&
		make -s -C $BTREE/obj $MKARGS -j$(nproc) prepare" > "$HOST_TREE.log" 2>&1 ||
		{ tail -n 20 "$HOST_TREE.log" >&2; die "preparing the tree failed (log: $HOST_TREE.log)"; }
	echo "prepare_seconds=$(( $(date +%s) - start ))" > "$HOST_TREE/times"
	echo "$pkey" > "$HOST_TREE/key"
fi
# kbuild.mk: one rule per object holding the exact command kbuild ran for it (gcc with the
# tree's flags, then objtool on x86_64), read from the mm/.OBJ.o.cmd files of one real
# build here. Every invocation of the kernel's own make evaluates its Makefiles' cc-option
# probes first, dozens of gcc runs (minutes under TCG) that are Kconfig-like setup and not
# the compile: the workload runs `make -f kbuild.mk -jN` instead (--objects default).
if [ "$(cat "$HOST_TREE/mk-key" 2>/dev/null)" != "$mkey" ]; then
	mstart=$(date +%s)
	targets=
	for o in $OBJECTS; do targets="$targets mm/$o.o"; done
	say "recording the compile commands of$targets"
	build "make -s -C $BTREE/obj $MKARGS -j$(nproc) $targets" >> "$HOST_TREE.log" 2>&1 ||
		{ tail -n 20 "$HOST_TREE.log" >&2; die "building$targets failed (log: $HOST_TREE.log)"; }
	{
		echo "# kbuild.mk: generated by guest-kernel/kbuild-tree.sh from the .cmd files of"
		echo "# one build of these objects; run as make -C $TREE/obj -f $TREE/kbuild.mk"
		echo "pound := \\#"	# kbuild's .cmd files write # as \$(pound)
		echo "all:$targets"
		echo ".PHONY: all"
		for t in $targets; do
			# the tree's path where it was built, as the workload sees it
			c=$(sed -n "1s|^cmd_$t := ||p" "$HOST_TREE/obj/${t%/*}/.${t##*/}.cmd" |
				sed "s|$BTREE/|$TREE/|g")
			[ -n "$c" ] || die "no command for $t in its .cmd file"
			printf '%s:\n\t@echo "  CC      $@"; %s\n' "$t" "$c"
		done
	} > "$HOST_TREE/kbuild.mk.new"
	# the objects are the workload's to build: leave the directory, not them
	rm -f "$HOST_TREE"/obj/mm/*.o "$HOST_TREE"/obj/mm/.*.cmd "$HOST_TREE"/obj/mm/.*.d
	mv "$HOST_TREE/kbuild.mk.new" "$HOST_TREE/kbuild.mk"
	echo "commands_seconds=$(( $(date +%s) - mstart ))" >> "$HOST_TREE/times"
	echo "$mkey" > "$HOST_TREE/mk-key"
fi
[ "$(( $(date +%s) - start ))" -lt 2 ] || say "ready after $(( $(date +%s) - start )) s"
echo "$TREE"
