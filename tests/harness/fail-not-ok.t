# expect: FAIL 1 of 2 checks failed
echo "1..2"
echo "ok 1 - a"
echo "not ok 2 - b"
