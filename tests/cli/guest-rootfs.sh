#!/bin/sh
# guest-rootfs.sh - `foliotrace guest rootfs` and the arm64 default root of `record`
# without building one (issue 13 item 1): usage errors exit 2 before anything runs; a
# build that fails (a mirror that refuses connections, in a private cache) is one error
# line and exit 1, leaves no root and no temporary tree, and `record --arch arm64` of a
# program that needs that root fails the same way before any guest boots, storing nothing.
# tests/guest/record-host-arm64.sh builds and uses the real root.
. "$(dirname "$0")/../test-lib.sh"

plan 12
cd "$T" || exit 1

"$FT" guest rootfs --help > "$T/out" 2> "$T/err"
ok $([ $? = 0 ] && grep -q 'guest rootfs \[--arch arm64\] \[--packages LIST\]' "$T/out" &&
	[ ! -s "$T/err" ]; echo $?) "guest rootfs --help: exit 0, usage on stdout"
"$FT" guest rootfs --arch x86_64 > "$T/out" 2> "$T/err"
ok $([ $? = 2 ] && head -n 1 "$T/err" | grep -q "^foliotrace guest rootfs: no root to build for 'x86_64'"; echo $?) \
	"--arch x86_64: exit 2: $(head -n 1 "$T/err")"
"$FT" guest rootfs --packages 'gcc,Bad!' > "$T/out" 2> "$T/err"
ok $([ $? = 2 ] && head -n 1 "$T/err" | grep -q "'Bad!' is not a Debian package name"; echo $?) \
	"a bad package name: exit 2: $(head -n 1 "$T/err")"
"$FT" guest rootfs --frobnicate > "$T/out" 2> "$T/err"
ok $([ $? = 2 ] && grep -q '^usage: foliotrace guest' "$T/err"; echo $?) "an unknown option: exit 2 with the usage"

# A build that cannot reach its mirror, in a private cache (the shared one is untouched).
command -v mmdebstrap > /dev/null
ok $? "mmdebstrap is installed (make deps)"
export FOLIOTRACE_CACHE="$T/cache" FT_DEBIAN_MIRROR=http://127.0.0.1:9/debian \
	FT_DEBIAN_SECURITY=http://127.0.0.1:9/debian-security
start=$(date +%s)
"$FT" guest rootfs --arch arm64 > "$T/out" 2> "$T/err"
rc=$?
diag "failed build took $(( $(date +%s) - start )) s"
ok $([ $rc = 1 ]; echo $?) "a build whose mirror refuses connections: exit 1 (got $rc)"
grep -v '^rootfs.sh: building\|^rootfs.sh: registered' "$T/err" > "$T/err1"
ok $([ "$(wc -l < "$T/err1")" = 1 ] && grep -q '^foliotrace: mmdebstrap failed (exit [0-9]*): .*; log in ' "$T/err1"; echo $?) \
	"  ... one error line besides the progress: $(cat "$T/err1")"
ok $([ ! -s "$T/out" ]; echo $?) "  ... no directory printed"
ok $(ls -d "$T"/cache/rootfs-arm64-*/ "$T"/cache/tmp-rootfs-* > /dev/null 2>&1; [ $? != 0 ]; echo $?) \
	"  ... no root and no temporary tree left in the cache ($(ls "$T/cache" | tr '\n' ' '))"

(cd "$T" && "$FT" record --arch arm64 -o "$T/rec.db" -- python3 -c pass) > "$T/out" 2> "$T/err"
rc=$?
grep -v '^rootfs.sh: building\|^rootfs.sh: registered' "$T/err" > "$T/err1"
ok $([ $rc = 1 ] && [ "$(wc -l < "$T/err1")" = 1 ] &&
	grep -q '^foliotrace: no arm64 root to run python3 in (not a bundled workload): mmdebstrap failed' "$T/err1"; echo $?) \
	"record --arch arm64 of a program of the default root it cannot build: exit 1 (got $rc): $(cat "$T/err1")"
ok $([ ! -e "$T/rec.db" ] && [ ! -e "$T/rec.db.ctf" ]; echo $?) "  ... no database, no trace directory"
ok $(! grep -q 'guest\|qemu' "$T/err"; echo $?) "  ... and no guest was built or booted"
done_testing
