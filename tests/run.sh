#!/bin/sh
# Run every test: C unit tests (build/tests/*), CLI shell tests (tests/cli/*.sh) and the
# guest tests (tests/guest/*.sh, which build and boot real guests). Each prints TAP; a
# summary line per file and a non-zero exit if any failed.
#
# A file passes only if it exits 0, prints exactly one plan line `1..N` (N > 0) before its
# first test line or after its last one, prints exactly N test lines numbered 1..N, none
# of them `not ok`, and no `Bail out!`. So a test that stops early with status 0, or that
# never declares a plan, fails (tests/harness/ holds files that must fail; run by
# tests/cli/harness.sh).
#
#   sh tests/run.sh [FILE...]  only these files (*.sh and *.t run with sh, others executed)
#   FT_SKIP_GUEST=1   skip tests/guest (developer shortcut; CI never sets it)
#   FT_GUEST_ARCHES=LIST  the guest tests of these arches only, of "x86_64 arm64" (the
#                     default: both): a file named *-arm64.sh is arm64's, any other
#                     x86_64's. For a CI split in two jobs that together run everything
#                     (.ci/run x86_64, .ci/run arm64; docs/times.md); each file left out
#                     is named on a SKIP line
#   FT_SUITES=LIST    the suites to run, of "unit cli guest" (the default: all three);
#                     make check-asan runs "unit cli"
#   FT_TESTS=PATTERN  only files whose name contains PATTERN
#   FT_BUILD=DIR      test the binaries of DIR (default build; build-asan: make check-asan)
#   FT_TEST_LOGS=DIR  where each file's TAP output goes (default $FT_BUILD/test-logs)
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP"
if [ -n "${CI:-}" ] && [ -n "${FT_SKIP_GUEST:-}" ]; then
	echo "tests/run.sh: FT_SKIP_GUEST is not allowed in CI" >&2
	exit 1
fi
build=${FT_BUILD:-build}
failed=0
total=0
logdir=${FT_TEST_LOGS:-$build/test-logs}
mkdir -p "$logdir"

# tap_verdict LOG: print why the TAP stream in LOG breaks its plan, or nothing if it keeps it
tap_verdict() {
	awk '
	/^1\.\.[0-9]+([ \t#]|$)/ {
		nplan++
		plan = substr($1, 4) + 0
		before = ntests		# test lines seen before the plan line
		next
	}
	/^(not )?ok([ \t#]|$)/ {
		ntests++
		if (nplan)
			after++		# test lines after the plan line
		num = ($1 == "not") ? $3 : $2
		if (num ~ /^[0-9]+$/ && num + 0 != ntests && !badnum)
			badnum = "test " ntests " is numbered " num
		next
	}
	/^Bail out!/ { bail = 1 }
	END {
		if (bail)
			print "bailed out"
		else if (nplan == 0)
			print "no plan line 1..N"
		else if (nplan > 1)
			print nplan " plan lines"
		else if (before && after)
			print "plan line between test lines"
		else if (plan == 0)
			print "empty plan 1..0"
		else if (ntests != plan)
			print "planned " plan " tests, ran " ntests
		else if (badnum)
			print badnum
	}' "$1"
}

run_one() {
	name=$1; shift
	case "$name" in *"${FT_TESTS:-}"*) ;; *) return 0 ;; esac
	total=$((total + 1))
	log="$logdir/$(basename "$name").tap"
	start=$(date +%s)
	"$@" > "$log" 2>&1
	rc=$?
	secs=$(( $(date +%s) - start ))
	nok=$(grep -c '^not ok' "$log")
	nall=$(grep -c '^\(not \)\?ok\([ \t#]\|$\)' "$log")
	why=$(tap_verdict "$log")
	if [ $rc = 0 ] && [ "$nok" = 0 ] && [ -z "$why" ]; then
		echo "PASS $name ($nall checks, ${secs}s)"
	else
		echo "FAIL $name (exit $rc, $nok of $nall checks failed${why:+, $why}, ${secs}s)"
		grep -v '^ok' "$log" | tail -30 | sed 's/^/    /'
		failed=$((failed + 1))
	fi
}

if [ $# -gt 0 ]; then
	for t in "$@"; do
		case "$t" in
		*.sh | *.t) run_one "$t" sh "$t" ;;
		*) run_one "$t" "$t" ;;
		esac
	done
else
	suites=" ${FT_SUITES:-unit cli guest} "
	case "$suites" in *" unit "*)
		# one program per tests/unit/*.c: a missing one fails, it is not skipped
		for src in tests/unit/*.c; do
			t=$build/tests/$(basename "$src" .c)
			if [ -x "$t" ] && [ -f "$t" ]; then
				run_one "$t" "$t"
			else
				run_one "$t" sh -c "echo \"Bail out! $t is not built (make all)\"; exit 1"
			fi
		done
	esac
	case "$suites" in *" cli "*)
		for t in tests/cli/*.sh; do
			[ -f "$t" ] && run_one "$t" sh "$t"
		done
	esac
	case "$suites" in *" guest "*)
		if [ -z "${FT_SKIP_GUEST:-}" ]; then
			for t in tests/guest/*.sh; do
				[ -f "$t" ] || continue
				case $t in *-arm64.sh) a=arm64 ;; *) a=x86_64 ;; esac
				case " ${FT_GUEST_ARCHES:-x86_64 arm64} " in
				*" $a "*) run_one "$t" sh "$t" ;;
				*) echo "SKIP $t (an $a test; FT_GUEST_ARCHES=$FT_GUEST_ARCHES)" ;;
				esac
			done
		else
			echo "SKIP tests/guest (FT_SKIP_GUEST set)"
		fi
	esac
fi
echo "$((total - failed)) of $total test files passed"
[ $total -gt 0 ] && [ $failed = 0 ]
