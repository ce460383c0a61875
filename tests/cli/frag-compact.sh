#!/bin/sh
# frag-compact.sh - the buddyinfo model's compaction (docs/policies.md, "Compaction")
# against a real fragmented guest: tests/data-frag/x86_64-anon-touch-frag-mcpage2, the
# x86_64 mcpage:2 guest replay of anon-touch 64M after --fragment order:1,pct:50,seed:7
# (docs/latency.md). Its kernel compacted for the 16K allocations the fragmented memory
# could not give and failed 126 of them: one failed compaction run, then 6.1's deferral
# (defer_compaction(): 1 + 2 + 4 + 8 + 16 + 32 + 63 = 126 attempts fail, compaction restarts
# and the rest succeed). The model, whose pool is the LRU pages of vmstat.before, must
# come within that one deferral episode of the guest's count, where without the pool
# (vmstat.before removed) it fails 3308 (the count docs/latency.md had before it); orders
# above 3 never compact, so mcpage:4 over the same trace does not depend on the pool.
. "$(dirname "$0")/../test-lib.sh"

plan 11
FIX="$TOP/tests/data-frag/x86_64-anon-touch-frag-mcpage2"
check "fixture is a fragmented mcpage:2 trace" \
	sh -c "grep -qx 'order:1,pct:50,seed:7' '$FIX/header/fragment' &&
	       grep -qx 'mcpage:2' '$FIX/header/policy'"

"$FT" ingest -q -o "$T/f.db" "$FIX"
ok $? "fixture ingests"
rm -rf "$T/np"
cp -r "$FIX" "$T/np" && rm "$T/np/header/vmstat.before" && "$FT" ingest -q -o "$T/np.db" "$T/np"
ok $? "the fixture without vmstat.before ingests"

# vmstat.before/after NAME: the counter's value
vm() { awk -v k="$2" '$1 == k { print $2 }' "$FIX/header/vmstat.$1"; }
delta() { echo $(($(vm after "$1") - $(vm before "$1"))); }

# the guest's count, from its fault records, and from the kernel's own counters
# query faults columns: 6 order, 9 fallback
"$FT" query "$T/f.db" faults --format csv > "$T/faults.csv"
guest=$(awk -F, 'NR > 1 && $9 == "alloc_failed"' "$T/faults.csv" | wc -l)
got16=$(awk -F, 'NR > 1 && $6 == 2' "$T/faults.csv" | wc -l)
check "the guest's 16K allocations failed 126 times (fault records: $guest)" test "$guest" = 126
check "the kernel counted them: anon_folio_alloc_failed +126, compact_fail +126 of 151 stalls" \
	test "$(delta anon_folio_alloc_failed) $(delta compact_fail) $(delta compact_stall)" = \
	"126 126 151"

# sim DB POLICY: the model's alloc_failed fallbacks under POLICY, engine and oracle agreeing
sim() {
	"$FT" replay "$1" --policy "$2" --frag buddyinfo --dry-run -q --check-oracle \
		--format json 2> "$T/err" | python3 -c '
import json, sys
pol = sys.argv[1]
print([r for r in json.load(sys.stdin)["runs"] if r["policy"] == pol][0]["metrics"]
      ["fallback_alloc_failed"])' "$2"
}
with=$(sim "$T/f.db" mcpage:2)
check "mcpage:2 with the pool: engine and oracle agree ($with)" test -n "$with"
without=$(sim "$T/np.db" mcpage:2)
check "mcpage:2 without the pool: engine and oracle agree ($without)" test -n "$without"
diag "alloc_failed fallbacks under mcpage:2: guest $guest, model $with (without the pool $without)"
check "the model is within one deferral episode (126) of the guest's count" \
	test "${with:-9999}" -le $((guest + 126)) -a "${with:-9999}" -ge $((guest - 126))
check "without the pool the model fails the 3308 it did before compaction" \
	test "$without" = 3308
m4=$(sim "$T/f.db" mcpage:4)
m4np=$(sim "$T/np.db" mcpage:4)
check "mcpage:4 does not compact: the same with and without the pool ($m4, $m4np)" \
	test -n "$m4" -a "$m4" = "$m4np"
pool=$(($(vm before nr_inactive_anon) + $(vm before nr_active_anon) + \
	$(vm before nr_inactive_file) + $(vm before nr_active_file)))
diag "pool: $pool LRU pages in vmstat.before"
check "the pool could hold every 16K block the guest got (4 x $got16 <= $pool)" \
	test "$got16" -gt 3900 -a $((4 * got16)) -le "$pool"
done_testing
