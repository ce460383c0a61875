#!/bin/sh
# Guest test: `foliotrace record` of programs the host has (issue 13 part 1), x86_64. One
# guest boot records ./run-all.sh, a script given by a relative path in the current
# directory, which runs python3 (dynamically linked) twice, a two-program pipeline, writes
# files, and prints an --env variable; the host directory must be byte-identical
# afterwards. A missing command and a --rootfs that is not a root fail before any boot.
. "$(dirname "$0")/../test-lib.sh"
. "$(dirname "$0")/guest-lib.inc"

plan 23
db=$T/host.db
W=$T/work
MIB=64			# python3 allocates and touches this much anonymous memory
PAGES=$((MIB * 256))	# 4K pages

# Debian's python3 (not a wrapper such as a pyenv shim, which PATH may find first)
PY=/usr/bin/python3
ok $([ -x "$PY" ] && readelf -l "$(readlink -f "$PY")" | grep -q 'program interpreter'; echo $?) \
	"$PY on the host is a dynamically linked executable"

mkdir -p "$W/sub"
echo "keep me" > "$W/existing.txt"
echo "delete me" > "$W/victim.txt"
cat > "$W/run-all.sh" <<EOF
#!/bin/sh
set -e
echo "cwd=\$(pwd)"
echo "probe=\${FT_PROBE:-unset} secret=\${FT_SECRET:-unset} home=\${HOME:-unset}"
echo "bundled=\$(command -v anon-touch)"
# the baseline: the interpreter alone; then the same plus $MIB MiB written page by page
$PY -c 'pass'
$PY -c 'b = bytearray($MIB << 20); b[::4096] = b"\x01" * len(b[::4096]); print("touched", len(b))'
# a pipeline of two programs
seq 1 20000 | tac > /dev/null
# writes: new files, an overwrite, a removal, a directory, /tmp and /etc
echo new > out.txt
echo changed > existing.txt
rm victim.txt
mkdir -p sub/deeper && echo x > sub/deeper/f
echo t > /tmp/ft-record-host.tmp
echo e >> /etc/hostname
echo writes-ok
EOF
chmod +x "$W/run-all.sh"
tree_snapshot "$W" > "$T/before"
etc_before=$(sha256sum /etc/hostname)

# --- one boot ---------------------------------------------------------------------------
start=$(date +%s)
(cd "$W" && FT_PROBE="hello probe" FT_SECRET=hidden "$FT" record -o "$db" --env FT_PROBE -- \
	./run-all.sh) > "$T/out" 2> "$T/err"
rc=$?
diag "record took $(( $(date +%s) - start )) s"
ok $([ $rc = 0 ]; echo $?) "record of ./run-all.sh (relative path) exits 0 (got $rc)"
[ $rc = 0 ] || sed 's/^/#   /' "$T/err" | tail -5
dir=$(ls -d "$db".ctf/* 2>/dev/null | tail -n 1)
wo="$dir/workload.out"
grep -q "^cwd=$W\$" "$wo" 2>/dev/null
ok $? "the workload ran in the caller's directory ($(sed -n 's/^cwd=//p' "$wo" 2>/dev/null))"
tree_snapshot "$W" > "$T/after"
ok $(cmp -s "$T/before" "$T/after"; echo $?) "the host directory is byte-identical afterwards"
ok $([ ! -e /tmp/ft-record-host.tmp ] && [ "$(sha256sum /etc/hostname)" = "$etc_before" ]; echo $?) \
	"the host's /tmp and /etc were not written"

q() { "$FT" query "$db" --format csv sql "$1" | tail -n +2; }
record_host_checks "$db" "$dir" run-all.sh 0
setup=$(q "SELECT count(*) FROM process WHERE workload = 0 AND comm IN ('init', 'ft-launch')")
ok $([ "${setup:-0}" -gt 0 ]; echo $?) "the guest's setup is recorded and marked as such ($setup processes)"
all=$(q "SELECT count(*) FROM process") wl=$(q "SELECT count(*) FROM process WHERE workload = 1")
"$FT" replay "$db" --policy order0 > "$T/replay.out" 2>&1
ok $(grep -q "$wl processes" "$T/replay.out"; echo $?) \
	"replay without --comm/--pid selects the $wl workload processes of $all ($(head -n 1 "$T/replay.out"))"

# --- a workload that fails ---------------------------------------------------------------
# its trace is stored with its status, and the error says what happened: run.sh's status
# 3, not 2 (a usage error) as when its check of the cgroup's OOM kills ended the script
"$FT" record -o "$T/fail.db" -- sh -c 'exit 5' > "$T/out" 2> "$T/err"
rc=$?
ok $([ $rc = 1 ] && grep -q "^foliotrace: the workload exited with status 5$" "$T/err"
	echo $?) "a workload that exits 5: exit 1 (got $rc), said: $(tail -n 1 "$T/err")"
ok $([ "$("$FT" query "$T/fail.db" --format csv sql \
	"SELECT workload_status FROM trace" | tail -n 1)" = 5 ]; echo $?) \
	"  ... its trace is stored, with workload_status 5"

# --- no boot ----------------------------------------------------------------------------
before=$(cksum < "$db")
ndirs=$(ls -d "$db".ctf/* | wc -l)
start=$(date +%s)
(cd "$W" && "$FT" record -o "$db" -- no-such-program-ft) > "$T/out" 2> "$T/err"
rc=$?
ok $([ $rc = 1 ] && [ "$(wc -l < "$T/err")" = 1 ]; echo $?) \
	"a missing command: exit 1 (got $rc), one line: $(cat "$T/err")"
ok $([ "$(cksum < "$db")" = "$before" ] && [ "$(ls -d "$db".ctf/* | wc -l)" = "$ndirs" ] &&
	[ $(( $(date +%s) - start )) -lt 5 ]; echo $?) \
	"  ... nothing stored, no trace directory, no guest booted"
"$FT" record -o "$T/none.db" -- no-such-program-ft 2> /dev/null
ok $([ ! -e "$T/none.db" ] && [ ! -e "$T/none.db.ctf" ]; echo $?) "  ... and no new database is created"
mkdir -p "$T/notroot/bin"
(cd "$W" && "$FT" record -o "$db" --rootfs "$T/notroot" -- ls) > "$T/out" 2> "$T/err"
rc=$?
ok $([ $rc = 1 ] && grep -q "is not a root filesystem" "$T/err" && [ "$(wc -l < "$T/err")" = 1 ]; echo $?) \
	"--rootfs at a directory that is not a root: exit 1 (got $rc): $(cat "$T/err")"
ok $([ "$(cksum < "$db")" = "$before" ] && [ "$(ls -d "$db".ctf/* | wc -l)" = "$ndirs" ]; echo $?) \
	"  ... nothing stored"
done_testing
