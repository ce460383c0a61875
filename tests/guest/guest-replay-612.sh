#!/bin/sh
# Guest test: guest-replay.sh (record, replay in real guests, sim-vs-real) on the 6.12 guest
# kernel, upstream mTHP set through hugepages-*kB/enabled, with the kernel's per-size
# counters as a second witness (issue 25).
FT_TEST_KERNEL=6.12 exec sh "$(dirname "$0")/guest-replay.sh"
