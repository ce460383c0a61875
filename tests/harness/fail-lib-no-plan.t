# expect: FAIL # no plan declared (1 tests ran)
# test-lib.sh: done_testing refuses a file that never declared a plan.
. "$(dirname "$0")/../test-lib.sh"
ok 0 "a"
done_testing
