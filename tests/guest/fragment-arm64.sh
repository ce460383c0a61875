#!/bin/sh
# Guest test: fragment.sh (--fragment, issue 15 item 1) on the arm64 guest (TCG).
FT_TEST_ARCH=arm64 exec sh "$(dirname "$0")/fragment.sh"
