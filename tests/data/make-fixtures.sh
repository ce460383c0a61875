#!/bin/sh
# Re-record the real guest traces under tests/data/ (the fixtures of the collector, replay
# and query tests). Each is a small bundled workload recorded in a real guest by
# guest-kernel/run.sh: header/ (the trace header), trace/ (LTTng CTF), workload.out, cmd.
# usage: tests/data/make-fixtures.sh [x86_64|arm64]
set -eu
TOP=$(cd "$(dirname "$0")/../.." && pwd)
ARCH=${1:-x86_64}
rec() { # rec NAME POLICY CMD...
	d=$TOP/tests/data/$ARCH-$1
	shift
	pol=$1
	shift
	rm -rf "$d"
	sh "$TOP/guest-kernel/run.sh" --arch "$ARCH" --policy "$pol" --out "$d" -- "$@"
	rm -f "$d/job" "$d/kvm-probe.log"
	echo "sh guest-kernel/run.sh --arch $ARCH --policy $pol --out tests/data/$(basename "$d") -- $*" > "$d/COMMAND"
}
rec anon-touch-order0 order0 anon-touch 4M
rec anon-touch-mcpage2 mcpage:2 anon-touch 4M
rec anon-touch-thp thp anon-touch 4M
rec read-first-order0 order0 anon-touch 1M --read-first
rec sparse-order0 order0 sparse --size 64M --touches 512
rec pf-loop-order0 order0 pf-loop --size 2M --loops 4
# 16 KiB sub-buffers: streams of many packets, which the parallel ingest cuts into pieces
# (tests/cli/ingest-parallel.sh), kept in tests/data-packets/: tests/data's are one packet per stream
packets() { # packets NAME: pf-loop in 16 KiB sub-buffers into tests/data-packets/NAME
	d=$TOP/tests/data-packets/$1
	rm -rf "$d"
	FT_SUBBUF=16K FT_NSUBBUF=64 sh "$TOP/guest-kernel/run.sh" --arch x86_64 --policy order0 \
		--out "$d" -- pf-loop --size 2M --loops 4
	rm -f "$d/job" "$d/kvm-probe.log"
	echo "${2:+$2 }FT_SUBBUF=16K FT_NSUBBUF=64 sh guest-kernel/run.sh --arch x86_64 --policy order0 --out tests/data-packets/$1 -- pf-loop --size 2M --loops 4" > "$d/COMMAND"
}
if [ "$ARCH" = x86_64 ]; then
	# recorded before kernel patch 0008: one anon_fault a fault (FT_FAULT_BATCH=0 now)
	FT_FAULT_BATCH=0 packets x86_64-pf-loop-packets FT_FAULT_BATCH=0
	# its faults in anon_fault_batch events (kernel patch 0008)
	packets x86_64-pf-loop-batch
fi
rec fork-cow-order0 order0 fork-cow --size 2M
rec malloc-churn-order0 order0 malloc-churn --size 8M --loops 2
