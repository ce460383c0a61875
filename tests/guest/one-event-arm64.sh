#!/bin/sh
# Guest test: tests/guest/one-event.sh on the arm64 guest.
FT_TEST_ARCH=arm64 exec sh "$(dirname "$0")/one-event.sh"
