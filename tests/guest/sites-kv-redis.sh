#!/bin/sh
# Guest test: `record --sites` of kv-redis (issue 14): Debian's redis-server with jemalloc,
# its clients, the shell script that starts them. The sites named for redis-server are
# functions outside the skip list (none of jemalloc's or libc's own frames), redis's own
# among them, and every traced process's calls hold exactly its anon faults. Then
# `compare --by site` of the server's replays: the sites sum to the run's totals, and
# under order0 to query sites' anon faults plus the zero_wp faults. Last, one attribution
# on a real trace of many sites: the advice of `advise -o`, replayed, shows under
# `compare --by site` every site's faults and bloat as advise predicted them.
. "$(dirname "$0")/../test-lib.sh"
. "$(dirname "$0")/guest-lib.inc"

plan 11
db=$T/kv.db
q() {
	sql_rows "$db" "$1"
}
"$FT" record --sites --arch "$ARCH" -o "$db" -- kv-redis --requests 2000 > "$T/out" 2> "$T/err"
ok $? "record --sites of kv-redis exits 0"
wout=$(ls -d "$db".ctf/*-kv-redis)/workload.out
srv=$(sed -n 's/^RESULT kv-redis pid=\([0-9]*\) .*status=0$/\1/p' "$wout")
ok $([ -n "$srv" ]; echo $?) "the benchmark ran (redis-server pid ${srv:-?})"
skip=$(q "SELECT value FROM trace_meta WHERE key = 'sites.skip'")
q "SELECT DISTINCT site || ' ' || coalesce(site_module, '-') FROM site_call WHERE pid = $srv
	AND site NOT IN ('[no call]', '[unknown]', '[unnamed]')" > "$T/named"
diag "redis-server's named sites: $(cut -d' ' -f1 "$T/named" | tr '\n' ' ')"
bad=$(while read -r site module; do
	base=${module##*/}
	if printf '%s\n' "$site" | grep -Eq "$skip" || printf '%s\n' "$base" | grep -Eq "$skip"; then
		echo "$site"
	fi
done < "$T/named")
ok $([ -s "$T/named" ] && [ -n "$skip" ] && [ -z "$bad" ]; echo $?) \
	"every named site of redis-server is outside the skip list (${bad:-none inside})"
ok $(grep -q ' /usr/bin/redis-server$' "$T/named"; echo $?) \
	"redis's own functions are among them: $(grep ' /usr/bin/redis-server$' "$T/named" | cut -d' ' -f1 | tr '\n' ' ')"
sum=$(q "SELECT sum(faults) FROM site_call WHERE pid = $srv")
want=$(q "SELECT sum(anon_faults) FROM process WHERE pid = $srv")
ok $([ -n "$sum" ] && [ "$sum" -gt 0 ] && [ "$sum" = "$want" ]; echo $?) \
	"redis-server's sites hold its anon faults ($sum = $want)"
bad=$(q "SELECT count(*) FROM (SELECT pid FROM site_call GROUP BY pid HAVING sum(faults) <>
	(SELECT sum(anon_faults) FROM process p WHERE p.pid = site_call.pid))")
ok $([ "$bad" = 0 ]; echo $?) "every traced process: its calls hold its anon faults ($bad differ)"

"$FT" replay -q "$db" --comm redis-server --policy order0 --policy mthp:16K,64K > /dev/null 2> "$T/err"
ok $? "replay --comm redis-server (order0, mthp:16K,64K) with per-site metrics"
"$FT" compare "$db" --comm redis-server --by site --format json > "$T/sites.json" &&
	"$FT" compare "$db" --comm redis-server --format json > "$T/total.json"
ok $(python3 "$TOP/tests/cli/site-sums.py" "$T/sites.json" "$T/total.json"; echo $?) \
	"compare --by site: per policy the sites sum to the run's faults, bloat, zeroed, peak RSS"
anon=$(q "SELECT sum(faults) FROM site_call WHERE pid IN (SELECT pid FROM process WHERE comm = 'redis-server')")
o0=$(python3 -c '
import json, sys
t = json.load(open(sys.argv[1]))
r = [x for x in t if x["policy"] == "order0"][0]
print(r["faults"], r["zero_wp_faults"])' "$T/total.json")
ok $([ "${o0% *}" = $((anon + ${o0#* })) ]; echo $?) \
	"order0: the sites' faults (${o0% *}) are query sites' anon faults ($anon) plus zero_wp (${o0#* })"

"$FT" advise "$db" --bloat-budget 10 -o "$T/kv.sites" --format json > "$T/adv.json" 2> "$T/err"
ok $? "advise -o of the whole trace: $(grep -vc '^#' "$T/kv.sites") lines, $(grep -vc '^[0#]' "$T/kv.sites") sites above order 0"
"$FT" replay -q "$db" --policy order0 --policy "persite:$T/kv.sites" > /dev/null 2> "$T/err" &&
	"$FT" compare "$db" --by site --format json > "$T/asites.json" &&
	"$FT" compare "$db" --format json > "$T/atotal.json"
ok $(python3 "$TOP/tests/cli/advise-match.py" "$T/adv.json" "$T/asites.json" "$T/atotal.json" \
	> "$T/match" 2>&1; echo $?) \
	"the advice replayed: compare --by site shows every site's faults and bloat as advise predicted ($(cat "$T/match"))"
done_testing
