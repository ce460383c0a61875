#!/bin/sh
# hostile-calibrate.sh - calibrate's inputs (issue 23 items 7 and 11): a trace is read once
# however many databases hold it (`calibrate cal.db cal.db`, a copy in a second
# database), a partial copy beside a complete one is left out unless --with-partial; a
# cost_model row with a non-finite or absurd coefficient is refused by replay with one line
# naming it (no run stored, the database byte-identical); the man page's EXAMPLE commands
# all exit 0.
# Fixtures: REAL tests/data/x86_64-anon-touch-order0, -mcpage2, x86_64-pf-loop-order0.
. "$(dirname "$0")/../test-lib.sh"
. "$(dirname "$0")/hostile-lib.inc"

plan 27
D=$TOP/tests/data
cal=$T/cal.db
for p in order0 mcpage2; do
	"$FT" ingest -q -o "$cal" "$D/x86_64-anon-touch-$p" || break
done
ok $? "two traces in cal.db"
"$FT" calibrate -f csv "$cal" > "$T/one" 2> "$T/err"
ok $? "calibrate cal.db"
diag "$(tail -n 1 "$T/one")"
# the fitted columns and samples, traces of the one model
row() { tail -n 1 "$1" | cut -d, -f4-; }
"$FT" calibrate -f csv "$cal" "$cal" > "$T/twice" 2> "$T/err"
ok $? "calibrate cal.db cal.db exits 0"
check "calibrate cal.db cal.db: the same model as cal.db alone (2 traces, not 4)" \
	test "$(row "$T/twice")" = "$(row "$T/one")"
cp "$cal" "$T/copy.db"
"$FT" calibrate -f csv -o "$T/copy.db" "$cal" "$T/copy.db" > "$T/copy" 2> "$T/err"
check "a copy of every trace in a second database: read once" \
	test "$(row "$T/copy")" = "$(row "$T/one")"
check "  ... and the traces column says 2" test "$(row "$T/copy" | awk -F, '{ print $NF }')" = 2

# a partial copy of the order0 trace (same UUID) beside the complete one
cp -r "$D/x86_64-anon-touch-order0" "$T/pc"
echo 1 > "$T/pc/header/partial"
"$FT" ingest -q -P -o "$T/partial.db" "$T/pc"
check "the partial copy is stored marked partial" test \
	"$("$FT" query "$T/partial.db" --format csv sql 'SELECT partial FROM trace' | tail -n 1)" = 1
cp "$cal" "$T/cal.orig"
"$FT" calibrate -f csv -o "$T/partial.db" "$cal" "$T/partial.db" > "$T/p" 2> "$T/err"
ok $? "calibrate with a partial copy beside the complete trace exits 0"
check "  ... the partial copy is left out: the model of cal.db alone" \
	test "$(row "$T/p")" = "$(row "$T/one")"
"$FT" calibrate -f csv --with-partial -o "$T/partial.db" "$cal" "$T/partial.db" > "$T/wp" 2> "$T/err"
ok $? "calibrate --with-partial exits 0"
check "  ... reads it too: 3 traces" test "$(row "$T/wp" | awk -F, '{ print $NF }')" = 3
cmp -s "$cal" "$T/cal.orig"
ok $? "cal.db (read, not the output) byte-identical"

# a damaged cost_model row: each coefficient refused by name
ho=$T/ho.db
"$FT" ingest -q -o "$ho" "$D/x86_64-pf-loop-order0" && "$FT" calibrate -o "$ho" "$cal" > /dev/null
ok $? "a held-out database with a model"
sqlite3 "$ho" "UPDATE cost_model SET new_ns = 1e999"
refused "replay with new_ns inf" 1 "cost_model row x86_64 .*: new_ns is inf, not a cost within" \
	"$ho" "$FT" replay "$ho" -P order0
sqlite3 "$ho" "UPDATE cost_model SET new_ns = 2000, cow_ns = -1e300"
refused "replay with cow_ns -1e300" 1 "cow_ns is -1e\+300, not a cost within" \
	"$ho" "$FT" replay "$ho" -P order0

# the man page's EXAMPLE, from the top of a tree (tests/data linked)
mkdir "$T/ex"
ln -s "$TOP/tests" "$T/ex/tests"
sed -n '/^\.SH EXAMPLE/,/^\.SH/p' "$TOP/docs/man/foliotrace-calibrate.1" |
	sed -n '/^\.nf/,/^\.fi/p' | grep '^foliotrace ' > "$T/ex.cmds"
check "the EXAMPLE has 5 commands" test "$(wc -l < "$T/ex.cmds")" = 5
n=0
while read -r cmd; do
	n=$((n + 1))
	( cd "$T/ex" && eval "\"\$FT\" ${cmd#foliotrace }" > /dev/null 2> "$T/ex.err" )
	ok $? "EXAMPLE command $n exits 0: $cmd"
done < "$T/ex.cmds"
done_testing
