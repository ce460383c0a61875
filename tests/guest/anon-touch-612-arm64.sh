#!/bin/sh
# Guest test: anon-touch-612.sh (the 6.12 kernel's anon events under upstream mTHP, its
# per-size counters, the refusals) on the arm64 guest, cross-built and run under
# qemu-system-aarch64 -M virt (TCG) (issue 25).
FT_TEST_ARCH=arm64 exec sh "$(dirname "$0")/anon-touch-612.sh"
