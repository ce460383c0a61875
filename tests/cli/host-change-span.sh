#!/bin/sh
# host-change-span.sh - bench/host-lib.sh's change_span(), the span bench/host-time.sh
# gives a measured change (real_span): the 5th and 95th percentiles of the change of the
# medians over 200 resamples of the interleaved rounds. The expected spans are worked out
# from the runs alone:
# 1. every round's run at the size 0.8 times its 4K run: the median commutes with scaling,
#    so every resample's change is -20.0%, and so is the span;
# 2. 4K runs all 100, the size's 70, 75, 80, 85, 90 (5 rounds): a resample's change is
#    its median less 100, one of -30..-10; the median is 75 or less with probability
#    P(3 or more of 5 draws in {70, 75}) = 0.317, so among 200 resamples the 5th
#    percentile is -25 or below (the 95th -15 or above, likewise), within [-30, -10];
# 3. the same runs give the same span (a fixed seed).
. "$(dirname "$0")/../test-lib.sh"

plan 4
. "$TOP/bench/host-lib.sh"
printf '%s\n' 1000 1200 900 1100 1050 > "$T/a4"
awk '{ print $1 * 0.8 }' "$T/a4" > "$T/a16"
check "runs at 0.8 times 4K in every round: -20.0 -20.0 ($(change_span "$T/a4" "$T/a16"))" \
	test "$(change_span "$T/a4" "$T/a16")" = "-20.0 -20.0"

printf '%s 7 8\n' 100 100 100 100 100 > "$T/b4"
printf '%s 1 2\n' 70 75 80 85 90 > "$T/b16"
# shellcheck disable=SC2046 # "LO HI" split on purpose
set -- $(change_span "$T/b4" "$T/b16")
check "the 5th percentile within [-30, -25] ($1)" awk -v v="$1" 'BEGIN { exit !(v >= -30 && v <= -25) }'
check "the 95th percentile within [-15, -10] ($2)" awk -v v="$2" 'BEGIN { exit !(v >= -15 && v <= -10) }'
check "the same runs, the same span" test "$(change_span "$T/b4" "$T/b16")" = "$1 $2"
done_testing
