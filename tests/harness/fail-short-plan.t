# expect: FAIL planned 3 tests, ran 2
# Raw TAP: the plan promises 3 tests, the file stops after 2 with status 0.
echo "1..3"
echo "ok 1 - a"
echo "ok 2 - b"
exit 0
