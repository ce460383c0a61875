#!/bin/sh
# hostile-json.sh - every --format json output parses with python3's json.loads whatever the
# trace holds (issue 12 item 12): header text that is not UTF-8 (each bad byte becomes
# \ufffd), reals that are not finite (null); and a fault latency of 2^64-1 (item 13)
# saturates at 2^63-1 in faults and latency instead of showing -1, with an exact mean.
# Fixture: SYNTHETIC tests/data/synthetic-anon-tiny; tests/cli/set-latency.c (built by make)
# damages it.
. "$(dirname "$0")/../test-lib.sh"
. "$(dirname "$0")/trace-lib.inc"

plan 16

SETLAT=$BUILD/testprogs/set-latency	# built by make from tests/cli/set-latency.c
check "set-latency is built (make)" test -x "$SETLAT"

# a trace whose workload header is not UTF-8: valid é, lone bytes, an overlong "/", a
# surrogate, a code point above U+10FFFF, a truncated sequence
cp -r "$TINY" "$T/u"
printf 'caf\303\251 \377\376 \300\257 \355\240\200 \364\220\200\200 \342\202 ok' > "$T/u/header/workload"
DB="$T/u.db"
"$FT" ingest -q -o "$DB" "$T/u" && "$FT" replay "$DB" -P order0 -P mcpage:2 > /dev/null
ok $? "ingest and replay a trace with a non-UTF-8 workload"

# parses CASE CMD...: stdout of CMD is one JSON document (python3 json.loads of the bytes)
parses() {
	_c=$1; shift
	timeout 60 "$@" > "$T/out.json" 2> "$T/err"
	_s=$?
	python3 -c 'import json, sys; json.loads(open(sys.argv[1], "rb").read())' "$T/out.json" \
		2> "$T/perr" || _s=1
	ok $_s "$_c: exit 0, valid JSON"
	[ $_s = 0 ] || { head -c 300 "$T/err" "$T/perr" | sed 's/^/# /'; }
}
for v in summary procs vmas faults orders latency; do
	parses "query $v" "$FT" query "$DB" --format json $v
done
SQL="SELECT workload, 1e999 AS inf, -1e999 AS ninf, CAST(x'ff41c0' AS TEXT) AS bytes,
	0.5 AS half FROM trace"
parses "query sql" "$FT" query "$DB" --format json sql "$SQL"
parses "replay --dry-run" "$FT" replay "$DB" -P mcpage:2 --dry-run --format json
parses "compare" "$FT" compare "$DB" --format json
"$FT" query "$DB" --format json sql "$SQL" > "$T/sql.json"
python3 - "$T/sql.json" <<'PY'
import json, sys
d = json.loads(open(sys.argv[1], "rb").read())[0]
want = "caf\u00e9 \ufffd\ufffd \ufffd\ufffd \ufffd\ufffd\ufffd \ufffd\ufffd\ufffd\ufffd \ufffd\ufffd ok"
assert d["workload"] == want, repr(d["workload"])
assert d["inf"] is None and d["ninf"] is None, d
assert d["bytes"] == "\ufffdA\ufffd", repr(d["bytes"])
assert d["half"] == 0.5
PY
ok $? "bad bytes are \\ufffd one for one, valid UTF-8 kept, inf and -inf are null"
"$FT" query "$DB" --format json summary | python3 -c 'import json, sys
d = json.loads(sys.stdin.buffer.read())
assert d["workload"].startswith("caf\u00e9 \ufffd\ufffd"), d["workload"]'
ok $? "summary: the same workload string"

# latency 2^64-1 on the first fault; expected values computed here from the clean trace
L="$T/l.db"
"$FT" ingest -q -o "$L" "$TINY"
"$FT" query "$L" --format csv faults | tail -n +2 > "$T/clean.csv"
"$SETLAT" "$L" 1 18446744073709551615
ok $? "set the first fault's latency to 2^64-1"
"$FT" query "$L" --format json latency > "$T/lat.json"
ok $? "query latency: exit 0"
"$FT" query "$L" --format json faults --limit 1 > "$T/f1.json"
python3 - "$T/clean.csv" "$T/lat.json" "$T/f1.json" <<'PY'
import csv, json, sys
rows = list(csv.reader(open(sys.argv[1])))
first = rows[0]
order, zero = int(first[5]), int(first[7])
group = [int(r[9]) for r in rows if int(r[5]) == order and int(r[7]) == zero]
group[0] = 2**64 - 1
n = len(group)
mean = (sum(group) + n // 2) // n
sat = lambda v: min(v, 2**63 - 1)
lat = [g for g in json.loads(open(sys.argv[2]).read()) if g["order"] == order and g["zero_page"] == zero][0]
assert lat["faults"] == n, lat
assert lat["max_ns"] == 2**63 - 1 and lat["p99_ns"] == 2**63 - 1, lat
assert lat["mean_ns"] == sat(mean), (lat, mean)
assert all(lat[k] >= 0 for k in lat), lat
f1 = json.loads(open(sys.argv[3]).read())[0]
assert f1["latency_ns"] == 2**63 - 1, f1
PY
ok $? "latency: p99 and max saturate at 2^63-1, mean exact, nothing negative; faults shows 2^63-1"
done_testing
