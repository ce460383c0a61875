#!/bin/sh
# guest-cli.sh - the guest commands' CLI conventions without booting a guest (issue 12
# item 10, issue 11 item 1): --help exits 0 for every guest verb; record refuses a bad
# policy, a simulation-only policy, a +mechanism on 6.1 or an unknown arch with exit 2
# before creating anything; guest knob prints a +mechanism's knobs on 6.12;
# run.sh's statuses map onto 0/1/2 (1 = could not start, 2 = usage) with one line of ours;
# a run that could not start leaves no DB, no DB.ctf/ directory behind.
# Everything here stops before guest-kernel/run.sh builds or boots anything.
. "$(dirname "$0")/../test-lib.sh"

plan 40
cd "$T" || exit 1

for verb in run build knob replay; do
	"$FT" guest $verb --help > "$T/out" 2> "$T/err"
	ok $? "guest $verb --help: exit 0"
	grep -q "usage: foliotrace guest" "$T/out" && [ ! -s "$T/err" ]
	ok $? "  ... usage on stdout, nothing on stderr"
done

# record_refused CASE ARGS...: exit 2, the error names the problem, nothing created
record_refused() {
	_case=$1 _pat=$2
	shift 2
	timeout 30 "$FT" record "$@" -o "$T/r.db" -- true > "$T/out" 2> "$T/err"
	ok $([ $? = 2 ]; echo $?) "record $_case: exit 2"
	head -1 "$T/err" | grep -q "^foliotrace record: .*$_pat"
	ok $? "  ... says /$_pat/: $(head -1 "$T/err")"
	[ ! -e "$T/r.db" ] && [ ! -e "$T/r.db.ctf" ]
	ok $? "  ... nothing created (no r.db, no r.db.ctf/)"
}
record_refused "--policy bogus" "unknown policy 'bogus'" --policy bogus
record_refused "--policy faultaround:4" "simulation-only" --policy faultaround:4
record_refused "--arch mips" "unknown arch 'mips'" --arch mips
record_refused "--clock wall" "--clock is tcg or icount" --clock wall
record_refused "--kernel 6.12 --policy mthp:8K" "cannot run on a 6.12 guest .*8K" \
	--kernel 6.12 --policy mthp:8K,64K
record_refused "--kernel 6.12 --policy adaptive" "cannot run on a 6.12 guest .*it runs order0" \
	--kernel 6.12 --policy adaptive
record_refused "--kernel 5.4" "unknown guest kernel '5.4'" --kernel 5.4
record_refused "--policy thp+limit:64M (6.1)" "its +mechanisms run only in the 6.12 guest" \
	--policy thp+limit:64M
"$FT" guest knob --kernel 6.12 mthp:16K,64K > "$T/out" 2> "$T/err"
ok $([ $? = 0 ] && [ "$(cat "$T/out")" = "2,4" ]; echo $?) \
	"guest knob --kernel 6.12 mthp:16K,64K: orders 2,4 (16K and 64K always)"
"$FT" guest knob --kernel 6.12 mcpage:1 > "$T/out" 2> "$T/err"
ok $([ $? = 1 ] && grep -q "no 8K anonymous folio" "$T/err"; echo $?) \
	"guest knob --kernel 6.12 mcpage:1: exit 1, no 8K folio upstream"

# +mechanisms on 6.12: the knobs the guest sets after the orders (docs/guest.md)
"$FT" guest knob --kernel 6.12 thp+shrinker:max_ptes_none=409+limit:64M > "$T/out" 2> "$T/err"
printf '%s\n' thp "khugepaged/max_ptes_none 409" "khugepaged/pages_to_scan 4096" \
	"khugepaged/scan_sleep_millisecs 10000" "shrink_underused 1" "memory.max 67108864" \
	> "$T/want"
ok $([ $? = 0 ] && cmp -s "$T/out" "$T/want"; echo $?) \
	"guest knob --kernel 6.12 thp+shrinker:max_ptes_none=409+limit:64M: thp, then the knobs"
"$FT" guest knob --kernel 6.12 mthp:64K+khugepaged:pages=100,scan_ms=500 > "$T/out" 2> "$T/err"
ok $([ $? = 0 ] && [ "$(sed -n 1p "$T/out")" = 4 ] &&
	grep -qx "khugepaged/pages_to_scan 100" "$T/out" &&
	grep -qx "khugepaged/scan_sleep_millisecs 500" "$T/out" &&
	grep -qx "shrink_underused 0" "$T/out" && ! grep -q memory.max "$T/out"; echo $?) \
	"guest knob --kernel 6.12 mthp:64K+khugepaged:...: khugepaged's knobs, the shrinker off, no cgroup"

# run.sh fails before the guest (no guest image here): exit 1, and the directory record
# made for the run is gone again
FT_GUEST_DIR="$T/no-guest" timeout 30 "$FT" record -o "$T/r.db" -- true > "$T/out" 2> "$T/err"
ok $([ $? = 1 ]; echo $?) "record without a guest image: exit 1"
grep -q "^foliotrace: the guest could not be started" "$T/err" && [ ! -e "$T/r.db" ] &&
	[ ! -e "$T/r.db.ctf" ]
ok $? "  ... 'could not be started', no r.db, no r.db.ctf/ left"
timeout 30 "$FT" guest run --file "$T/none" --out "$T/o" -- true > "$T/out" 2> "$T/err"
ok $([ $? = 1 ]; echo $?) "guest run, runner exit 1: exit 1 (not 'unknown error')"
grep -q "^foliotrace: the guest could not be started" "$T/err"
ok $? "  ... 'the guest could not be started'"
done_testing
