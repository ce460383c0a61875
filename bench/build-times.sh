#!/bin/sh
# Measure the guest build: cold (empty cache: unpack Debian's sources, patch, configure,
# build kernel + lttng-modules, assemble the initramfs) and warm (everything cached), for
# one arch, and one boot of the guest. Prints one line per step and a last line
#   build_cold_s=N build_warm_s=N boot_run_s=N arch=A
# usage: bench/build-times.sh [x86_64|arm64]     (uses a temporary cache; ~10 min cold)
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
ARCH=${1:-x86_64}
export FOLIOTRACE_CACHE
FOLIOTRACE_CACHE=$(mktemp -d "${TMPDIR:-/tmp}/ft-build-times.XXXXXX")
out=$(mktemp -d "${TMPDIR:-/tmp}/ft-build-run.XXXXXX")
trap 'rm -rf "$FOLIOTRACE_CACHE" "$out"' EXIT
t0=$(date +%s)
sh "$TOP/guest-kernel/build.sh" --arch "$ARCH" >/dev/null
t1=$(date +%s)
sh "$TOP/guest-kernel/build.sh" --arch "$ARCH" >/dev/null
t2=$(date +%s)
sh "$TOP/guest-kernel/run.sh" --arch "$ARCH" --out "$out/run" -- anon-touch 64M 2>/dev/null
t3=$(date +%s)
cat "$FOLIOTRACE_CACHE"/kernel-"$ARCH"-*/times
echo "build_cold_s=$((t1 - t0)) build_warm_s=$((t2 - t1)) boot_run_s=$((t3 - t2)) arch=$ARCH"
