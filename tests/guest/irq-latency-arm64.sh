#!/bin/sh
# Guest test: irq-latency.sh (latency_ns without interrupt time) on the arm64 guest.
FT_TEST_ARCH=arm64 exec sh "$(dirname "$0")/irq-latency.sh"
