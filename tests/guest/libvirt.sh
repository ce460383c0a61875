#!/bin/sh
# Guest test: `foliotrace record --libvirt URI` runs the same guest as a transient libvirt
# domain (guest-kernel/libvirt.sh), on x86_64 and arm64; a domain over its timeout is
# destroyed and its trace marked partial; an unreachable daemon is a one-line error.
# A daemon is started on qemu:///system if none answers (tools/libvirt-daemon.sh).
. "$(dirname "$0")/../test-lib.sh"
. "$(dirname "$0")/guest-lib.inc"

URI=qemu:///system
plan 14
db=$T/lv.db
domains() { virsh -q -c "$URI" list --all --name 2>/dev/null | grep -c '^foliotrace-'; }

sh "$TOP/tools/libvirt-daemon.sh" > "$T/daemon.out" 2>&1
ok $? "a libvirt daemon answers on $URI: $(tail -n 1 "$T/daemon.out")"
left=$(domains)

for arch in x86_64 arm64; do
	"$FT" record --arch "$arch" --libvirt "$URI" -o "$db" -- anon-touch 4M \
		> "$T/out" 2> "$T/err"
	rc=$?
	ok $rc "$arch: record --libvirt $URI of anon-touch 4M exits 0"
	[ $rc = 0 ] || sed 's/^/#   /' "$T/err" | tail -n 5
	grep -q "as a libvirt domain on $URI" "$T/err"
	ok $? "$arch: the guest ran as a libvirt domain"
	dir=$(ls -d "$db".ctf/*-"$arch"-* | tail -n 1)
	# the same clock as under QEMU directly (libvirt must not drop the HPET the TSC
	# calibration falls back on): a 4 ms jiffies clock cannot order events across CPUs
	want=$(guest_clocksource "$arch")
	ok $([ "$(cat "$dir/header/clocksource")" = $want ]; echo $?) \
		"$arch: the guest clock is $want (got $(cat "$dir/header/clocksource"))"
	pid=$(sed -n 's/^RESULT anon-touch pid=\([0-9]*\) .*/\1/p' "$dir/workload.out")
	n=$("$FT" query "$db" --format csv sql "SELECT p.anon_faults FROM process p JOIN trace t
		USING (trace_id) WHERE t.arch = '$arch' AND p.pid = ${pid:-0} AND p.comm = 'anon-touch'" |
		tail -n 1)
	ok $([ "${n:-0}" -ge 1024 ] && [ "$n" -lt 1100 ]; echo $?) \
		"$arch: its 1024 page faults are stored (anon-touch: $n)"
	[ "${n:-0}" -ge 1024 ] 2>/dev/null || "$FT" query "$db" --format csv sql "SELECT t.trace_id,
		t.partial, t.discarded_events, p.proc_id, p.pid, p.mm, p.comm, p.anon_faults
		FROM process p JOIN trace t USING (trace_id) WHERE t.arch = '$arch'" | sed 's/^/#   /'
done
ok $([ "$(domains)" = "$left" ]; echo $?) "no foliotrace domain is left behind"

# over its timeout (the workload holds its memory for 60 s, so a fast boot cannot finish
# inside 3 s): the domain is destroyed, the trace kept and marked partial, exit 1
complete=$("$FT" query "$db" --format csv sql "SELECT count(*) FROM trace WHERE partial = 0" | tail -n 1)
"$FT" record --libvirt "$URI" --timeout 3 -o "$db" -- anon-touch 4M --hold 60 > "$T/out" 2> "$T/err"
rc=$?
ok $([ $rc = 1 ] && grep -q 'timed out after 3 s' "$T/err"; echo $?) \
	"a guest over its timeout: exit 1 (got $rc), $(grep -o 'guest timed out[^;]*' "$T/err" | head -n 1)"
ok $([ "$(domains)" = "$left" ] &&
	[ "$("$FT" query "$db" --format csv sql "SELECT count(*) FROM trace WHERE partial = 0" |
		tail -n 1)" = "$complete" ]; echo $?) \
	"its domain is destroyed and no complete-looking trace was added"

# a daemon that does not answer: a one-line error, the database unchanged
before=$(cksum < "$db")
"$FT" record --libvirt qemu:///nosuch -o "$db" -- anon-touch 4M > "$T/out" 2> "$T/err"
rc=$?
ok $([ $rc = 1 ] &&
	tail -n 1 "$T/err" | grep -q '^foliotrace: .*libvirt did not start the guest: qemu:///nosuch: '
	echo $?) "an unreachable daemon: exit 1, $(tail -n 1 "$T/err")"
ok $([ "$(cksum < "$db")" = "$before" ]; echo $?) "and the database is unchanged"
done_testing
