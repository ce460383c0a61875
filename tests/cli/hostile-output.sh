#!/bin/sh
# hostile-output.sh - output files (issue 12 items 4, 5): report -o and ingest -o refuse an
# existing output that is not a regular file (character device, FIFO, directory, dangling
# symlink) with one line and exit 1, leaving it as it was; report writes through a private
# temporary, so a symlink planted at any temporary name is never followed, and 30
# concurrent reports to one path all succeed with the whole file in place.
# Character devices: made with mknod in the scratch directory (tests run as root here);
# without root, /dev/null itself is the target (a non-root rename in /dev fails anyway).
# Fixture: SYNTHETIC tests/data/synthetic-anon-tiny.
. "$(dirname "$0")/../test-lib.sh"
. "$(dirname "$0")/trace-lib.inc"
. "$(dirname "$0")/hostile-lib.inc"

plan 42

DB="$T/r.db"
"$FT" ingest -q -o "$DB" "$TINY" && "$FT" replay "$DB" -P order0 -P mcpage:2 > /dev/null
ok $? "prepare a database with two replay runs"
"$FT" report "$DB" -o "$T/ref.html" > /dev/null && grep -q '</html>' "$T/ref.html"
ok $? "a reference report"

mkdir -p "$T/o"
if [ "$(id -u)" = 0 ]; then
	mknod "$T/o/null" c 1 3
	CHR="$T/o/null"
else
	CHR=/dev/null
fi
mkfifo "$T/o/fifo"
mkdir "$T/o/dir"
ln -s "$T/o/nowhere" "$T/o/dangling"

refused "report -o a character device" 1 "null is a character device, not a regular file" \
	"$CHR" "$FT" report "$DB" -o "$CHR"
refused "report -o a FIFO" 1 "fifo is a FIFO, not a regular file" \
	"$T/o/fifo" "$FT" report "$DB" -o "$T/o/fifo"
refused "report -o a directory" 1 "dir is a directory, not a regular file" \
	"$T/o/dir" "$FT" report "$DB" -o "$T/o/dir"
refused "report -o a dangling symlink" 1 "dangling is a dangling symlink" \
	"$T/o/dangling" "$FT" report "$DB" -o "$T/o/dangling"

cp -r "$TINY" "$T/tiny2"
refused "ingest -o a character device" 1 "null is a character device, not a regular file" \
	"$CHR" "$FT" ingest -o "$CHR" "$T/tiny2"
refused "ingest -o a FIFO" 1 "fifo is a FIFO, not a regular file" \
	"$T/o/fifo" "$FT" ingest -o "$T/o/fifo" "$T/tiny2"
refused "ingest -o a directory" 1 "dir is a directory, not a regular file" \
	"$T/o/dir" "$FT" ingest -o "$T/o/dir" "$T/tiny2"
refused "ingest -o a dangling symlink" 1 "dangling is a dangling symlink" \
	"$T/o/dangling" "$FT" ingest -o "$T/o/dangling" "$T/tiny2"

# symlinks planted at the old fixed temporary name and at names like ours
mkdir "$T/p"
echo precious > "$T/p/victim"
cp "$T/p/victim" "$T/victim.orig"
for n in out.html.tmp out.html.tmp-AAAAAA out.html.tmp-XXXXXX .out.html.tmp; do
	ln -s "$T/p/victim" "$T/p/$n"
done
ls -a "$T/p" | sort > "$T/p.before"
timeout 60 "$FT" report "$DB" -o "$T/p/out.html" > /dev/null 2> "$T/p.err"
ok $? "report with symlinks planted at temporary names: exit 0"
cmp -s "$T/p/victim" "$T/victim.orig"
ok $? "  ... the victim is untouched"
[ -f "$T/p/out.html" ] && [ ! -L "$T/p/out.html" ] && cmp -s "$T/p/out.html" "$T/ref.html"
ok $? "  ... out.html is a regular file holding the report"
echo out.html >> "$T/p.before"
[ "$(sort "$T/p.before")" = "$(ls -a "$T/p" | sort)" ]
ok $? "  ... no temporary left behind"

# report over an existing regular file and through a symlink to one: replaced whole
echo old > "$T/p/exists.html"
"$FT" report "$DB" -o "$T/p/exists.html" > /dev/null && cmp -s "$T/p/exists.html" "$T/ref.html"
ok $? "report replaces an existing regular file"

# 30 concurrent reports to one path
mkdir "$T/c"
i=0
while [ $i -lt 30 ]; do
	( timeout 120 "$FT" report "$DB" -o "$T/c/out.html" > /dev/null 2> "$T/c/err.$i";
	  echo $? > "$T/c/rc.$i" ) &
	i=$((i + 1))
done
wait
fails=0
for f in "$T"/c/rc.*; do [ "$(cat "$f")" = 0 ] || fails=$((fails + 1)); done
ok $([ $fails = 0 ]; echo $?) "30 concurrent reports to one path: all exit 0 ($fails failed)"
[ $fails = 0 ] || cat "$T"/c/err.* | sort | uniq -c | sed 's/^/# /'
cmp -s "$T/c/out.html" "$T/ref.html"
ok $? "  ... the file holds one whole report"
[ "$(ls "$T/c" | grep -v '^rc\.\|^err\.')" = out.html ]
ok $? "  ... no temporary left behind"
done_testing
