#!/bin/sh
# Guest test: map-place.sh (where 6.1 and 6.12 place an anonymous mmap) on the arm64 guest.
FT_TEST_ARCH=arm64 exec sh "$(dirname "$0")/map-place.sh"
