#!/bin/sh
# cold-clock.sh - the cold-fault gap follows the trace's clock (replay.h rp_cold_gap()): 60 us
# on a clock of ns (TCG's, or a trace that names none), 80,000 instructions on icount's. The
# REAL x86_64 pf-loop fixture replayed under order0 with trace.clock unset, tcg and icount;
# the faults whose gap from their process's previous fault is in [60,000, 80,000) are
# counted here apart, in Python, from `query faults`: the icount replay has that many fewer
# cold faults.
. "$(dirname "$0")/../test-lib.sh"

plan 5
"$FT" ingest -q -o "$T/none.db" "$TOP/tests/data/x86_64-pf-loop-order0"
for c in tcg icount; do
	cp "$T/none.db" "$T/$c.db"
	sqlite3 "$T/$c.db" "UPDATE trace SET clock = '$c'"
done
# cold DB: cold_faults of its order0 replay
cold() {
	"$FT" replay "$1" -P order0 -n -q --format json |
		sed -n 's/.*"cold_faults":\([0-9]*\).*/\1/p'
}
none=$(cold "$T/none.db")
tcg=$(cold "$T/tcg.db")
icount=$(cold "$T/icount.db")
check "the replay counts cold faults ($none)" test "${none:-0}" -gt 0
check "a trace of no clock has TCG's gap" test "$none" = "$tcg"
"$FT" query "$T/none.db" faults --format csv > "$T/faults.csv"
between=$(python3 - "$T/faults.csv" <<'PY'
import csv, sys
last, n = {}, 0
for r in csv.DictReader(open(sys.argv[1])):
    p, ts, lat = r['proc_id'], int(r['ts']), int(r['latency_ns'])
    if p in last and ts >= lat and ts - lat >= last[p] and 60000 <= ts - lat - last[p] < 80000:
        n += 1
    last[p] = ts
print(n)
PY
)
check "the recording has faults 60,000-80,000 after their previous one ($between)" \
	test "${between:-0}" -gt 0
check "icount's replay: that many fewer cold faults ($tcg - $between = $icount)" \
	test "$((tcg - between))" = "$icount"
cp "$T/none.db" "$T/kvm.db"
sqlite3 "$T/kvm.db" "UPDATE trace SET clock = 'kvm'"
check "kvm's clock is one of ns: TCG's gap" test "$(cold "$T/kvm.db")" = "$tcg"
