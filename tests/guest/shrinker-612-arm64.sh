#!/bin/sh
# Guest test: shrinker-612.sh (the simulator's +shrinker and +limit against the 6.12
# kernel's THP shrinker in a memory cgroup) on the arm64 guest, under qemu-system-aarch64
# -M virt (TCG).
FT_TEST_ARCH=arm64 exec sh "$(dirname "$0")/shrinker-612.sh"
