#!/bin/sh
# Guest test: anon-touch.sh (the anon events, the order knob, the clock) on the arm64 guest,
# cross-built and run under qemu-system-aarch64 -M virt (TCG) (issue 6).
FT_TEST_ARCH=arm64 exec sh "$(dirname "$0")/anon-touch.sh"
