# expect: FAIL bailed out
echo "1..2"
echo "ok 1 - a"
echo "Bail out! fixture missing"
