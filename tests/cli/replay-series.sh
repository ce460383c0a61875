#!/bin/sh
# replay-series.sh - a run's series (replay_run.series, replay/series.h) against the recorded
# trace read by babeltrace2: under order0, on a trace recorded under order0, every
# anon_fault and anon_zero_wp event is one simulated fault, so the faults of each of the
# 240 intervals must equal those events counted per interval of the anonymous events'
# span, here from babeltrace2's own timestamps (clock cycles: ns on the guests' 1 GHz
# trace clock). Also: the intervals tile the span, the faults sum to the metric, the
# largest rss_max is peak_rss_bytes, the last rss is final_rss_bytes.
. "$(dirname "$0")/../test-lib.sh"

plan 6
for f in malloc-churn anon-touch fork-cow; do
	d="$TOP/tests/data/x86_64-$f-order0"
	db="$T/$f.db"
	"$FT" ingest -q -o "$db" "$d" && "$FT" replay "$db" -P order0 -P mcpage:4 > /dev/null &&
		babeltrace2 --clock-cycles "$d" > "$T/$f.txt" 2> /dev/null
	ok $? "$f: ingested, replayed under order0 and mcpage:4, read by babeltrace2"
	python3 - "$db" "$T/$f.txt" > "$T/py.out" 2>&1 <<'PY'
import re, sqlite3, struct, sys
db = sqlite3.connect(sys.argv[1])
ts, touches = [], []
for line in open(sys.argv[2]):
    m = re.match(r"\[(\d+)\] \S+ \S+ (anon_\w+):", line)
    if not m:
        continue
    t = int(m.group(1))
    ts.append(t)
    if m.group(2) in ("anon_fault", "anon_zero_wp"):
        touches.append(t)
first, last = min(ts), max(ts)
width = -(-(last - first + 1) // 240)
want = [0] * 240
for t in touches:
    want[(t - first) // width] += 1
for run_id, policy in db.execute("SELECT run_id, policy FROM replay_run ORDER BY run_id"):
    (blob,) = db.execute("SELECT series FROM replay_run WHERE run_id = ?", (run_id,)).fetchone()
    assert len(blob) == 240 * 32, (policy, len(blob))
    rows = [(i,) + struct.unpack_from("<4q", blob, 32 * i) for i in range(240)]
    metric = dict(db.execute("SELECT name, value FROM replay_metric WHERE run_id = ? AND "
                             "proc_id IS NULL", (run_id,)).fetchall())
    assert [r[0] for r in rows] == list(range(240)), policy
    assert [r[1] for r in rows] == [width * (i + 1) for i in range(240)], policy
    assert sum(r[4] for r in rows) == metric["faults"], policy
    assert max(r[3] for r in rows) == metric["peak_rss_bytes"], policy
    assert rows[-1][2] == metric["final_rss_bytes"], policy
    assert all(r[3] >= r[2] for r in rows), policy
    if policy == "order0":
        got = [r[4] for r in rows]
        bad = [(i, got[i], want[i]) for i in range(240) if got[i] != want[i]]
        assert not bad and sum(want) == metric["faults"], bad[:5]
print("touches", len(touches), "width ns", width)
PY
	ok $? "$f: order0's faults per interval equal babeltrace2's anon_fault + anon_zero_wp per interval; sums, peak, final"
	sed 's/^/# /' "$T/py.out" | tail -3
done
done_testing
