#!/bin/sh
# sites-sysexit.sh - the syscall exit events of the `sites` channel (docs/events.md) and a
# side file of version 2 paired with them at ingest (docs/sites.md, "Attribution").
# Fixture: SYNTHETIC tests/data/synthetic-sysexit, made by
#   /usr/bin/python3 tests/data/make-synthetic.py tests/data/synthetic-sysexit 300 \
#	--allocs=fields --syscalls
# (LTTng's tid context as "_tid" in the CTF metadata, syscall_entry_X/syscall_exit_X of
# threads 200, 201 and 100). What babeltrace2's own text output shows of those events is
# the reference: the sys_exit rows must be its exits; a side file made from its entries
# (results "-") must store each call with the time and result of the thread's next exit
# of that call. Also: a version 2 file on a trace without exits, and a malformed one.
. "$(dirname "$0")/../test-lib.sh"

plan 12
FIX=$TOP/tests/data/synthetic-sysexit
command -v babeltrace2 > /dev/null
ok $? "babeltrace2 is installed (the reference reader)"
babeltrace2 --clock-cycles "$FIX/trace" | python3 -c '
import re, sys
for l in sys.stdin:
    m = re.match(r"\[(\d+)\].* syscall_(entry|exit)_(\w+): .*\{ tid = (\d+) \}, \{ (.*) \}$", l)
    if m:
        print(m.group(2), int(m.group(1)), m.group(4), m.group(3), m.group(5).replace(" ", ""))
' > "$T/bt.txt"
nexit=$(grep -c '^exit' "$T/bt.txt")
ok $([ "$nexit" -gt 5 ]; echo $?) "babeltrace2 shows $nexit syscall exits with their tid context"

db=$T/x.db
"$FT" ingest -q -o "$db" "$FIX"
ok $? "the fixture ingests"
"$FT" query "$db" --format csv sql "SELECT ts, tid, call, 'ret=' || ret FROM sys_exit
	ORDER BY ts" | tail -n +2 | tr ',' ' ' > "$T/rows.txt"
grep '^exit' "$T/bt.txt" | cut -d' ' -f2- > "$T/want.txt"
check "sys_exit: babeltrace2's exits, ts tid call ret" cmp "$T/want.txt" "$T/rows.txt"
"$FT" query "$db" --format csv sql "SELECT name, count FROM event_count WHERE name LIKE
	'syscall_entry_%' ORDER BY name" | tail -n +2 | tr ',' ' ' > "$T/n.txt"
grep '^entry' "$T/bt.txt" | awk '{ print "syscall_entry_" $4 }' | sort | uniq -c |
	awk '{ print $2, $1 }' > "$T/nwant.txt"
check "entry events: counted only" cmp "$T/nwant.txt" "$T/n.txt"

# a side file of version 2: the workload's (pid 200, threads 200 and 201) calls at their
# entry events' times, and one more mmap of 201 that never returns (no exit after it)
off=$("$FT" query "$db" --format csv sql \
	"SELECT value FROM trace_meta WHERE key = 'clock_offset_ns'" | tail -n 1)
dir=$T/run
cp -r "$FIX" "$dir"
python3 - "$T/bt.txt" "$off" "$dir/sites.txt" "$T/expect.txt" <<'EOF'
import sys
rows = [l.split() for l in open(sys.argv[1])]
off = int(sys.argv[2])
args = {'mmap': 'addr len prot flags fd offset', 'munmap': 'addr len',
        'mremap': 'addr old_len new_len flags new_addr', 'brk': 'brk',
        'madvise': 'start len_in behavior'}
side = ['V\t2\t1']
expect = []
last = 0
for what, ts, tid, call, payload in rows:
    ts, tid = int(ts), int(tid)
    last = max(last, ts)
    if what != 'entry' or tid not in (200, 201):
        continue
    f = dict(kv.split('=') for kv in payload.split(','))
    a = [int(f[k]) & 0xffffffffffffffff for k in args[call].split()] + [0] * 6
    side += ['\t'.join(['C', str(ts - off), '200', str(tid), call] +
                       ['%x' % x for x in a[:6]] + ['-', '1', 'ok']),
             'F\t401000\t/usr/bin/w\t1000\tcall_%s_%d\t10' % (call, tid)]
    # the rule: the first exit of the thread and call after the entry (no other entry of
    # the thread comes between in this fixture)
    ex = next(r for r in rows if r[0] == 'exit' and int(r[1]) > ts and int(r[2]) == tid
              and r[3] == call)
    expect.append('%s 200 %d %s %s' % (ex[1], tid, call, ex[4].split('=')[1]))
