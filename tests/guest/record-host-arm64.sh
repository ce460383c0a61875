#!/bin/sh
# Guest test: `foliotrace record --arch arm64` without --rootfs (issue 13 part 1), on the
# Debian arm64 root `foliotrace guest rootfs --arch arm64` builds into the guest cache
# (built here if the cache has none: docs/times.md). The cases of record-host.sh: one boot
# records `bin/sh -c SCRIPT` from /usr (a command given by a path relative to the current
# directory, which the root has too), where SCRIPT runs the root's python3 (dynamically
# linked, aarch64) twice, a two-program pipeline, writes files, and prints an --env
# variable; what it wrote in must be byte-identical on the host afterwards. A command
# the root lacks (even one the host has) fails before any boot, as does a --rootfs that is
# not a root.
. "$(dirname "$0")/../test-lib.sh"
. "$(dirname "$0")/guest-lib.inc"

plan 25
db=$T/a64.db
MIB=64			# python3 allocates and touches this much anonymous memory
PAGES=$((MIB * 256))	# 4K pages (the arm64 guest's page size)

start=$(date +%s)
R=$("$FT" guest rootfs --arch arm64 2> "$T/rootfs.err")
rc=$?
diag "guest rootfs --arch arm64 took $(( $(date +%s) - start )) s"
ok $([ $rc = 0 ] && [ -d "$R/usr" ]; echo $?) "guest rootfs --arch arm64 exits 0 and prints the root: $R"
[ $rc = 0 ] || sed 's/^/#   /' "$T/rootfs.err" | tail -5
PY=$R/usr/bin/$(readlink "$R/usr/bin/python3")	# python3 -> python3.11, relative
ok $(readelf -h "$PY" 2>/dev/null | grep -q 'AArch64' &&
	readelf -l "$PY" 2>/dev/null | grep -q 'program interpreter'; echo $?) \
	"the root's python3 ($PY) is a dynamically linked AArch64 executable"
R2=$("$FT" guest rootfs --arch arm64 2> /dev/null)
ok $([ "$R2" = "$R" ]; echo $?) "a second call finds the same root"
# packages of the default set, given again (comma- and space-separated): the same list,
# so the same key and root, found without a build
R3=$("$FT" guest rootfs --arch arm64 --packages python3,gcc --packages 'make xz-utils' 2> /dev/null)
ok $([ "$R3" = "$R" ] && grep -qx python3 "${R%/root}/packages" && grep -q '^gcc=' "${R%/root}/installed"; echo $?) \
	"--packages with default packages only finds the same root ($R3)"

# The script, one line (record refuses arguments with a newline): where it runs, the
# environment, the bundled workloads on PATH; the baseline, the interpreter alone, then
# the same plus $MIB MiB written page by page; a pipeline of two programs; writes: a new
# file in the current directory (/usr), an overwrite, a removal, a directory, /tmp, /etc.
SCRIPT='set -e; echo "cwd=$(pwd) m=$(uname -m) py=$(python3 -c "import platform; print(platform.machine())")"; '\
'echo "probe=${FT_PROBE:-unset} secret=${FT_SECRET:-unset} home=${HOME:-unset}"; '\
'echo "bundled=$(command -v anon-touch)"; '\
'python3 -c pass; '\
'python3 -c "b = bytearray('$MIB' << 20); b[::4096] = b\"\\x01\" * len(b[::4096]); print(\"touched\", len(b))"; '\
'seq 1 20000 | tac > /dev/null; '\
'echo new > out.txt; echo changed > /etc/debian_version; rm /etc/motd; '\
'mkdir -p sub/deeper && echo x > sub/deeper/f; echo t > /tmp/ft-record-host.tmp; echo e >> /etc/hostname; '\
'echo writes-ok'
# The directories the script writes in, as the host sees them: /etc and /tmp whole, and
# /usr's own entries (its new out.txt and sub/ would show there). Not the whole root:
# guest-kernel/kbuild-tree.sh keeps the kbuild workload's tree in /usr/src of this root
# and may be writing it meanwhile; the overlay is the same for every path.
snapshot() {
	tree_snapshot "$R/etc"
	tree_snapshot "$R/tmp"
	(cd "$R/usr" && find . -maxdepth 1 -printf '%p %y %s %m %T@\n' | sort)
}
snapshot > "$T/before"

