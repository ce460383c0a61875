#!/bin/sh
# hostile-persite.sh - advise -o and persite:FILE on odd site names (issue 23 items 8, 11):
# on a SYNTHETIC trace whose sites are named 4095 and 5000 bytes long, empty, ending in
# \r, with blanks at either end and tabs inside, "*", and holding ESC, advise -o writes a
# file persite reads back: replaying it gives the faults advise predicted for its advice;
# advise's table and CSV show no raw ESC; a NUL byte in a persite file has its own one-line
# message; --fragment with a key given twice is a usage error; a temporary that a killed
# writer left (PATH.tmp-PID-XXXXXX, its PID dead) is removed by the next write of PATH,
# one of a live writer is not, and advise -o killed by SIGKILL over and over leaves none.
. "$(dirname "$0")/../test-lib.sh"
. "$(dirname "$0")/trace-lib.inc"
. "$(dirname "$0")/hostile-lib.inc"

plan 21
SD=$BUILD/testprogs/synth-db
DB=$T/s.db
"$SD" "$DB" kbuild-like 3 2000 > /dev/null
ev=$("$FT" query "$DB" --format csv sql "SELECT sum(nr_events) FROM event_chunk" | tail -n 1)
# 9 sites, 90 calls (call i at site i % 9), 450 touch runs
sqlite3 "$DB" <<SQL
CREATE TEMP TABLE n(i INTEGER PRIMARY KEY, name TEXT);
INSERT INTO n VALUES (0, printf('%.4095c', 'a')), (1, printf('%.5000c', 'b')), (2, ''),
	(3, 'cr' || char(13)), (4, ' blank ends '), (5, 'tab' || char(9) || 'in'), (6, '*'),
	(7, 'esc' || char(27) || '[2J'), (8, 'plain');
INSERT INTO site_call(call_id, trace_id, pid, call, site, site_module, faults, touched_pages)
 WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 90)
 SELECT i, 1, 1, 'mmap', (SELECT name FROM n WHERE n.i = c.i % 9), NULL, 1, 1 FROM c;
INSERT INTO site_touch(trace_id, ev_first, ev_end, call_id)
 WITH RECURSIVE r(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM r WHERE i < 449)
 SELECT 1, i * ($ev / 450), (i + 1) * ($ev / 450), (i % 90) + 1 FROM r;
SQL
ok $? "a trace with 9 odd site names, 90 calls, 450 touch runs"

timeout 120 "$FT" advise "$DB" -b 50 -o "$T/adv" -f csv > "$T/adv.csv" 2> "$T/err"
ok $? "advise -o FILE exits 0"
check "  ... FILE has a line per site and '0 *'" test "$(grep -vc '^#' "$T/adv")" = 10
check "  ... the empty, \\r, blank-ended, tab and '*' names are quoted" \
	test "$(grep -c '^[0-8] "' "$T/adv")" = 6
timeout 120 "$FT" replay "$DB" -P "persite:$T/adv" -f csv > "$T/rep.csv" 2> "$T/err"
ok $? "replay -P persite:FILE reads it back: exit 0"
want=$(awk -F, '$1 == "advice" { print $3 }' "$T/adv.csv")
got=$(awk -F, '$1 == "faults" { print $2 }' "$T/rep.csv")
check "  ... its faults are advise's prediction for the advice ($want)" test -n "$want" -a "$got" = "$want"
advise_tab=$("$FT" advise "$DB" -b 50 2>&1)
check "advise's table shows no raw ESC" test "$(printf '%s' "$advise_tab" | tr -d -c '\033' | wc -c)" = 0
check "advise's CSV shows no raw ESC, the name escaped" grep -q 'esc\\x1b\[2J' "$T/adv.csv"

printf '4 main\n\0003 x\n' > "$T/nul"
refused "persite file with a NUL" 2 "nul line 2: a NUL byte at column 1: a persite file is text" \
	"$DB" "$FT" replay "$DB" -P "persite:$T/nul"

"$FT" record -o "$T/r.db" --fragment order:3,order:9 -- hello > /dev/null 2> "$T/err"
ok $([ $? = 2 ] && head -n 1 "$T/err" | grep -q "bad --fragment 'order:3,order:9': order, pct and seed may each be given once"; echo $?) \
	"record --fragment order:3,order:9: a usage error naming the repeat"
[ ! -e "$T/r.db" ] && [ ! -e "$T/r.db.ctf" ]
ok $? "  ... nothing created"

# temporaries a killed writer left: removed by the next writer of the same path
mkdir "$T/o"
sh -c 'exit 0' & dead=$!
wait $dead
echo stale > "$T/o/adv.txt.tmp-$dead-AbC123"
echo live > "$T/o/adv.txt.tmp-$$-XyZ789"
ln -s "$T/o/victim" "$T/o/adv.txt.tmp-$dead-LnK456"
echo precious > "$T/o/victim"
"$FT" advise "$DB" -b 50 -o "$T/o/adv.txt" > /dev/null 2> "$T/err"
ok $? "advise -o beside stale temporaries: exit 0"
[ ! -e "$T/o/adv.txt.tmp-$dead-AbC123" ]
ok $? "  ... the temporary of a dead writer is removed"
[ -f "$T/o/adv.txt.tmp-$$-XyZ789" ]
ok $? "  ... the temporary of a live writer is kept"
[ -L "$T/o/adv.txt.tmp-$dead-LnK456" ] && [ "$(cat "$T/o/victim")" = precious ]
ok $? "  ... a symlink of that name is left alone, its target untouched"
rm -f "$T/o/adv.txt.tmp-$$-XyZ789" "$T/o/adv.txt.tmp-$dead-LnK456"

# advise -o killed by SIGKILL at random points, 20 times, then once to the end
i=0
while [ $i -lt 20 ]; do
	"$FT" advise "$DB" -b 50 -o "$T/o/k.txt" > /dev/null 2>&1 &
	p=$!
	sleep 0.0$((i % 10))
	kill -9 $p 2> /dev/null
	wait $p 2> /dev/null
	i=$((i + 1))
done
"$FT" advise "$DB" -b 50 -o "$T/o/k.txt" > /dev/null 2> "$T/err"
ok $? "advise -o after 20 SIGKILLed runs: exit 0"
check "  ... no temporary left in the directory" test \
	"$(ls -a "$T/o" | grep -c '\.tmp-')" = 0
check "  ... the file is whole" grep -q '^0 \*$' "$T/o/k.txt"
done_testing
