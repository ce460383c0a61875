#!/bin/sh
# Guest test: khugepaged-612.sh (the simulator's +khugepaged against the 6.12 kernel's
# khugepaged counters) on the arm64 guest, under qemu-system-aarch64 -M virt (TCG).
FT_TEST_ARCH=arm64 exec sh "$(dirname "$0")/khugepaged-612.sh"
