#!/bin/sh
# Guest test: `foliotrace record --arch arm64 --rootfs DIR` (issue 13 part 1) with a small
# arm64 root unpacked from the Debian arm64 packages the arm64 initramfs is built from
# (busybox-static, libc6, kmod and their libraries; no mmdebstrap, no configuration step).
# One boot: a dynamically linked arm64 program (kmod) runs chrooted in the overlay, sees an
# --env variable, writes; the root directory is byte-identical afterwards. Without --rootfs
# a program that is not bundled is refused before any boot (the host's root is x86_64).
. "$(dirname "$0")/../test-lib.sh"
. "$(dirname "$0")/guest-lib.inc"

plan 8
CACHE=${FOLIOTRACE_CACHE:-$HOME/.cache/foliotrace}
# the packages are fetched by the arm64 guest build (guest-kernel/initramfs.sh)
sh "$TOP/guest-kernel/build.sh" --arch arm64 --print-dir > /dev/null 2>&1
R=$T/arm64root
mkdir -p "$R"
for d in "$CACHE"/debs-arm64/*.deb; do
	[ -f "$d" ] && dpkg-deb -x "$d" "$R"
done
ln -s busybox "$R/bin/sh" 2>/dev/null
ok $(file -L "$R/bin/kmod" 2>/dev/null | grep -q 'ARM aarch64.*dynamically linked'; echo $?) \
	"an arm64 root with a dynamically linked kmod ($(ls "$CACHE"/debs-arm64/*.deb 2>/dev/null | wc -l) packages)"
tree_snapshot "$R" > "$T/before"

db=$T/a64.db
(cd "$T" && FT_X=arm64-probe "$FT" record --arch arm64 --rootfs "$R" --env FT_X -o "$db" -- \
	sh -c 'echo "x=$FT_X m=$(uname -m)"; kmod --version; echo w > /written; echo ok-writes') \
	> "$T/out" 2> "$T/err"
rc=$?
ok $([ $rc = 0 ]; echo $?) "record --arch arm64 --rootfs exits 0 (got $rc)"
[ $rc = 0 ] || sed 's/^/#   /' "$T/err" | tail -5
wo=$(ls -d "$db".ctf/*/workload.out 2>/dev/null | tail -n 1)
grep -q '^x=arm64-probe m=aarch64$' "$wo" 2>/dev/null
ok $? "the workload sees --env FT_X on an aarch64 kernel: $(head -n 1 "$wo" 2>/dev/null)"
grep -q '^kmod version' "$wo" 2>/dev/null
ok $? "the dynamically linked arm64 kmod ran from the root: $(grep '^kmod' "$wo" 2>/dev/null)"
grep -q '^ok-writes$' "$wo" 2>/dev/null
ok $? "the workload wrote to / without error"
tree_snapshot "$R" > "$T/after"
ok $(cmp -s "$T/before" "$T/after"; echo $?) "the root directory on the host is byte-identical afterwards"
n=$("$FT" query "$db" --format csv procs --workload 2>/dev/null | grep -c ',kmod,')
ok $([ "$n" -ge 1 ]; echo $?) "kmod is a workload process ($n)"

(cd "$T" && "$FT" record --arch arm64 -o "$T/none.db" -- kmod --version) > /dev/null 2> "$T/err"
rc=$?
ok $([ $rc = 1 ] && grep -q 'no arm64 programs.*--rootfs' "$T/err" && [ ! -e "$T/none.db.ctf" ]; echo $?) \
	"without --rootfs a host program is refused before boot (got $rc): $(cat "$T/err")"
done_testing
