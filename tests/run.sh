#!/bin/sh
# Run every test: C unit tests (build/tests/*), CLI shell tests (tests/cli/*.sh) and the
# guest tests (tests/guest/*.sh, which build and boot real guests). Each prints TAP; a
# summary line per file and a non-zero exit if any failed.
#   FT_SKIP_GUEST=1   skip tests/guest (developer shortcut; CI never sets it)
#   FT_TESTS=PATTERN  only files whose name contains PATTERN
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP"
if [ -n "${CI:-}" ] && [ -n "${FT_SKIP_GUEST:-}" ]; then
	echo "tests/run.sh: FT_SKIP_GUEST is not allowed in CI" >&2
	exit 1
fi
failed=0
total=0
logdir=build/test-logs
mkdir -p "$logdir"
run_one() {
	name=$1; shift
	case "$name" in *"${FT_TESTS:-}"*) ;; *) return 0 ;; esac
	total=$((total + 1))
	start=$(date +%s)
	"$@" > "$logdir/$(basename "$name").tap" 2>&1
	rc=$?
	secs=$(( $(date +%s) - start ))
	nok=$(grep -c '^not ok' "$logdir/$(basename "$name").tap")
	nall=$(grep -c '^\(not \)\?ok' "$logdir/$(basename "$name").tap")
	if [ $rc = 0 ] && [ "$nok" = 0 ] && [ "$nall" -gt 0 ]; then
		echo "PASS $name ($nall checks, ${secs}s)"
	else
		echo "FAIL $name (exit $rc, $nok of $nall checks failed, ${secs}s)"
		grep -v '^ok' "$logdir/$(basename "$name").tap" | tail -30 | sed 's/^/    /'
		failed=$((failed + 1))
	fi
}
for t in build/tests/*; do
	[ -x "$t" ] && [ -f "$t" ] && run_one "$t" "$t"
done
for t in tests/cli/*.sh; do
	[ -f "$t" ] && run_one "$t" sh "$t"
done
if [ -z "${FT_SKIP_GUEST:-}" ]; then
	for t in tests/guest/*.sh; do
		[ -f "$t" ] && run_one "$t" sh "$t"
	done
else
	echo "SKIP tests/guest (FT_SKIP_GUEST set)"
fi
echo "$((total - failed)) of $total test files passed"
[ $failed = 0 ]