side += ['C\t%d\t200\t201\tmmap\t0\t1000\t3\t22\tffffffff\t0\t-\t1\tok' % (last + 1000 - off),
         'F\t402000\t/usr/bin/w\t2000\tnever_returns\t10', '']
open(sys.argv[3], 'w').write('\n'.join(side))
expect.sort(key=lambda x: int(x.split()[0]))
open(sys.argv[4], 'w').write('\n'.join(expect) + '\n')
EOF
"$FT" ingest -q -o "$T/s.db" "$dir"
ok $? "a run directory with a version 2 side file ingests"
"$FT" query "$T/s.db" --format csv sql "SELECT ts, pid, tid, call, result FROM site_call
	WHERE call <> 'none' ORDER BY ts" | tail -n +2 | tr ',' ' ' > "$T/got.txt"
check "each call at its exit's time with its result, the call that never returned dropped" \
	cmp "$T/expect.txt" "$T/got.txt"
set -- $("$FT" query "$T/s.db" --format csv sql "SELECT (SELECT sum(faults) FROM site_call
	WHERE pid = 200), (SELECT sum(anon_faults) FROM process WHERE pid = 200)" | tail -n 1 |
	tr ',' ' ')
ok $([ "$1" = "$2" ] && [ "$1" -gt 0 ]; echo $?) "pid 200's calls and [no call] hold its $2 faults ($1)"
# the 16M mmap of thread 200 owns the faults of pid 200 in its range after it returned
set -- $("$FT" query "$T/s.db" --format csv sql "SELECT ts, result, result + arg1, faults
	FROM site_call WHERE call = 'mmap' AND tid = 200" | tail -n 1 | tr ',' ' ')
"$FT" query "$T/s.db" --format json --pid 200 faults > "$T/f.json"
n=$(python3 -c '
import json, sys
ts, lo, hi = (int(x) for x in sys.argv[2:5])
print(sum(1 for e in json.load(open(sys.argv[1]))
          if lo <= int(e["address"], 16) < hi and e["ts"] > ts))' "$T/f.json" "$1" "$2" "$3")
ok $([ "$n" = "$4" ] && [ "$n" -gt 0 ]; echo $?) \
	"the 16M mmap: the $n faults in its range after its exit ($4)"

# a version 2 side file with calls, a trace without syscall exits: nothing stored
cp -r "$TOP/tests/data/synthetic-anon-tiny" "$T/noexit"
cp "$dir/sites.txt" "$T/noexit/"
"$FT" ingest -q -o "$T/n.db" "$T/noexit" 2> "$T/err"
ok $([ $? = 1 ] && grep -q "need the trace's syscall exit events (sites channel)" "$T/err" &&
	[ ! -e "$T/n.db" ]; echo $?) "no exits in the trace: exit 1, named, no database left"
"$FT" ingest -q -o "$T/keep.db" "$FIX"
"$FT" ingest -q -o "$T/keep.db" "$T/noexit" 2> "$T/err"
ok $([ $? = 1 ] && [ "$("$FT" query "$T/keep.db" --format csv sql \
	"SELECT count(*) FROM trace" | tail -n 1)" = 1 ]; echo $?) \
	"into an existing database: exit 1, the trace removed again ($(head -c 80 "$T/err"))"
# a version 2 side file with a result inline is malformed, found before anything is stored
sed 's/\t-\t1\tok$/\t0\t1\tok/' "$dir/sites.txt" > "$T/noexit/sites.txt"
sum=$(cksum < "$T/keep.db")
"$FT" ingest -q -o "$T/keep.db" "$T/noexit" 2> "$T/err"
ok $([ $? = 1 ] && grep -q 'malformed call line 2' "$T/err" &&
	[ "$(cksum < "$T/keep.db")" = "$sum" ]; echo $?) \
	"a version 2 call with a result: exit 1, named, the database byte-identical"
done_testing
