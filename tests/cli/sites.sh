#!/bin/sh
# sites.sh - the call-site side file (docs/sites.md) ingested with a real trace, without a
# guest: a side file written here for the x86_64 anon-touch fixture maps the workload's
# 4 MiB region from a known function; the faults attributed to it must be those
# `query faults` decodes in that range (counted here with python3), the rest [no call].
# Also: stacks stored once, a malformed side file stores nothing, usage errors exit 2.
. "$(dirname "$0")/../test-lib.sh"

plan 15
FIX=$TOP/tests/data/x86_64-anon-touch-order0
db=$T/plain.db
"$FT" ingest -q -o "$db" "$FIX"
ok $? "the fixture ingests"
off=$("$FT" query "$db" --format csv sql \
	"SELECT value FROM trace_meta WHERE key = 'clock_offset_ns'" | tail -n 1)
ok $([ -n "$off" ] && [ "$off" -gt 0 ]; echo $?) "the trace clock's offset is stored ($off)"
set -- $("$FT" query "$db" --format csv sql "SELECT p.pid, v.start, v.end - v.start FROM vma v
	JOIN process p USING (proc_id) WHERE p.comm = 'anon-touch' ORDER BY v.faults DESC
	LIMIT 1" | tail -n 1 | tr ',' ' ')
pid=$1 start=$2 len=$3
# the workload's faults in [start, start + len), its other faults, the first one's time
"$FT" query "$db" --format json --pid "$pid" faults > "$T/faults.json"
set -- $(python3 -c '
import json, sys
f = json.load(open(sys.argv[1])); lo = int(sys.argv[2]); hi = lo + int(sys.argv[3])
inr = [e for e in f if lo <= int(e["address"], 16) < hi]
print(len(inr), len(f) - len(inr), min(e["ts"] for e in inr))' "$T/faults.json" "$start" "$len")
in=$1 out=$2 first=$3
ok $([ "$in" -gt 0 ] && [ "$out" -gt 0 ]; echo $?) "fixture: $in faults in the region, $out outside"

# the side file: brk(0) (learns the break), the region's mmap from touch_region 1 us before
# its first fault, and an mmap of one untouched page from the same stack
dir=$T/run
cp -r "$FIX" "$dir"
mono=$((first - off - 1000))
frames="F	7f0000001234	/lib/x86_64-linux-gnu/libc.so.6	1234	__mmap	13
F	401234	/usr/libexec/foliotrace/anon-touch	1234	touch_region	20
F	401500	/usr/libexec/foliotrace/anon-touch	1500	main	40"
hex=$(printf '%x' "$len")
cat > "$dir/sites.txt" <<EOF
V	1	1
C	$((mono - 3000))	$pid	$pid	brk	0	0	0	0	0	0	4096000	1	no_unwind_info
F	4000	-	0	-	0
C	$((mono - 2000))	$pid	$pid	mmap	0	1000	3	22	ffffffff	0	65536	3	ok
$frames
C	$mono	$pid	$pid	mmap	0	$hex	3	22	ffffffff	0	$start	3	ok
$frames
E	$((mono + 1000000000))	$pid	$pid	0
EOF
"$FT" ingest -q -o "$T/s.db" "$dir"
ok $? "a run directory with a side file ingests"
row=$("$FT" query "$T/s.db" --format csv sites | awk -F, '$1 == "touch_region"')
ok $([ "$(echo "$row" | cut -d, -f3-7)" = "2,2,$((len + 4096)),$in,$in" ]; echo $?) \
	"touch_region: 2 calls, 2 regions, $((len + 4096)) bytes, $in pages, $in faults ($row)"
nocall=$("$FT" query "$T/s.db" --format csv sites | awk -F, '$1 == "[no call]" { print $7 }')
ok $([ "$nocall" = "$out" ]; echo $?) "the other $out faults are [no call] ($nocall)"
unk=$("$FT" query "$T/s.db" --format csv sites | awk -F, '$1 == "[unknown]" { print $3, $10 }')
ok $([ "$unk" = "1 1" ]; echo $?) "the brk with no unwind info is [unknown], counted ($unk)"
ok $([ "$("$FT" query "$T/s.db" --format csv sql "SELECT count(*) FROM site_stack" |
	tail -n 1)" = 2 ]; echo $?) "two calls with one stack store it once"
"$FT" query "$T/s.db" --format json sites --stack > "$T/stack.json"
ok $(python3 -c '
import json, sys
r = [x for x in json.load(open(sys.argv[1])) if x["site"] == "touch_region"][0]
ok = r["stack"] == "__mmap+0x13 < touch_region+0x20 < main+0x40" and r["module_offset"] == 0x1234
sys.exit(0 if ok and r["module"].endswith("anon-touch") else 1)' "$T/stack.json"; echo $?) \
	"sites --stack: frames innermost first, module and module offset of the site"
ok $([ "$("$FT" query "$T/s.db" --format csv --pid 1 sites | wc -l)" = 1 ]; echo $?) \
	"--pid of an untraced process: no rows"

# a malformed side file: nothing stored
cp -r "$FIX" "$T/bad"
printf 'V\t1\t1\nC\t5\t%s\tmmap\n' "$pid" > "$T/bad/sites.txt"
"$FT" ingest -q -o "$T/bad.db" "$T/bad" 2> "$T/err"
ok $([ $? = 1 ] && grep -q 'malformed call line 2' "$T/err" && [ ! -e "$T/bad.db" ]; echo $?) \
	"a malformed side file: exit 1, named ($(cat "$T/err")), no database left"
cp "$db" "$T/keep.db"
sum=$(cksum < "$T/keep.db")
"$FT" ingest -q -o "$T/keep.db" "$T/bad" 2> "$T/err"
ok $([ $? = 1 ] && [ "$(cksum < "$T/keep.db")" = "$sum" ]; echo $?) \
	"into an existing database: exit 1, the database byte-identical"

# usage errors: nothing runs
"$FT" record --site-skip x -o "$T/r.db" -- anon-touch 2> "$T/err"
ok $([ $? = 2 ] && grep -q 'needs --sites' "$T/err"; echo $?) "--site-skip without --sites"
"$FT" record --sites --site-skip '(' -o "$T/r.db" -- anon-touch 2> "$T/err"
ok $([ $? = 2 ] && [ ! -e "$T/r.db" ]; echo $?) "a --site-skip that is no regex"
"$FT" query "$T/s.db" --stack procs 2> "$T/err"
ok $([ $? = 2 ]; echo $?) "--stack outside the sites view"
done_testing
