# expect: FAIL # planned 3 tests but ran 1
# test-lib.sh: done_testing itself refuses a plan that is not met (and exits 1).
. "$(dirname "$0")/../test-lib.sh"
plan 3
ok 0 "a"
done_testing
