#!/bin/sh
# Guest test: kbuild.sh (record the kbuild workload: complete trace, order0 replay equal to
# the recording, cc1 processes marked as the workload's) on the arm64 guest, compiling
# with the arm64 root's own gcc under qemu-system-aarch64 -M virt (TCG).
FT_TEST_ARCH=arm64 exec sh "$(dirname "$0")/kbuild.sh"
