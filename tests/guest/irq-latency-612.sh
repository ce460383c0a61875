#!/bin/sh
# Guest test: irq-latency.sh (latency_ns without interrupt time) on the 6.12 x86_64 guest.
FT_TEST_KERNEL=6.12 exec sh "$(dirname "$0")/irq-latency.sh"
