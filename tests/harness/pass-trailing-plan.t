# expect: PASS (2 checks
# A plan after the tests (the count known only at the end) is valid TAP.
. "$(dirname "$0")/../test-lib.sh"
ok 0 "a"
ok 0 "b"
plan 2
done_testing
