#!/bin/sh
# check-asan.sh - the unit and CLI tests against the AddressSanitizer + UBSan build in
# build-asan/ (made by `make check-asan`, which runs this). Every sanitizer report also goes
# to build-asan/asan-logs/, so a report fails the run even when it comes from a command
# whose exit status a test does not look at. Leak reports (LSan) count too; babeltrace2's
# own leaks would be suppressed by name in tests/lsan.supp.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP"
logs="$TOP/build-asan/asan-logs"
[ -x build-asan/foliotrace ] || { echo "check-asan: build-asan/foliotrace missing: run make check-asan" >&2; exit 1; }
rm -rf "$logs"
mkdir -p "$logs"
start=$(date +%s)
FT_BUILD=build-asan FT_SUITES="unit cli" \
	ASAN_OPTIONS="log_path=$logs/asan:detect_leaks=1:abort_on_error=0" \
	LSAN_OPTIONS="suppressions=$TOP/tests/lsan.supp:print_suppressions=0" \
	UBSAN_OPTIONS="print_stacktrace=1:log_path=$logs/ubsan" \
	sh tests/run.sh
rc=$?
n=$(ls "$logs" | wc -l)
if [ "$n" != 0 ]; then
	for f in "$logs"/*; do
		echo "--- $f"
		head -40 "$f"
	done
	echo "check-asan: $n sanitizer report(s), in $logs"
	rc=1
fi
echo "check-asan: $(( $(date +%s) - start ))s, $n sanitizer reports"
exit $rc
