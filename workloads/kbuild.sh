#!/bin/sh
# kbuild [--objects default|all|LIST] [-j N]: the seeds' headline workload, a kernel build,
# cut to fit a recording: `make -jN` of objects of Debian's linux-source-6.1 mm/ with the
# arch's defconfig, gcc's own flags (-O2). Runs from a root filesystem (the host's / on
# x86_64, `foliotrace guest rootfs`' root on arm64), in a tree guest-kernel/kbuild-tree.sh
# prepared before the guest booted (defconfig, `make prepare`), so the recording holds the
# compiler's faults and not Kconfig's. `foliotrace record` passes the tree in
# FT_KBUILD_TREE; the objects land in the guest's writable layer and vanish with it.
#
# --objects default: the objects of guest-kernel/kbuild-tree.sh's list (docs/workloads.md:
#   chosen to record in at most 5 minutes under TCG), built by `make -f TREE/kbuild.mk -jN`
#   whose rules are the exact commands kbuild ran for them (gcc, then objtool on x86_64):
#   the kernel's own make would first run dozens of cc-option probes (each a gcc), which
#   are setup like Kconfig; all: the whole mm/ directory (`make mm/`, the kernel's make,
#   probes included); LIST: comma-separated mm/ objects (memory, memory.o or mm/memory.o)
#   built by the kernel's make.
# -j N: parallel jobs (default: the cpus online).
# Prints one CC line per object, then one RESULT line; status 0 when make succeeded, every
# object asked for was built, and nothing outside mm/ was (the prepared tree was complete).
set -u
OBJS=default JOBS=
usage() { echo "usage: kbuild [--objects default|all|NAME,...] [-j N]" >&2; exit 2; }
while [ $# -gt 0 ]; do
	case "$1" in
	--objects) [ $# -ge 2 ] || usage; OBJS=$2; shift 2 ;;
	-j) [ $# -ge 2 ] || usage; JOBS=$2; shift 2 ;;
	-j[0-9]*) JOBS=${1#-j}; shift ;;
	--help) echo "usage: kbuild [--objects default|all|NAME,...] [-j N]"; exit 0 ;;
	*) usage ;;
	esac
done
case "$JOBS" in
'') JOBS=$(nproc) ;;
*[!0-9]* | 0) usage ;;
esac
T=${FT_KBUILD_TREE:-}
[ -n "$T" ] || for t in /usr/src/foliotrace-kbuild \
	"${FOLIOTRACE_CACHE:-$HOME/.cache/foliotrace}/kbuild-$(uname -m)"; do
	[ -f "$t/mk-key" ] && { T=$t; break; }
done
[ -n "$T" ] && [ -f "$T/mk-key" ] && [ -f "$T/obj/.config" ] ||
	{ echo "kbuild: no prepared tree (guest-kernel/kbuild-tree.sh prepares it)" >&2; exit 1; }

# default: the rules of kbuild.mk (the commands kbuild itself ran for these objects);
# otherwise the kernel's own make, Makefile probes and all
case "$OBJS" in
default) targets=$(sed -n 's/^all://p' "$T/kbuild.mk") ;;
all) targets=mm/ ;;
*[!a-z0-9_.,/-]* | '') usage ;;
*) targets=
   for o in $(echo "$OBJS" | tr ',' ' '); do
	o=${o#mm/}
	targets="$targets mm/${o%.o}.o"
   done ;;
esac
for t in $targets; do
	[ "$t" = mm/ ] || [ -f "$T/linux-source-6.1/${t%.o}.c" ] ||
		{ echo "kbuild: no source for $t in linux-source-6.1" >&2; exit 2; }
done

log=/tmp/kbuild.log.$$
start=$(date +%s)
# ARCH as the tree was configured with (kbuild-tree.sh): make's own default (x86 for
# x86_64) would differ and make Kconfig run again
if [ "$OBJS" = default ]; then
	make -C "$T/obj" -f "$T/kbuild.mk" -j"$JOBS" > "$log" 2>&1
else
	make -C "$T/obj" ARCH="$(uname -m | sed 's/aarch64/arm64/')" -j"$JOBS" $targets > "$log" 2>&1
fi
st=$?
secs=$(( $(date +%s) - start ))
cat "$log"
n=0
for t in $targets; do
	if [ "$t" = mm/ ]; then
		n=$(grep -c '^  CC  *mm/' "$log")
	elif [ -s "$T/obj/$t" ] && grep -q "^  CC  *$t\$" "$log"; then
		n=$((n + 1))
	else
		echo "kbuild: $t was not built" >&2
		st=1
	fi
done
# The prepared tree must have been complete: kbuild's quiet lines (`  VERB    PATH`) may
# name only mm/. GEN Makefile (O='s wrapper), CALL (checksyscalls.sh) and DESCEND
# (objtool's make) come every time and build nothing when the tree is up to date.
outside_lines() {
	grep -E '^  [A-Z0-9_]+ +[^ ]' "$log" |
		grep -Ev '^  (CALL|DESCEND) |^  GEN +Makefile$|^  [A-Z0-9_]+ +mm/'
}
outside=$(outside_lines | wc -l)
if [ "$outside" -gt 0 ]; then
	echo "kbuild: make rebuilt $outside things outside mm/ (the tree was not prepared):" \
		"$(outside_lines | head -n 3 | tr -s ' ')" >&2
	st=1
fi
rm -f "$log"
[ "$st" = 0 ] || st=1
echo "RESULT kbuild pid=$$ objects=$n jobs=$JOBS seconds=$secs outside_mm=$outside status=$st"
exit $st
