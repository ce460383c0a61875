#!/bin/sh
# Guest test: `foliotrace record` end to end (issue 5): a host binary we do not bundle, a
# workload that fails, a command that does not exist, and a guest killed mid-run.
. "$(dirname "$0")/../test-lib.sh"
. "$(dirname "$0")/guest-lib.inc"

plan 12
db=$T/rec.db

# a static binary from the host (built by `make workloads` / `make workloads-arm64`),
# copied into the guest
cp "$TOP/build/testprogs/$ARCH/hello-anon" "$T/hello-anon" || diag "run make first"
"$FT" record --arch "$ARCH" -o "$db" -- "$T/hello-anon" > "$T/out" 2> "$T/err"
ok $? "record of a host static binary exits 0"
faults=$("$FT" query "$db" --format csv sql \
	"SELECT sum(anon_faults) FROM process WHERE comm = 'hello-anon'" | tail -n 1)
ok $([ "${faults:-0}" -ge 256 ]; echo $?) "its faults appear under its name in query procs ($faults >= 256)"
"$FT" query "$db" --format json procs | grep -q '"comm": *"hello-anon"'
ok $? "query procs --format json lists hello-anon"
grep -q 'anonymous faults in' "$T/out"
ok $? "record prints a summary"

# a workload that exits non-zero: stored (it is a complete trace), reported, exit 1
"$FT" record --arch "$ARCH" -o "$db" -- anon-touch 1M --no-such-option > "$T/out" 2> "$T/err"
rc=$?
ok $([ $rc = 1 ]; echo $?) "a failing workload makes record exit 1 (got $rc)"
grep -q 'the workload exited with status' "$T/err"
ok $? "and says so: $(tail -n 1 "$T/err")"

# a command that does not exist: nothing stored
before=$(cksum < "$db")
"$FT" record --arch "$ARCH" -o "$db" -- no-such-workload > "$T/out" 2> "$T/err"
rc=$?
ok $([ $rc = 1 ]; echo $?) "an unknown command makes record exit 1 (got $rc)"
grep -q 'workload not found: no-such-workload' "$T/err"
ok $? "and names it: $(tail -n 1 "$T/err")"
ok $([ "$(cksum < "$db")" = "$before" ]; echo $?) "the database is unchanged"

# a guest killed mid-run: a clear message, no complete-looking trace
before=$("$FT" query "$db" --format csv sql "SELECT count(*) FROM trace" | tail -n 1)
old_dirs=$(ls -d "$db".ctf/*)
"$FT" record --arch "$ARCH" -o "$db" -- anon-touch 64M --hold 120 > "$T/out" 2> "$T/err" &
rec=$!
# wait until the workload runs (header/started), let it record a while, kill QEMU
# (one listing per look: the new directory is the one not there before; counting in a
# second listing raced with its creation and picked the previous run's directory)
for i in $(seq 1 300); do
	new=$(ls -d "$db".ctf/* | grep -vxF "$old_dirs" | tail -n 1)
	[ -n "$new" ] && [ -f "$new/header/started" ] && break
	sleep 1
done
sleep 5
pkill -KILL -f "qemu-system.*$(basename "$new")" ||
	diag "no QEMU process matched $(basename "$new") after ${i}s (started: $(ls "$new/header" | grep -c started))"
wait $rec
rc=$?
ok $([ $rc = 1 ]; echo $?) "killing the guest makes record exit 1 (got $rc)"
grep -q 'killed' "$T/err"
ok $? "and says the guest was killed: $(tail -n 1 "$T/err")"
after=$("$FT" query "$db" --format csv sql \
	"SELECT count(*) FROM trace WHERE partial = 0" | tail -n 1)
ok $([ "$after" = "$before" ] && [ "$(sqlite3 "$db" 'PRAGMA integrity_check')" = ok ]; echo $?) \
	"no complete-looking trace was added ($before -> $after) and the database is intact"
done_testing
