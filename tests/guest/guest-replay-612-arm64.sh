#!/bin/sh
# Guest test: guest-replay-612.sh on the arm64 guest (qemu-system-aarch64 -M virt, TCG) (issue 25).
FT_TEST_ARCH=arm64 FT_TEST_KERNEL=6.12 exec sh "$(dirname "$0")/guest-replay.sh"
