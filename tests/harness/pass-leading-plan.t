# expect: PASS (2 checks
. "$(dirname "$0")/../test-lib.sh"
plan 2
ok 0 "a"
check "b" true
done_testing
