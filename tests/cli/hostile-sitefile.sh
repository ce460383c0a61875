#!/bin/sh
# hostile-sitefile.sh - call-site side files that hung, exhausted or were taken silently
# by ingest (issue 23 items 4 and 9). Item 4: sites.txt as a FIFO (blocked forever), a link
# to /dev/zero (read until out of memory), a directory, a file past the 1 GiB bound: each
# refused with one line, exit 1, no hang, the existing database byte-identical and nothing
# left beside it, a new one not created; 10,000 mmaps then 10,000 forks (each fork copied
# the whole map: 2.4 GB) are stored in bounded memory. Item 9: a NUL byte after the V line,
# a time of 2^64-1, -5 as a number, a pid of 99999999999 and a dangling link are refused
# with the line and the problem.
# Fixtures: SYNTHETIC tests/data/synthetic-anon-tiny (the trace), synthetic-anon-small
# (the existing database's).
. "$(dirname "$0")/../test-lib.sh"
. "$(dirname "$0")/hostile-lib.inc"

FIX="$TOP/tests/data/synthetic-anon-tiny"
KINDS="fifo devzero dir big"
DAMAGE="nul ts-max ts-minus pid-minus pid-big fork-big dangling"
plan $((1 + 2 + $(echo $KINDS | wc -w) * 8 + $(echo $DAMAGE | wc -w) * 8 + 4 + 1))

mkdir -p "$T/db" "$T/tr" "$T/tmp"
export TMPDIR="$T/tmp"
DB="$T/db/existing.db"
"$FT" ingest -q -o "$DB" "$TOP/tests/data/synthetic-anon-small"
ok $? "an existing database to protect"

V='V	1	1'
CALL='C	1700000000000000000	100	100	mmap	0	21000	3	22	ffffffff	0	94351841558528	1	ok'
FRAME='F	1	/bin/bash	1	xmalloc	0'
# fresh NAME: a copy of the fixture in $T/tr/NAME, without a side file
fresh() {
	rm -rf "$T/tr/$1"
	cp -r "$FIX" "$T/tr/$1"
	echo "$T/tr/$1"
}

# the issue's side file is taken: what the damaged ones below differ from
d=$(fresh good)
printf '%s\n%s\n%s\n' "$V" "$CALL" "$FRAME" > "$d/sites.txt"
"$FT" ingest -q -o "$T/db/good.db" "$d"
ok $? "the issue's side file is ingested"
n=$("$FT" query "$T/db/good.db" --format csv sql \
	"SELECT COUNT(*) FROM site_call WHERE call = 'mmap'" 2>&1 | tail -1)
ok $([ "$n" = 1 ]; echo $?) "its call is stored (got $n)"

# both KIND PATTERN DIR: refused into the existing database and into a new one
both() {
	refused "$1, existing database" 1 "$2" "$DB" "$FT" ingest -o "$DB" "$3"
	refused "$1, new database" 1 "$2" "$T/db/new.db" "$FT" ingest -o "$T/db/new.db" "$3"
}

for k in $KINDS; do
	d=$(fresh $k)
	case $k in
	fifo) mkfifo "$d/sites.txt"; pat="sites.txt is a FIFO" ;;
	devzero) ln -s /dev/zero "$d/sites.txt"; pat="sites.txt is a character device" ;;
	dir) mkdir "$d/sites.txt"; pat="sites.txt is a directory" ;;
	big)	printf '%s\n' "$V" > "$d/sites.txt"
		truncate -s 1073741825 "$d/sites.txt"	# sparse: 1 GiB + 1 byte
		pat="sites.txt: 1073741825 bytes, more than a side file may hold" ;;
	esac
	both "side file: $k" "cannot ingest .*$pat" "$d"
done

for k in $DAMAGE; do
	d=$(fresh $k)
	s="$d/sites.txt"
	case $k in
	nul)	printf '%s\n\0%s\n%s\n' "$V" "$CALL" "$FRAME" > "$s"
		pat="malformed line 2: a NUL byte" ;;
	ts-max)	printf '%s\n%s\n%s\n' "$V" "$(echo "$CALL" |
			sed 's/1700000000000000000/18446744073709551615/')" "$FRAME" > "$s"
		pat="malformed call line 2: time 18446744073709551615 past" ;;
	ts-minus) printf '%s\n%s\n%s\n' "$V" "$(echo "$CALL" |
			sed 's/1700000000000000000/-5/')" "$FRAME" > "$s"
		pat="malformed call line 2" ;;
	pid-minus) printf '%s\n%s\n%s\n' "$V" "$(echo "$CALL" |
			sed 's/	100	100	/	-5	100	/')" "$FRAME" > "$s"
		pat="malformed call line 2" ;;
	pid-big) printf '%s\n%s\n%s\n' "$V" "$(echo "$CALL" |
			sed 's/	100	100	/	99999999999	100	/')" "$FRAME" > "$s"
		pat="malformed call line 2: PID 99999999999 past 2147483647" ;;
	fork-big) printf '%s\n%s\n%s\nK\t1700000000000000001\t100\t99999999999\tfork\n' \
			"$V" "$CALL" "$FRAME" > "$s"
		pat="malformed fork line 4: CHILD_PID 99999999999 past 2147483647" ;;
	dangling) ln -s "$d/no-such-file" "$s"
		pat="sites.txt is a symlink to nothing" ;;
	esac
	both "side file: $k" "cannot ingest .*$pat" "$d"
done

# 10,000 anonymous mmaps, then 10,000 forks of their process: the map is shared, not copied
d=$(fresh forks)
python3 - "$d/sites.txt" <<'PY'
import sys
with open(sys.argv[1], 'w') as f:
    f.write('V\t1\t1\n')
    ts = 1700000000000000000
    for i in range(10000):
        f.write('C\t%d\t100\t100\tmmap\t0\t1000\t3\t22\tffffffff\t0\t%d\t0\tok\n'
                % (ts + i, 0x7f0000000000 + i * 0x2000))
    for i in range(10000):
        f.write('K\t%d\t100\t%d\tfork\n' % (ts + 10000 + i, 1000 + i))
PY
timeout "$HOSTILE_TIMEOUT" /usr/bin/time -f %M -o "$T/rss" "$FT" ingest -q -o "$T/db/forks.db" \
	"$d" 2> "$T/forks.err"
ok $? "10,000 mmaps and 10,000 forks are ingested: $(head -c 200 "$T/forks.err")"
rss=$(tail -1 "$T/rss")
# 12 MB measured (2.4 GB before: a copy of 10,000 ranges per fork); ASan's build more
ok $([ "$rss" -lt 400000 ]; echo $?) "in bounded memory: peak RSS $rss KB < 400 MB"
n=$("$FT" query "$T/db/forks.db" --format csv sql \
	"SELECT COUNT(*) FROM site_call WHERE call = 'mmap'" 2>&1 | tail -1)
ok $([ "$n" = 10000 ]; echo $?) "its 10,000 calls are stored (got $n)"
n=$("$FT" query "$T/db/forks.db" --format csv sql \
	"SELECT COUNT(*) FROM site_call WHERE pid = 100 AND end_ts > ts" 2>&1 | tail -1)
ok $([ "$n" = 10000 ]; echo $?) "each call keeps its range to the end (got $n)"
ok $([ -z "$(ls -A "$T/tmp")" ]; echo $?) "nothing left in TMPDIR"
done_testing