# --- one boot ---------------------------------------------------------------------------
start=$(date +%s)
(cd /usr && FT_PROBE="hello probe" FT_SECRET=hidden "$FT" record --arch arm64 -o "$db" \
	--env FT_PROBE -- bin/sh -c "$SCRIPT") > "$T/out" 2> "$T/err"
rc=$?
diag "record took $(( $(date +%s) - start )) s"
ok $([ $rc = 0 ]; echo $?) "record --arch arm64 of bin/sh (relative path) from /usr exits 0 (got $rc)"
[ $rc = 0 ] || sed 's/^/#   /' "$T/err" | tail -5
dir=$(ls -d "$db".ctf/* 2>/dev/null | tail -n 1)
wo="$dir/workload.out"
ok $([ "$(cat "$dir/header/rootfs" 2>/dev/null)" = "$R" ]; echo $?) \
	"the guest's root was the built root ($(cat "$dir/header/rootfs" 2>/dev/null))"
grep -q '^cwd=/usr m=aarch64 py=aarch64$' "$wo" 2>/dev/null
ok $? "the workload ran in /usr, on aarch64, with the root's python3: $(grep '^cwd=' "$wo" 2>/dev/null)"
snapshot > "$T/after"
ok $(cmp -s "$T/before" "$T/after"; echo $?) "the root's /etc, /tmp and /usr are byte-identical on the host afterwards"
ok $(grep -q '^\./motd ' "$T/after" && grep -q '^\./debian_version ' "$T/after" &&
	[ ! -e "$R/usr/out.txt" ] && [ ! -e "$R/usr/sub" ] && [ ! -e "$R/tmp/ft-record-host.tmp" ]; echo $?) \
	"  ... /etc/motd is still there, no out.txt, sub/ or /tmp file appeared ($(grep -c . "$T/after") lines compared)"

# the first python3 is the $(python3 -c platform...) of the script's first line
record_host_checks "$db" "$dir" sh 1
ok $([ "$(cat "$dir/header/discarded_events" 2>/dev/null)" = 0 ]; echo $?) \
	"no event discarded ($(cat "$dir/header/discarded_events" 2>/dev/null))"

# --- no boot ----------------------------------------------------------------------------
before=$(cksum < "$db")
ndirs=$(ls -d "$db".ctf/* | wc -l)
start=$(date +%s)
(cd /usr && "$FT" record --arch arm64 -o "$db" -- no-such-program-ft) > "$T/out" 2> "$T/err"
rc=$?
ok $([ $rc = 1 ] && [ "$(wc -l < "$T/err")" = 1 ] && grep -q "not on PATH in $R" "$T/err"; echo $?) \
	"a missing command: exit 1 (got $rc), one line naming the root: $(cat "$T/err")"
ok $([ "$(cksum < "$db")" = "$before" ] && [ "$(ls -d "$db".ctf/* | wc -l)" = "$ndirs" ] &&
	[ $(( $(date +%s) - start )) -lt 5 ]; echo $?) \
	"  ... nothing stored, no trace directory, no guest booted"
# a program the host has and the root does not: looked up in the root, not on the host
host_only=$(command -v qemu-system-aarch64)
ok $([ -n "$host_only" ] && [ ! -e "$R$host_only" ]; echo $?) \
	"qemu-system-aarch64 is on the host's PATH ($host_only), not in the root"
"$FT" record --arch arm64 -o "$T/none.db" -- qemu-system-aarch64 --version > /dev/null 2> "$T/err"
rc=$?
ok $([ $rc = 1 ] && grep -q "not on PATH in $R" "$T/err" && [ ! -e "$T/none.db" ] &&
	[ ! -e "$T/none.db.ctf" ]; echo $?) \
	"  ... so recording it on arm64 fails before boot, no database created (got $rc): $(cat "$T/err")"
mkdir -p "$T/notroot/bin"
(cd /usr && "$FT" record --arch arm64 -o "$db" --rootfs "$T/notroot" -- ls) > "$T/out" 2> "$T/err"
rc=$?
ok $([ $rc = 1 ] && grep -q "is not a root filesystem" "$T/err" && [ "$(wc -l < "$T/err")" = 1 ]; echo $?) \
	"--rootfs at a directory that is not a root: exit 1 (got $rc): $(cat "$T/err")"
ok $([ "$(cksum < "$db")" = "$before" ] && [ "$(ls -d "$db".ctf/* | wc -l)" = "$ndirs" ]; echo $?) \
	"  ... nothing stored"
done_testing
