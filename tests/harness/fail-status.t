# expect: FAIL exit 3
# Every test passed and the plan is met, but the file exits non-zero.
echo "1..1"
echo "ok 1 - a"
exit 3
