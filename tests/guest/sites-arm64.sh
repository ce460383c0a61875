#!/bin/sh
# Guest test: sites.sh (record --sites: exact fault counts per function, the plain -static
# fallback, a stripped build) on the arm64 guest, under qemu-system-aarch64 -M virt (TCG).
FT_TEST_ARCH=arm64 exec sh "$(dirname "$0")/sites.sh"
