# expect: FAIL empty plan 1..0
# A file that tests nothing must not pass.
echo "1..0"
