#!/bin/sh
# Guest test: cost-model.sh (the cost model against guest replays) on the arm64 guest,
# qemu-system-aarch64 -M virt (TCG) (issue 15).
FT_TEST_ARCH=arm64 exec sh "$(dirname "$0")/cost-model.sh"
