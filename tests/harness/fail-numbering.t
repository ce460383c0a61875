# expect: FAIL test 2 is numbered 1
echo "1..2"
echo "ok 1 - a"
echo "ok 1 - a again"
