#!/bin/sh
# hostile-same-file.sh - an output that is an input (issue 23 item 2): every command that
# writes a file refuses an output that is one of its inputs, the same device and inode under
# any name (itself, ./NAME, a hard link, a symlink), with one line and exit 1, the input
# byte-identical and nothing left beside it: advise -o, report -o, guest replay --export,
# ingest -o onto a file of the CTF input. The check is lib/outfile.c's outfile_check(),
# fed by each command's outfile_input(). calibrate -o is not among them: storing the models
# into an input database is what it does (its default is the first DB).
# Fixture: SYNTHETIC tests/data/synthetic-anon-tiny.
. "$(dirname "$0")/../test-lib.sh"
. "$(dirname "$0")/trace-lib.inc"
. "$(dirname "$0")/hostile-lib.inc"

plan 34

mkdir "$T/d"
DB="$T/d/r.db"
"$FT" ingest -q -o "$DB" "$TINY" && "$FT" replay "$DB" -P order0 > /dev/null
ok $? "prepare a database with a replay run"
ln "$DB" "$T/d/hard.db"
ln -s r.db "$T/d/sym.db"

refused "advise -o DB" 1 "r.db is the input .*r.db: not overwritten with the advice file" \
	"$DB" "$FT" advise "$DB" -b 5 -o "$DB"
refused "advise -o a hard link of DB" 1 "hard.db is the input .*r.db: not overwritten" \
	"$DB" "$FT" advise "$DB" -b 5 -o "$T/d/hard.db"
refused "report -o DB" 1 "r.db is the input .*r.db: not overwritten with the output" \
	"$DB" "$FT" report "$DB" -o "$DB"
refused "report -o a symlink to DB" 1 "sym.db is the input .*r.db: not overwritten" \
	"$DB" "$FT" report "$DB" -o "$T/d/sym.db"
refused "guest replay --export DB" 1 "r.db is the input .*r.db: not overwritten with the replay file" \
	"$DB" "$FT" guest replay "$DB" --export "$T/d/./r.db"

cp -r "$TINY" "$T/ctf"
refused "ingest -o the trace's metadata" 1 "metadata is the input .*metadata: not overwritten with the database" \
	"$T/ctf/trace/metadata" "$FT" ingest -o "$T/ctf/trace/metadata" "$T/ctf"
refused "ingest -o a stream of the trace" 1 "stream is the input .*stream: not overwritten with the database" \
	"$T/ctf/trace/stream" "$FT" ingest -o "$T/ctf/trace/stream" "$T/ctf"
refused "ingest -o a header file of the trace" 1 "arch is the input .*arch: not overwritten" \
	"$T/ctf/header/arch" "$FT" ingest -o "$T/ctf/header/arch" "$T/ctf"

# a different file is still written, and the database read is untouched
cp "$DB" "$T/db.orig"
"$FT" report "$DB" -o "$T/d/out.html" > /dev/null && grep -q '</html>' "$T/d/out.html" &&
	cmp -s "$DB" "$T/db.orig"
ok $? "report -o another file still writes it, the database untouched"
done_testing
