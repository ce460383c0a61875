# expect: FAIL no plan line 1..N
# Raw TAP: tests without any plan, exit 0.
echo "ok 1 - a"
echo "ok 2 - b"
