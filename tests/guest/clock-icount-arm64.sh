#!/bin/sh
# Guest test: clock-icount.sh (the deterministic icount clock) on the arm64 guest.
FT_TEST_ARCH=arm64 exec sh "$(dirname "$0")/clock-icount.sh"
