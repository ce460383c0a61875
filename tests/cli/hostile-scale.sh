#!/bin/sh
# hostile-scale.sh - site handling that was quadratic (issue 23 items 5, 6): on a
# SYNTHETIC kbuild-like trace (build/testprogs/synth-db) given 20000 sites and 100000
# site_touch runs, replay finishes well inside the timeout (the loader's join scanned the
# sites per touch run: 44 s at 2k sites, over 300 s at 20k); persite with a file of 40000
# sites (the file's duplicate check and the lookup per slot scanned the file's names);
# advise on a 1k-fault trace with 10k calls over 51 sites (did not finish in 240 s). The
# per-site results are checked, not only the time: every run's faults go to its site.
# bench/sites-scale.sh measures the same steps at scale (docs/benchmarks.md).
. "$(dirname "$0")/../test-lib.sh"
. "$(dirname "$0")/synth-sites.inc"

plan 10
SD=$BUILD/testprogs/synth-db
TO=${HOSTILE_TIMEOUT:-60}

"$SD" "$T/k.db" kbuild-like 3 500000 > /dev/null
ok $? "synth-db: a kbuild-like trace of 500000 faults"
synth_sites "$T/k.db" 20000 20000 100000
ok $? "20000 sites, 100000 touch runs over its events"

timeout "$TO" "$FT" replay "$T/k.db" -P order0 > "$T/out" 2> "$T/err"
ok $? "replay -P order0 with 20000 sites: exit 0 within ${TO}s"
n=$("$FT" query "$T/k.db" --format csv sql "SELECT count(*) FROM replay_site s JOIN replay_run
	r USING (run_id) WHERE r.policy = 'order0' AND s.site LIKE 'site_%'" | tail -n 1)
check "  ... replay_site has a row for every site that took a fault ($n)" \
	test "$n" -gt 15000
f=$("$FT" query "$T/k.db" --format csv sql "SELECT sum(s.faults) = (SELECT m.value FROM
	replay_metric m JOIN replay_run r USING (run_id) WHERE r.policy = 'order0' AND
	m.name = 'faults' AND m.proc_id IS NULL) FROM replay_site s JOIN replay_run r USING (run_id) WHERE
	r.policy = 'order0'" | tail -n 1)
check "  ... the sites' faults sum to the run's" test "$f" = 1

awk 'BEGIN { for (i = 0; i < 40000; i++) printf "%d site_%07d\n", i % 5, i; print "0 *" }' \
	> "$T/F"
timeout "$TO" "$FT" replay "$T/k.db" -P "persite:$T/F" > /dev/null 2> "$T/err"
ok $? "replay -P persite:FILE of 40000 sites: exit 0 within ${TO}s"
printf '4 site_0000003\n3 site_0000003\n' > "$T/dup"
timeout "$TO" "$FT" replay "$T/k.db" -P "persite:$T/dup" > /dev/null 2> "$T/err"
ok $([ $? = 2 ] && grep -q "dup line 2: site 'site_0000003' given twice" "$T/err" &&
	[ "$(wc -l < "$T/err")" = 1 ]; echo $?) "  ... a site given twice: exit 2, the later line"

"$SD" "$T/s.db" kbuild-like 3 1000 > /dev/null
synth_sites "$T/s.db" 51 10000 500
ok $? "a 1k-fault trace with 10000 calls over 51 sites"
timeout "$TO" "$FT" advise "$T/s.db" -b 10 -f csv > "$T/adv" 2> "$T/err"
ok $? "advise -b 10: exit 0 within ${TO}s"
check "  ... one advice row per site" test "$(grep -c '^site_' "$T/adv")" = 51
done_testing
