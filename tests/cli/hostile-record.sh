#!/bin/sh
# hostile-record.sh - record and guest replay check every path before anything boots
# (issue 23 item 10): -o /dev/null, -o DIR, -o FIFO, -o a,b.db, a working directory with
# a newline or a comma, --rootfs '' and a --rootfs with a comma are refused with one line
# and exit 1, the guest runner never started (a fake run.sh under FOLIOTRACE_HOME marks
# any start) and no DB.ctf/ made. guest replay of a database whose path has a comma: the
# same. The checks are vm/tracedir.c's vm_share_check() and vm/record.c's, unit-tested in
# tests/unit/vm-pipeline.c; these are the command lines.
# Fixture: SYNTHETIC tests/data/synthetic-anon-tiny (guest replay's database).
. "$(dirname "$0")/../test-lib.sh"
. "$(dirname "$0")/trace-lib.inc"
. "$(dirname "$0")/hostile-lib.inc"

plan 49

WL=$BUILD/testprogs/x86_64/hello-anon	# a static host program: record runs it as is
H=$T/home
mkdir -p "$H/guest-kernel" "$H/build"
# the fake runner: marks a start; with FAKE_GUEST set, "replays" by copying that trace
# directory into --out with a replayer's clean RESULT line
cat > "$H/guest-kernel/run.sh" <<'EOT'
#!/bin/sh
: > "$FAKE_MARK"
[ -n "${FAKE_GUEST:-}" ] || exit 1
while [ $# -gt 0 ]; do [ "$1" = --out ] && out=$2; [ "$1" = -- ] && break; shift; done
cp -r "$FAKE_GUEST"/. "$out"/ && echo "RESULT ft-replayer status=0" > "$out/workload.out"
EOT
export FAKE_MARK=$T/booted
chmod +x "$H/guest-kernel/run.sh"
ln -s "$FT" "$H/build/foliotrace"
export FOLIOTRACE_HOME=$H

mkdir "$T/w" "$T/w/dir" "$T/w/nl
x" "$T/w/c,d"
mkfifo "$T/w/fifo"
cp -r "$TINY" "$T/tiny"

# rec CASE PATTERN FILE [DIR] ARGS...: refused(), and the runner never started
rec() {
	_c=$1 _p=$2 _f=$3
	shift 3
	rm -f "$T/booted"
	refused "$_c" 1 "$_p" "$_f" "$@"
	[ ! -e "$T/booted" ] && [ ! -e "$_f.ctf" ] && [ ! -e /dev/null.ctf ]
	ok $? "$_c: the guest runner never started, no DB.ctf/"
}

[ -c /dev/null ] && [ ! -e /dev/null.ctf ]
ok $? "no /dev/null.ctf before"
rec "record -o /dev/null" "/dev/null is a character device, not a regular file" \
	/dev/null "$FT" record -o /dev/null -- "$WL"
rec "record -o DIR" "dir is a directory, not a regular file" \
	"$T/w/dir" "$FT" record -o "$T/w/dir" -- "$WL"
rec "record -o FIFO" "fifo is a FIFO, not a regular file" \
	"$T/w/fifo" "$FT" record -o "$T/w/fifo" -- "$WL"
rec "record -o a,b.db" "a,b.db has a comma: QEMU's -virtfs cannot share" \
	"$T/w/a,b.db" "$FT" record -o "$T/w/a,b.db" -- "$WL"
rec "record --rootfs ''" "empty --rootfs path" \
	"$T/w/r.db" "$FT" record -o "$T/w/r.db" --rootfs '' -- "$WL"
rec "record --rootfs with a comma" "a root filesystem path with a comma or a space" \
	"$T/w/r.db" "$FT" record -o "$T/w/r.db" --rootfs "$T/w/c,d" -- "$WL"
cd "$T/w/nl
x" || exit 1
rec "record in a working directory with a newline" "the working directory has a newline" \
	"$T/w/nl
x/r.db" "$FT" record -o r.db -- "$WL"
cd "$T/w/c,d" || exit 1
rec "record -o r.db in a working directory with a comma" "c,d/r.db has a comma" \
	"$T/w/c,d/r.db" "$FT" record -o r.db -- "$WL"
cd "$T" || exit 1

"$FT" ingest -q -o "$T/w/c,d/g.db" "$T/tiny"
ok $? "a database in a directory with a comma"
rec "guest replay of a database with a comma" "g.db has a comma: QEMU's -virtfs cannot share" \
	"$T/w/c,d/g.db" "$FT" guest replay "$T/w/c,d/g.db" -p mcpage:2

# --export beside a guest: DB is the export's input, then the guest's trace is stored in it
"$FT" ingest -q -o "$T/w/e.db" "$SMALL"
FAKE_GUEST=$T/tiny timeout 60 "$FT" guest replay "$T/w/e.db" -p mcpage:2 \
	--export "$T/w/e.ftr" > "$T/out" 2> "$T/err"
ok $? "guest replay --export F -p mcpage:2 (fake guest): exit 0"
[ -s "$T/w/e.ftr" ] && [ "$("$FT" query "$T/w/e.db" --format csv sql \
	"SELECT count(*) FROM replay_run WHERE kind = 'guest'" | tail -n 1)" = 1 ]
ok $? "  ... the replay file written, the guest's run stored in DB"
done_testing
