#!/bin/sh
# harness.sh - tests/run.sh enforces the TAP plan: each file in tests/harness/ (shell *.t
# and the C programs built from tests/harness/*.c) runs through run.sh, whose verdict
# (PASS/FAIL) and report must match the file's `expect:` line.
. "$(dirname "$0")/../test-lib.sh"

cases=$(ls "$TOP"/tests/harness/*.t "$TOP"/tests/harness/*.c)
plan $(( 2 * $(echo "$cases" | wc -l) ))
for src in $cases; do
	name=$(basename "$src")
	case "$src" in
	*.c) f="$BUILD/harness/${name%.c}" ;;
	*) f=$src ;;
	esac
	want=$(sed -n 's/^.*expect: \([A-Z]*\).*/\1/p' "$src")
	text=$(sed -n 's/^.*expect: [A-Z]* *//p' "$src")
	FT_TESTS= FT_TEST_LOGS="$T/logs" sh "$TOP/tests/run.sh" "$f" > "$T/out" 2>&1
	rc=$?
	got=$(head -1 "$T/out" | cut -d' ' -f1)
	if [ "$want" = PASS ]; then wrc=0; else wrc=1; fi
	ok $([ -n "$want" ] && [ "$got" = "$want" ] && [ $rc = $wrc ]; echo $?) \
		"$name: run.sh says $want (got ${got:-nothing}, exit $rc)"
	[ "$got" = "$want" ] || sed 's/^/# /' "$T/out"
	ok $([ -n "$text" ] && grep -qF -- "$text" "$T/out"; echo $?) \
		"$name: the report says: ${text:-(no expect text)}"
done
done_testing
