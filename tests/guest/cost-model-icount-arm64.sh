#!/bin/sh
# Guest test: cost-model-icount.sh (the cost model held to 10% under --clock icount) on the
# arm64 guest, qemu-system-aarch64 -M virt, 1 cpu (issue 24 item 2).
FT_TEST_ARCH=arm64 exec sh "$(dirname "$0")/cost-model-icount.sh"
