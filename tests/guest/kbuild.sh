#!/bin/sh
# Guest test: the bundled kbuild workload (issue 13 item 2): `foliotrace record -- kbuild`
# compiles the 6 documented mm/ objects of linux-source-6.1 (defconfig) with the root
# filesystem's gcc in the guest (x86_64: the host's /; arm64: the root `foliotrace guest
# rootfs --arch arm64` builds, or FT_KBUILD_ROOT), in a tree prepared before the boot. The
# trace must be complete (no discarded event), replaying it under order0 must take exactly
# the recorded faults, and the compiler's processes must be the workload's.
. "$(dirname "$0")/../test-lib.sh"
. "$(dirname "$0")/guest-lib.inc"

plan 9
# the default list (guest-kernel/kbuild-tree.sh, docs/workloads.md): its length, counted here
OBJECTS="mmap mprotect mremap madvise mlock mincore"
nobj=$(echo $OBJECTS | wc -w)
# arm64: record's default root for the arch (built on first use), or FT_KBUILD_ROOT
ROOTARG=
[ -z "${FT_KBUILD_ROOT:-}" ] || ROOTARG="--rootfs $FT_KBUILD_ROOT"

db=$T/kbuild.db
start=$(date +%s)
# shellcheck disable=SC2086
"$FT" record --arch "$ARCH" $ROOTARG -o "$db" -- kbuild > "$T/out" 2> "$T/err"
rc=$?
secs=$(( $(date +%s) - start ))
ok $([ $rc = 0 ]; echo $?) "record -- kbuild on $ARCH exits 0 (got $rc, $secs s)"
[ $rc = 0 ] || sed 's/^/#   /' "$T/err" | tail -8
q() { "$FT" query "$db" --format csv sql "$1" 2>/dev/null | tail -n 1; }

wo=$(ls -d "$db".ctf/*/workload.out 2>/dev/null | tail -n 1)
res=$(grep '^RESULT kbuild ' "$wo" 2>/dev/null)
diag "$res"
ok $([ "$(field "$res" status)" = 0 ] && [ "$(field "$res" objects)" = "$nobj" ]; echo $?) \
	"kbuild built the $nobj objects and nothing outside mm/ (objects=$(field "$res" objects) outside_mm=$(field "$res" outside_mm))"
built=0
for o in $OBJECTS; do
	grep -q "^  CC  *mm/$o\.o\$" "$wo" 2>/dev/null && built=$((built + 1))
done
ok $([ $built = "$nobj" ]; echo $?) "make printed a CC line for each of the $nobj objects ($built)"

ok $([ "$(q 'SELECT discarded_events FROM trace')" = 0 ] &&
	[ "$(q 'SELECT count(*) FROM trace WHERE partial = 0')" = 1 ]; echo $?) \
	"the trace is complete, LTTng discarded no event ($(q 'SELECT events FROM trace') events)"

# every cc1 of the trace is the workload's, and there is one per object at least (more: the
# Makefiles' cc-option probes run gcc too)
ncc1=$(q "SELECT count(*) FROM process WHERE comm = 'cc1' AND workload = 1")
ok $([ "${ncc1:-0}" -ge "$nobj" ] &&
	[ "$(q "SELECT count(*) FROM process WHERE comm = 'cc1' AND workload = 0")" = 0 ]; echo $?) \
	"the compiler processes are the workload's: $ncc1 cc1 (>= $nobj), none outside it"
ok $([ "$(q "SELECT count(*) FROM process WHERE comm = 'make' AND workload = 1")" -ge 1 ] &&
	[ "$(q "SELECT count(*) FROM process WHERE comm IN ('init', 'ft-launch') AND workload = 1")" = 0 ]
	echo $?) "make is a workload process, the guest's setup (init, ft-launch) is not"
nproc=$(q "SELECT count(*) FROM process WHERE workload = 1")
diag "processes: $nproc of the workload, $(q 'SELECT count(*) FROM process') in the trace"

# replayed under order0 (the policy it was recorded with) the model takes exactly the
# recorded faults: first touches and zero-page writes of the workload's processes
rec=$(q "SELECT sum(anon_faults) + sum(zero_wp) FROM process WHERE workload = 1")
"$FT" replay "$db" -n -P order0 --format json > "$T/sim.json" 2> "$T/sim.err"
ok $? "replay -P order0 of the recording runs"
sim=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["runs"][-1]["metrics"]["faults"])' \
	"$T/sim.json" 2>/dev/null)
diag "faults: recorded $rec, replayed under order0 $sim"
ok $([ -n "$rec" ] && [ "$rec" -gt 100000 ] && [ "$rec" = "$sim" ]; echo $?) \
	"order0 replay reproduces the recorded fault count exactly ($sim of $rec, more than 100000)"
ok $([ "$(q "SELECT workload FROM trace")" = kbuild ]; echo $?) "the trace header names the workload kbuild"
done_testing
