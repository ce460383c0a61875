#!/bin/sh
# Guest test: guest-replay.sh (record, replay in real guests, sim-vs-real) on the arm64 guest,
# qemu-system-aarch64 -M virt (TCG) (issue 6).
FT_TEST_ARCH=arm64 exec sh "$(dirname "$0")/guest-replay.sh"
