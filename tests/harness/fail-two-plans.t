# expect: FAIL 2 plan lines
echo "1..1"
echo "ok 1 - a"
echo "1..1"
