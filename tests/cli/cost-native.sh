#!/bin/sh
# cost-native.sh - `replay --cost-model native [--model-from DB]` on the REAL x86_64 pf-loop
# fixture: a host model (accel and clock native, as `calibrate --host` stores it; written
# here with sqlite3, since the real calibration writes the host's knobs) prices the guest
# trace's faults, from the replayed database or from another, the one fitted last when
# there are several kernels; the default still ignores it; no host model, or
# --model-from alone, are refused. Expected times are computed here from the replay's
# counters and the row's coefficients (docs/cost-model.md's formula).
. "$(dirname "$0")/../test-lib.sh"

plan 12
D=$TOP/tests/data
"$FT" ingest -q -o "$T/r.db" "$D/x86_64-pf-loop-order0"
"$FT" ingest -q -o "$T/host.db" "$D/x86_64-anon-touch-order0"
cp "$T/r.db" "$T/plain.db"
# row DB KERNEL NEW BYTE FITTED_AT
row() {
	sqlite3 "$1" "INSERT INTO cost_model (arch, kernel, accel, clock, new_ns, byte_ns,
		samples, traces, fitted_at, tool_version) VALUES ('x86_64', '$2', 'native',
		'native', $3, $4, 40, 0, '$5', 'test')"
}
row "$T/host.db" 6.17.0-old 9999 9 2026-11-01T00:00:00Z
row "$T/host.db" 6.18.44-test 1000 0.25 2026-12-01T00:00:00Z
row "$T/r.db" 6.18.44-test 1000 0.25 2026-12-01T00:00:00Z
# field JSON POLICY NAME: a metric of one policy's run
field() {
	awk -v RS='"policy":"' -v p="$2" -v f="$3" 'NR > 1 && substr($0, 1, length(p) + 1) == p "\"" {
		match($0, "\"" f "\":[0-9]+"); print substr($0, RSTART + length(f) + 3, RLENGTH - length(f) - 3) }' "$1"
}
# expect JSON POLICY: the model's time of the run's counters, new 1000 ns, byte 0.25 ns;
# zero maps, zero_wp and COW (no fitted cost) priced as a new 4K folio, 1000 + 0.25 * 4096
expect() {
	awk -v f="$(field "$1" "$2" faults)" -v z="$(field "$1" "$2" zero_page_maps)" \
		-v hz="$(field "$1" "$2" huge_zero_maps)" -v w="$(field "$1" "$2" zero_wp_faults)" \
		-v c="$(field "$1" "$2" cow_faults)" -v b="$(field "$1" "$2" zeroed_bytes)" 'BEGIN {
		n4 = 1000 + 0.25 * 4096; nz = z + hz
		printf "%.0f\n", 1000 * (f - nz - w) + 0.25 * (b - 4096 * w) + n4 * (nz + w + c) }'
}
P="-P mthp:16K -P mthp:64K -n -q --format json"

# shellcheck disable=SC2086 # the options are split on purpose
"$FT" replay "$T/plain.db" $P --cost-model native --model-from "$T/host.db" > "$T/a.json"
ok $? "--cost-model native --model-from: exit 0"
for pol in order0 mthp:16K mthp:64K; do
	check "--model-from: $pol priced by the latest native row" test \
		"$(field "$T/a.json" "$pol" fault_time_ns)" = "$(expect "$T/a.json" "$pol")"
done
check "16K is predicted cheaper than 4K" test \
	"$(field "$T/a.json" mthp:16K fault_time_ns)" -lt "$(field "$T/a.json" order0 fault_time_ns)"
# shellcheck disable=SC2086
"$FT" replay "$T/r.db" $P --cost-model native > "$T/b.json"
ok $? "--cost-model native from the replayed database: exit 0"
check "same prediction from the replayed database's own row" test \
	"$(field "$T/b.json" mthp:64K fault_time_ns)" = "$(field "$T/a.json" mthp:64K fault_time_ns)"
# shellcheck disable=SC2086
"$FT" replay "$T/r.db" $P > "$T/c.json"
check "default (--cost-model trace): the native row is not the trace's model" test \
	"$(field "$T/c.json" order0 fault_time_ns)" = 0
# shellcheck disable=SC2086
"$FT" replay "$T/plain.db" $P --cost-model native > "$T/out" 2> "$T/err"
check "no host model: exit 1, one line naming the arch" sh -c \
	'test $1 = 1 && test "$(wc -l < "$2")" = 1 && grep -q "no host model of x86_64" "$2"' sh \
	$? "$T/err"
"$FT" replay "$T/plain.db" -P mthp:16K -n --model-from "$T/host.db" > /dev/null 2>&1
check "--model-from without --cost-model native: usage error" test $? = 2
"$FT" replay "$T/plain.db" -P mthp:16K -n --cost-model host > /dev/null 2>&1
check "--cost-model host (not a model): usage error" test $? = 2
"$FT" replay "$T/plain.db" -P mthp:16K -n --cost-model native --model-from "$T/none.db" \
	> /dev/null 2> "$T/err"
check "--model-from a missing database: exit 1, one line" sh -c \
	'test $1 = 1 && test "$(wc -l < "$2")" = 1' sh $? "$T/err"
done_testing
