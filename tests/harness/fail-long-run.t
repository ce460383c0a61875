# expect: FAIL planned 1 tests, ran 2
# Raw TAP: more tests than planned.
echo "1..1"
echo "ok 1 - a"
echo "ok 2 - b"
