# test-lib.sh - sourced by the shell tests in tests/cli/ and tests/guest/: TAP output,
# a scratch directory removed on exit, and helpers. Each test file prints its own TAP stream.
#
# The plan is a contract (tests/run.sh enforces it too): call `plan N` once, before or
# after the tests, and end with done_testing, which fails the file when no plan was
# declared, when the number of tests run differs from N, or when a test failed.
#
#   FT_BUILD=DIR   run the binaries of DIR (relative to the top, default build), e.g.
#                  FT_BUILD=build-asan for the sanitizer build of `make check-asan`
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BUILD="$TOP/${FT_BUILD:-build}"
FT="$BUILD/foliotrace"
export FOLIOTRACE_HOME="$TOP"
T=$(mktemp -d "${TMPDIR:-/tmp}/foliotrace-test.XXXXXX")
trap 'rm -rf "$T"' EXIT
_n=0
_failed=0
_plan=

plan() {
	if [ -n "$_plan" ]; then
		echo "# plan declared twice ($_plan, then $1)"
		_failed=$((_failed + 1))
		return
	fi
	_plan=$1
	echo "1..$1"
}
ok() { # ok COND_STATUS DESCRIPTION
	_n=$((_n + 1))
	if [ "$1" = 0 ]; then echo "ok $_n - $2"; else echo "not ok $_n - $2"; _failed=$((_failed + 1)); fi
}
check() { # check DESCRIPTION COMMAND...: ok if COMMAND succeeds
	_d=$1; shift
	"$@" >"$T/check.out" 2>&1; _s=$?
	ok $_s "$_d"
	[ $_s = 0 ] || sed 's/^/# /' "$T/check.out" | tail -20
}
diag() { echo "# $*"; }
within_pct() { # within_pct GOT WANT PCT: |got-want| <= pct% of want
	awk -v g="$1" -v w="$2" -v p="$3" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(d <= w * p / 100.0) }'
}
# ingest_fixtures: every trace fixture (tests/data/*/ and tests/data-packets/*/, the
# directories holding a CTF metadata file) ingested into $T/fx-NAME.db; the names ingested
# into $T/fixtures, one a line. Sets fixtures (found) and bad (failed ingests, each a
# diagnostic line), for a loop over $T/fixtures to add its own failures to.
ingest_fixtures() {
	fixtures=0
	bad=0
	: > "$T/fixtures"
	for _d in "$TOP"/tests/data/*/ "$TOP"/tests/data-packets/*/; do
		_d=${_d%/}
		[ -n "$(find "$_d" -name metadata -print -quit 2>/dev/null)" ] || continue
		fixtures=$((fixtures + 1))
		if "$FT" ingest -o "$T/fx-$(basename "$_d").db" "$_d" > /dev/null 2> "$T/err"; then
			basename "$_d" >> "$T/fixtures"
		else
			diag "$(basename "$_d"): ingest failed: $(cat "$T/err")"
			bad=$((bad + 1))
		fi
	done
}
done_testing() {
	if [ -z "$_plan" ]; then
		echo "# no plan declared ($_n tests ran)"
		exit 1
	fi
	if [ "$_n" != "$_plan" ]; then
		echo "# planned $_plan tests but ran $_n"
		exit 1
	fi
	[ $_failed = 0 ]
	exit $?
}
