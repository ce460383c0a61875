#!/bin/sh
# compare-sites.sh - `compare --by site` (docs/sites.md, "Per-site metrics") without a guest.
# Two real fixtures get a side file whose one mmap maps the workload's largest VMA from a
# named function (as tests/cli/sites.sh does): anon-touch writes its 4 MiB region whole
# (dense), sparse writes 512 random pages of 64 MiB. The region's faults, zeroed bytes and
# bloat under order0 and mcpage:4 are derived here with python3 from the faults `query
# faults` decodes (one 64K block per aligned 16 pages inside the VMA, else 4K), and for
# sparse also from the workload's own count of distinct 64K blocks (workload.out); the
# sites' values must sum to compare's totals. Bad input: a trace without sites, sites
# ingested without per-touch attribution, a bad --by.
. "$(dirname "$0")/../test-lib.sh"

plan 25
# v JSON POLICY SITE FIELD: a field of compare --by site's JSON
v() {
	python3 -c '
import json, sys
for r in json.load(open(sys.argv[1])):
	if r["policy"] == sys.argv[2] and r["site"] == sys.argv[3]:
		print(r[sys.argv[4]])' "$@"
}

# scenario FIXTURE COMM SITE: DB $T/COMM.db with the side file, replayed under order0 and
# mcpage:4; sets in, mc_faults, mc_zeroed, mc_bloat (derived) and j (compare's JSON)
scenario() {
	_fix=$TOP/tests/data/$1 _db=$T/$2.db
	"$FT" ingest -q -o "$T/plain.db" "$_fix"
	_off=$("$FT" query "$T/plain.db" --format csv sql \
		"SELECT value FROM trace_meta WHERE key = 'clock_offset_ns'" | tail -n 1)
	set -- $("$FT" query "$T/plain.db" --format csv sql "SELECT p.pid, v.start, v.end - v.start
		FROM vma v JOIN process p USING (proc_id) WHERE p.comm = '$2'
		ORDER BY v.faults DESC LIMIT 1" | tail -n 1 | tr ',' ' ') "$2" "$3"
	_pid=$1 _start=$2 _len=$3 _comm=$4 _site=$5
	"$FT" query "$T/plain.db" --format json --pid "$_pid" faults > "$T/faults.json"
	set -- $(python3 -c '
import json, sys
f = json.load(open(sys.argv[1])); lo = int(sys.argv[2]); hi = lo + int(sys.argv[3])
inr = [e for e in f if lo <= int(e["address"], 16) < hi]
pages = [int(e["address"], 16) >> 12 for e in inr]
vs, ve = lo >> 12, hi >> 12
blocks, small = {}, set()
for p in pages:
	b = p & ~15
	if b >= vs and b + 16 <= ve:
		blocks.setdefault(b, set()).add(p)
	else:
		small.add(p)
bloat = sum(16 - len(t) for t in blocks.values()) * 4096
print(len(pages), min(e["ts"] for e in inr), len(blocks) + len(small),
      (16 * len(blocks) + len(small)) * 4096, bloat)
' "$T/faults.json" "$_start" "$_len")
	in=$1 mc_faults=$3 mc_zeroed=$4 mc_bloat=$5
	rm -rf "$T/run"
	cp -r "$_fix" "$T/run"
	_mono=$(($2 - _off - 1000))
	cat > "$T/run/sites.txt" <<EOF
V	1	1
C	$_mono	$_pid	$_pid	mmap	0	$(printf '%x' "$_len")	3	22	ffffffff	0	$_start	2	ok
F	7f0000001234	/lib/x86_64-linux-gnu/libc.so.6	1234	__mmap	13
F	401234	/usr/libexec/foliotrace/$_comm	1234	$_site	20
E	$((_mono + 1000000000))	$_pid	$_pid	0
EOF
	rm -f "$_db"
	"$FT" ingest -q -o "$_db" "$T/run" &&
		"$FT" replay -q "$_db" --policy order0 --policy mcpage:4 > /dev/null &&
		"$FT" compare "$_db" --by site --format json > "$T/$_comm.json" &&
		"$FT" compare "$_db" --format json > "$T/$_comm-total.json"
	ok $? "$_comm: ingest with the side file, replay, compare --by site --format json"
	j=$T/$_comm.json
}

# checks COMM SITE: the derived values against compare --by site
checks() {
	got=$(v "$j" order0 "$2" faults)
	ok $([ "$in" -gt 0 ] && [ "$got" = "$in" ] && [ "$(v "$j" order0 "$2" bloat_bytes)" = 0 ] &&
	     [ "$(v "$j" order0 "$2" zeroed_bytes)" = $((in * 4096)) ]; echo $?) \
		"$1: order0: $2 took the region's $in faults ($got), no bloat, $((in * 4096)) bytes zeroed"
	got=$(v "$j" mcpage:4 "$2" faults)
	ok $([ "$got" = "$mc_faults" ]; echo $?) "$1: mcpage:4: $got faults, derived $mc_faults"
	ok $([ "$(v "$j" mcpage:4 "$2" zeroed_bytes)" = "$mc_zeroed" ] &&
	     [ "$(v "$j" mcpage:4 "$2" bloat_bytes)" = "$mc_bloat" ]; echo $?) \
		"$1: mcpage:4: zeroed $(v "$j" mcpage:4 "$2" zeroed_bytes) = $mc_zeroed, bloat $(v "$j" mcpage:4 "$2" bloat_bytes) = $mc_bloat"
	ok $([ "$(v "$j" mcpage:4 "$2" faults_vs_baseline)" = \
	       "$(python3 -c "print($mc_faults / $in - 1)")" ]; echo $?) \
		"$1: faults_vs_baseline is against the site's own order0 faults"
	# both workloads write their region and exit: at the peak all of it is resident
	ok $([ "$(v "$j" mcpage:4 "$2" rss_at_peak_bytes)" = "$mc_zeroed" ] &&
	     [ "$(v "$j" order0 "$2" rss_at_peak_bytes)" = $((in * 4096)) ]; echo $?) \
		"$1: rss_at_peak_bytes: all the region's blocks under both policies"
	ok $(python3 "$TOP/tests/cli/site-sums.py" "$j" "$T/$1-total.json"; echo $?) \
		"$1: per policy the sites sum to compare's faults, bloat, zeroed and peak RSS; shares sum to 1"
}

scenario x86_64-anon-touch-order0 anon-touch touch_region
checks anon-touch touch_region
scenario x86_64-sparse-order0 sparse scatter
checks sparse scatter
# the workload's own count: its 512 pages lie in distinct_64k blocks
want=$(sed -n 's/^RESULT sparse .* distinct_64k=\([0-9]*\) .*/\1/p' \
	"$TOP/tests/data/x86_64-sparse-order0/workload.out")
ok $([ -n "$want" ] && [ "$(v "$j" mcpage:4 scatter faults)" = "$want" ] &&
     [ "$(v "$j" mcpage:4 scatter bloat_bytes)" = $(((want * 16 - 512) * 4096)) ]; echo $?) \
	"sparse: mcpage:4 faults = the workload's distinct_64k ($want), bloat = $(((want * 16 - 512) * 4096)) bytes"
ok $("$FT" compare "$T/sparse.db" --by site --format csv | head -n 1 | grep -qx \
	'site,module,policy,run_id,faults,faults_vs_baseline,bloat_bytes,zeroed_bytes,rss_at_peak_bytes,peak_rss_share'
     echo $?) "CSV has the documented columns"
"$FT" compare "$T/sparse.db" --by site > "$T/out"
ok $([ "$(awk 'NR == 4 { print $1, $3 }' "$T/out")" = "scatter order0" ] &&
     grep -q "^scatter .* mcpage:4 .* 23\.7M " "$T/out"; echo $?) \
	"table: sites by baseline faults, baseline first, bytes as sizes"

# report: the per-site section, the same values
"$FT" report "$T/sparse.db" -o "$T/r.html" > /dev/null
ok $(grep -q '^<h2>Allocation call sites</h2>' "$T/r.html" &&
     grep -q '^<tr><td title="/usr/libexec/foliotrace/sparse">scatter</td><td>512</td><td>0</td><td>[0-9.]*%</td><td>411 (-19.7%)</td><td>23.7M</td>' "$T/r.html"
     echo $?) "report: per-site section, scatter's faults 512 and 411 (-19.7%) and bloat 23.7M"

# bad input
"$FT" replay -q "$T/plain.db" --policy order0 > /dev/null
"$FT" report "$T/plain.db" --trace 2 -o "$T/r.html" > /dev/null
ok $([ $? = 0 ] && ! grep -q 'Allocation call sites' "$T/r.html"; echo $?) \
	"report of a trace without sites: no per-site section"
cp "$T/plain.db" "$T/plain.before"
"$FT" compare "$T/plain.db" --by site > "$T/out" 2> "$T/err"
ok $([ $? = 1 ] && grep -q "not recorded with --sites" "$T/err" && [ "$(wc -l < "$T/err")" = 1 ] &&
     [ ! -s "$T/out" ] && cmp -s "$T/plain.db" "$T/plain.before"; echo $?) \
	"a trace without sites: exit 1, one line, nothing printed, database unchanged: $(cat "$T/err")"
cp "$T/sparse.db" "$T/old.db"
python3 -c 'import sqlite3, sys
c = sqlite3.connect(sys.argv[1]); c.execute("DELETE FROM replay_site"); c.execute("DELETE FROM site_touch"); c.commit()' "$T/old.db"
"$FT" compare "$T/old.db" --by site > "$T/out" 2> "$T/err"
ok $([ $? = 1 ] && grep -q "ingest its run directory again" "$T/err"; echo $?) \
	"sites stored without per-touch attribution: exit 1 ($(cat "$T/err"))"
"$FT" report "$T/old.db" -o "$T/r.html" > /dev/null
ok $([ $? = 0 ] && grep -q '<p class="warn" id="sites">No per-site metrics: .*ingest its run directory again' "$T/r.html"
     echo $?) "report of such a trace: a note saying what to do, not a failure"
python3 -c 'import sqlite3, sys
c = sqlite3.connect(sys.argv[1]); c.execute("DELETE FROM replay_site"); c.commit()' "$T/sparse.db"
"$FT" compare "$T/sparse.db" --by site > "$T/out" 2> "$T/err"
ok $([ $? = 1 ] && grep -q "has no per-site metrics.*replay the trace again" "$T/err"; echo $?) \
	"runs without per-site rows: exit 1 ($(cat "$T/err"))"
"$FT" compare "$T/sparse.db" --by file > "$T/out" 2> "$T/err"
ok $([ $? = 2 ] && grep -q "^foliotrace compare: --by takes 'site'" "$T/err"; echo $?) "--by file: usage error"
"$FT" compare "$T/sparse.db" --by site --sim-vs-real > "$T/out" 2> "$T/err"
ok $([ $? = 2 ]; echo $?) "--by site with --sim-vs-real: usage error"
done_testing
