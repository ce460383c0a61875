#!/bin/sh
# Guest test: irq-latency.sh (latency_ns without interrupt time) on the 6.12 arm64 guest.
FT_TEST_ARCH=arm64 FT_TEST_KERNEL=6.12 exec sh "$(dirname "$0")/irq-latency.sh"
