# expect: FAIL plan line between test lines
echo "ok 1 - a"
echo "1..2"
echo "ok 2 - b"
