#!/bin/sh
# Run a command in a foliotrace guest and bring its trace out.
#
# usage: run.sh [--arch x86_64|arm64] [--kernel 6.1|6.12] [--policy SPEC] [--mem SIZE]
#               [--cpus N] [--clock tcg|icount] [--timeout SECONDS] [--libvirt URI]
#               [--mode record|run|ready] [--file PATH]...
#               [--exec PATH --cwd DIR [--rootfs DIR] [--env NAME=VALUE]...] [--sites]
#               [--fragment SPEC] [--pagemap]
#               --out DIR -- CMD [ARG...]
#
# --kernel (default 6.1) picks the guest kernel (build.sh): 6.1 sets our order knob,
# /sys/kernel/mm/anon_folio/orders; 6.12 runs upstream's own mTHP, the policy's sizes
# `always` in /sys/kernel/mm/transparent_hugepage/hugepages-*kB/enabled and the others
# `never` (thp: the PMD size), and refuses before booting a policy that cannot be put so.
# A policy's +mechanisms (docs/policies.md) run on 6.12 only: `+limit:SIZE` runs the
# workload in a memory cgroup with memory.max SIZE, and the khugepaged and shrinker knobs
# (khugepaged/max_ptes_none, shrink_underused, ...) are set in the guest; the header gets
# the cgroup's memory.peak, memory.events and memory.stat (docs/guest.md).
# --mode record (default) traces CMD; run runs it untraced; ready starts LTTng's session
# daemon with the probes loaded and records nothing: CMD drives LTTng itself
# (bench/overhead.sh).
# CMD is a bundled workload's name (on the guest's PATH) or a path to a static executable
# on the host, copied into the guest. With --exec, CMD is a program of a root filesystem
# (--rootfs, default the host's /), shared read-only over a second virtio-9p export: the
# guest runs PATH (already resolved, absolute or relative to DIR) with argv CMD [ARG...]
# chrooted into an overlay of it, in DIR, with exactly the --env variables (docs/guest.md).
# DIR receives the virtio-9p share: header/ (the trace header), trace/ (LTTng CTF),
# workload.out, console.log. QEMU runs with KVM when a probe
# boot under KVM succeeds on this machine (the result is cached per guest build), else
# TCG, and always under `timeout`; with --libvirt the same machine is a transient domain
# of the libvirt daemon at URI (libvirt.sh), stopped when the timeout passes.
#
# --clock icount runs QEMU's instruction counter (TCG only, never KVM): guest time advances
# 1 ns per guest instruction and idle time is skipped, so time figures repeat whatever the
# host's load (docs/guest.md, "Clock"). The default, tcg, is the accelerator's own clock.
# header/clock says which: icount, or the accelerator (tcg, kvm).
#
# --pagemap reads each workload process's page map at its exit into header/pagemap
# (ft-launch -m, guest-kernel/launch-pagemap.h: contpte-eligible 64K blocks per process);
# not with --sites, which traces the workload with ptrace already.
#
# Exit status: 0 the workload ran and exited 0; 3 it exited non-zero (its status is in
# header/workload_status); 4 the guest failed (panic, timeout, killed, setup error): the
# trace is kept and header/partial is 1; 1 the run could not start; 2 usage.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
ARCH=x86_64 KERNEL=6.1 POLICY=order0 MEM=2G CPUS=2 TIMEOUT=${FT_GUEST_TIMEOUT:-900} MODE=record OUT= FILES=
LIBVIRT= EXEC= CWD= ROOTFS=/ ENVS= SITES=0 FRAGMENT= CLOCK=tcg PAGEMAP=0
usage() {
	echo "usage: run.sh [--arch A] [--kernel 6.1|6.12] [--policy P] [--mem SIZE] [--cpus N] [--clock tcg|icount] [--timeout S] [--libvirt URI] [--mode record|run|ready] [--file PATH]... [--fragment SPEC] [--pagemap] --out DIR -- CMD [ARG...]" >&2
	exit 2
}
# Failures before the guest runs: exit 1, and once OUT is ours the reason in OUT/run_error
# (foliotrace record prints it).
OUT_READY=
die() {
	echo "run.sh: $*" >&2
	[ -z "$OUT_READY" ] || echo "$*" > "$OUT/run_error"
	exit 1
}
while [ $# -gt 0 ]; do
	case "$1" in
	--arch) ARCH=$2; shift 2 ;;
	--kernel) KERNEL=$2; shift 2 ;;
	--policy) POLICY=$2; shift 2 ;;
	--mem) MEM=$2; shift 2 ;;
	--cpus) CPUS=$2; shift 2 ;;
	--clock) CLOCK=$2; shift 2 ;;
	--timeout) TIMEOUT=$2; shift 2 ;;
	--libvirt) LIBVIRT=$2; shift 2 ;;
	--mode) MODE=$2; shift 2 ;;
	--sites) SITES=1; shift ;;
	--pagemap) PAGEMAP=1; shift ;;
	# fragment the guest's free memory first (guest-kernel/fragspec.h; ft-frag checks it)
	--fragment) FRAGMENT=$2; shift 2 ;;
	--out) OUT=$2; shift 2 ;;
	--file) [ -f "$2" ] || die "no such file: $2"
		FILES="$FILES$2
"; shift 2 ;;
	--exec) EXEC=$2; shift 2 ;;
	--cwd) CWD=$2; shift 2 ;;
	--rootfs) ROOTFS=$2; shift 2 ;;
	--env) ENVS="$ENVS$2
"; shift 2 ;;
	--) shift; break ;;
	*) usage ;;
	esac
done
[ -n "$OUT" ] && [ $# -gt 0 ] || usage
[ -z "$EXEC" ] || [ -n "$CWD" ] || usage
case "$MODE" in record|run|ready) ;; *) usage ;; esac
case "$CLOCK" in tcg|icount) ;; *) echo "run.sh: bad --clock '$CLOCK' (tcg or icount)" >&2; exit 2 ;; esac
case "$KERNEL" in 6.1|6.12) ;; *) echo "run.sh: unknown kernel '$KERNEL' (6.1 or 6.12)" >&2; exit 2 ;; esac
case "$FRAGMENT" in *[!a-z0-9:,]*) echo "run.sh: bad --fragment '$FRAGMENT'" >&2; exit 2 ;; esac
[ "$PAGEMAP$SITES" != 11 ] || { echo "run.sh: --pagemap and --sites both trace the workload with ptrace: one at a time" >&2; exit 2; }

# The policy grammar (docs/policies.md) mapped onto the 6.1 knobs by the same parser the
# simulator uses (the knob hook of replay/policy-<name>.c), so a spec means the same
# thing in both.
# FOLIOTRACE_BIN: the program that runs this script (cli/main.c sets it); else the source
# tree's build, else the foliotrace on PATH (an installed run.sh run by hand)
FT=${FOLIOTRACE_BIN:-$HERE/../build/foliotrace}
[ -x "$FT" ] || FT=$(command -v foliotrace) || FT=$HERE/../build/foliotrace
[ -x "$FT" ] || die "$FT is missing: run make first"
# 6.12 has no order knob: the knob's orders become mTHP sizes (MTHP, in kB: order N is
# 4K << N; `pmd` for thp). What a 6.12 guest can run is the policy table's rule
# (`guest knob --kernel 6.12`: no simulation-only policy, no 8K, which upstream's
# anonymous mTHP leaves out); it prints the one line that says why.
KNOBS=$("$FT" guest knob --kernel "$KERNEL" "$POLICY") || exit 2
# line 1: the orders; then, for a spec with +mechanisms (6.12 only), one "NAME VALUE" line
# per knob of theirs: a file under transparent_hugepage/, or memory.max, the workload's
# cgroup (rp_mech_guest_knobs(), docs/guest.md "Memory limit and THP knobs")
ORDERS=$(printf '%s\n' "$KNOBS" | sed -n 1p)
MECH=$(printf '%s\n' "$KNOBS" | sed 1d)
THP=never
[ "$ORDERS" = thp ] && { ORDERS=none; THP=always; }
MTHP=
if [ "$KERNEL" = 6.12 ]; then
	[ "$THP" = always ] && MTHP=pmd
	[ "$ORDERS" = none ] || for r in $(echo "$ORDERS" | tr ',' ' '); do
		lo=${r%-*} hi=${r#*-}
		o=$lo
		while [ "$o" -le "$hi" ]; do
			MTHP="$MTHP $((4 << o))"
			o=$((o + 1))
		done
	done
	MTHP=${MTHP# }
fi

# FT_GUEST_DIR: a guest directory built elsewhere (development); default: build.sh's cache
# A failed build says which step failed on its last line (build.sh, build-kernel*.sh): that
# line is run.sh's one line too.
if [ -n "${FT_GUEST_DIR:-}" ]; then
	GDIR=$FT_GUEST_DIR
else
	blog=$(mktemp)
	GDIR=$( { sh "$HERE/build.sh" --arch "$ARCH" --kernel "$KERNEL" --print-dir 2>&1 1>&3 3>&- |
		tee "$blog" >&2; } 3>&1)
	bline=$(grep '^build.sh: ' "$blog" | tail -n 1)
	rm -f "$blog"
	[ -n "$GDIR" ] && [ -f "$GDIR/initrd.cpio" ] ||
		die "the $KERNEL $ARCH guest build failed: ${bline#build.sh: }"
fi
IMAGE=$GDIR/$(cat "$GDIR/image")
[ "$(cat "$GDIR/series" 2>/dev/null || echo 6.1)" = "$KERNEL" ] ||
	die "$GDIR is a $(cat "$GDIR/series" 2>/dev/null || echo 6.1) guest, not $KERNEL (FT_GUEST_DIR and --kernel disagree)"

mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
[ -z "$(ls -A "$OUT")" ] || die "output directory $OUT is not empty"
OUT_READY=1

# Inputs of the workload: /mnt/out/in/BASENAME in the guest.
if [ -n "$FILES" ]; then
	mkdir -p "$OUT/in"
	printf '%s' "$FILES" | while IFS= read -r f; do cp "$f" "$OUT/in/"; done
fi

# The workload: a program of the root filesystem, a bundled name, or a host static
# executable copied onto the share.
ROOTSHARE=
if [ -n "$EXEC" ]; then
	[ -x "$ROOTFS/bin/sh" ] && [ -d "$ROOTFS/usr" ] ||
		die "$ROOTFS is not a root filesystem (no /bin/sh or no /usr)"
	[ -z "$LIBVIRT" ] || die "--libvirt cannot share a root filesystem yet: record a bundled workload or a static executable"
	case "$ROOTFS" in *,* | *[[:space:]]*) die "a root filesystem path with a comma or a space cannot be shared: $ROOTFS" ;; esac
	ROOTFS=$(cd "$ROOTFS" && pwd)
	printf '%s\n' "$EXEC" > "$OUT/exec"
	printf '%s\n' "$CWD" > "$OUT/cwd"
	printf '%s' "$ENVS" > "$OUT/env"
	mkdir -p "$OUT/header"
	printf '%s\n' "$ROOTFS" > "$OUT/header/rootfs"
	# read-only: the guest cannot write the host; QEMU reads as the user running this.
	# multidevs=remap: the root spans several devices whose inode numbers could collide.
	ROOTSHARE="-virtfs local,path=$ROOTFS,mount_tag=rootfs,security_model=none,readonly=on,multidevs=remap"
elif [ -f "$1" ] && [ -x "$1" ]; then
	readelf -l "$1" 2>/dev/null | grep -q 'Requesting program interpreter' &&
		die "$1 is dynamically linked: the guest has no libc, build it with -static"
	mkdir -p "$OUT/bin"
	cp "$1" "$OUT/bin/"
	first=/mnt/out/bin/$(basename "$1")
	shift
	set -- "$first" "$@"
elif case "$1" in */*) true ;; *) false ;; esac; then
	die "no such executable: $1"
fi
: > "$OUT/cmd"
for a in "$@"; do printf '%s\n' "$a" >> "$OUT/cmd"; done

# LTTng channel: 8 sub-buffers of 8M per cpu (128M of a 2G guest for 2 cpus) absorb the
# bursts of ~100 B/event at ~200k events/s while the consumer writes to 9p: no discards
# in the bundled workloads or in bench/ingest.sh's 1M-fault run (FT_SUBBUF, FT_NSUBBUF
# override; the header records LTTng's discarded count either way).
# the LTTng events recorded (FT_ANON_ALLOC, FT_FAULT_BATCH, FT_EXTRA_EVENTS)
. "$HERE/events.sh"
write_job() { # write_job MODE
	cat > "$OUT/job" <<EOF
FT_MODE=$1
FT_POLICY='$POLICY'
FT_KERNEL=$KERNEL
FT_ORDERS='$ORDERS'
FT_MTHP='$MTHP'
FT_THP=$THP
FT_SUBBUF=${FT_SUBBUF:-8M}
FT_NSUBBUF=${FT_NSUBBUF:-8}
FT_EVENTS=$EVENTS
FT_ROOT=$([ -n "$ROOTSHARE" ] && echo 1 || echo 0)
FT_SITES=$SITES
FT_FRAGMENT='$FRAGMENT'
FT_PAGEMAP=$PAGEMAP
FT_MECH='$MECH'
EOF
}

case "$ARCH" in
x86_64)
	QEMU="qemu-system-x86_64 -M pc"
	# tsc=reliable: keep the TSC (ns timestamps) although TCG cannot prove it stable.
	# no_timer_check: skip the boot-time check that the PIT timer interrupt arrives through
	# the IO-APIC; on a loaded host TCG delivers it late and the kernel panics ("IO-APIC +
	# timer doesn't work!"), seen while other guests and builds shared the 2 CPUs
	APPEND="console=ttyS0 quiet panic=-1 tsc=reliable clocksource=tsc no_timer_check"
	;;
arm64)
	QEMU="qemu-system-aarch64 -M virt -cpu max"
	APPEND="console=ttyAMA0 quiet panic=-1"
	;;
*) die "unknown arch '$ARCH'" ;;
esac
# FT_IDLE_POLL=1: idle vCPUs poll instead of halting (bench/sites-stops.sh). Under TCG
# waking a halted vCPU is slow, and a ptrace stop wakes one twice (the tracer, then the
# traced thread): a stop costs 200 µs with halting vCPUs, 70 µs with polling ones. Not
# the default, not even for --sites: the polling vCPUs take the host's two cores from
# QEMU's own threads, and malloc-churn ran 12% slower untraced, as much as --sites gained
# (docs/sites.md "Cost").
if [ "${FT_IDLE_POLL:-0}" = 1 ]; then
	case $ARCH in
	x86_64) APPEND="$APPEND idle=poll" ;;
	*) APPEND="$APPEND nohlt" ;;
	esac
fi

# --clock icount: shift=0, one instruction = 1 ns of guest time; sleep=off, an idle guest's
# clock jumps to its next timer instead of following the host's; align=off, guest time
# never waits for the host's. What that time is and is not: docs/guest.md, "Clock".
ICOUNT=
if [ "$CLOCK" = icount ]; then
	ICOUNT="-icount shift=0,align=off,sleep=off"
	[ -z "$LIBVIRT" ] || die "--clock icount cannot run through --libvirt: libvirt.sh has no icount"
	# x86_64 SMP: QEMU 7.2 gives the first vCPU the whole icount budget, and the boot CPU
	# busy-waits for the second, which never comes up (docs/guest.md, "Clock")
	if [ "$ARCH" = x86_64 ] && [ "$CPUS" != 1 ]; then
		echo "run.sh: --clock icount on x86_64 runs 1 cpu, not $CPUS" \
			"(QEMU 7.2 starves the second under icount: docs/guest.md, Clock)" >&2
		CPUS=1
	fi
fi

qemu() { # qemu ACCEL TIMEOUT CONSOLE_LOG
	timeout -k 5 "$2" $QEMU -accel "$1" $ICOUNT -smp "$CPUS" -m "$MEM" -nographic -no-reboot \
		-nic none -kernel "$IMAGE" -initrd "$GDIR/initrd.cpio" \
		-virtfs local,path="$OUT",mount_tag=out,security_model=none $ROOTSHARE \
		-append "$APPEND" > "$3" 2>&1 < /dev/null
}

# KVM only if a probe boot under it works here; the answer is cached with the guest.
ACCEL=tcg
# icount is TCG's: a KVM guest runs on the host's clock.
if [ "$ARCH" = x86_64 ] && [ -w /dev/kvm ] && [ "${FT_ACCEL:-}" != tcg ] && [ "$CLOCK" != icount ]; then
	if [ ! -f "$GDIR/kvm-probe" ]; then
		write_job probe
		qemu kvm 60 "$OUT/kvm-probe.log" || :
		if [ -f "$OUT/probe" ]; then echo ok; else echo fail; fi > "$GDIR/kvm-probe"
		rm -f "$OUT/probe" "$OUT/job"
	fi
	[ "$(cat "$GDIR/kvm-probe")" = ok ] && ACCEL=kvm
fi

write_job "$MODE"
via=
[ -n "$LIBVIRT" ] && via=" as a libvirt domain on $LIBVIRT"
clk=
[ "$CLOCK" = icount ] && clk=" icount"
echo "run.sh: booting the $KERNEL $ARCH guest$via ($ACCEL$clk, $CPUS cpus, $MEM), policy $POLICY: $*" >&2
start=$(date +%s)
set +e
if [ -n "$LIBVIRT" ]; then
	sh "$HERE/libvirt.sh" "$LIBVIRT" "$ARCH" "$ACCEL" "$CPUS" "$MEM" "$IMAGE" \
		"$GDIR/initrd.cpio" "$OUT" "$APPEND" "$TIMEOUT" "$OUT/console.log" \
		2> "$OUT/libvirt.log"
else
	qemu "$ACCEL" "$TIMEOUT" "$OUT/console.log"
fi
qrc=$?
set -e
if [ -n "$LIBVIRT" ]; then
	cat "$OUT/libvirt.log" >&2
	# libvirt refused the domain: nothing ran
	[ $qrc = 1 ] && die "libvirt did not start the guest: $(sed -n '$s/^libvirt.sh: //p' "$OUT/libvirt.log")"
	[ -s "$OUT/libvirt.log" ] || rm -f "$OUT/libvirt.log"
fi
echo "run.sh: guest exited after $(( $(date +%s) - start )) s" >&2
H=$OUT/header
mkdir -p "$H"
# kvm or tcg: in the trace header, part of the cost model's key (docs/cost-model.md)
echo "$ACCEL" > "$H/accel"
# the guest's time: icount (instructions), else the accelerator's (part of the same key)
if [ "$CLOCK" = icount ]; then echo icount; else echo "$ACCEL"; fi > "$H/clock"
if [ "$(cat "$H/partial" 2>/dev/null)" = 0 ]; then
	st=$(cat "$H/workload_status")
	[ "$st" = 0 ] && exit 0
	echo "run.sh: the workload exited with status $st" >&2
	# no memcg.events without a +limit policy: awk fails, and under set -e a failing
	# assignment would end the script with awk's status 2, run.sh's "usage" status
	cgk=$(awk '$1 == "oom_kill" { print $2 }' "$H/memcg.events" 2>/dev/null || :)
	if [ -n "$cgk" ] && [ "$cgk" != 0 ]; then
		echo "run.sh: the workload's cgroup reached its memory.max ($(cat "$H/memcg.max") bytes, the policy's +limit): the OOM killer ended $cgk processes" >&2
	elif [ "$(cat "$H/oom_kills" 2>/dev/null || echo 0)" != 0 ]; then
		echo "run.sh: the guest ran out of memory ($MEM): the OOM killer ended $(cat "$H/oom_kills") processes" >&2
	fi
	exit 3
fi
# The guest did not finish: say why, mark the trace partial, keep what came out.
elapsed=$(( $(date +%s) - start ))
if [ $qrc = 124 ] || { [ $qrc = 137 ] && [ $elapsed -ge "$TIMEOUT" ]; }; then
	why="guest timed out after $TIMEOUT s"
elif [ $qrc -gt 128 ]; then
	# killed from outside, at whatever step it was (booting too: not a boot failure)
	why="the guest was killed (qemu got signal $((qrc - 128)))"
elif ! grep -q '^foliotrace-guest: ' "$OUT/console.log" 2>/dev/null; then
	# the kernel never ran /init (or /init died before its first word): its panic, or the
	# console's last line
	last=$(grep -m1 'Kernel panic' "$OUT/console.log" 2>/dev/null ||
		grep -v '^[[:space:]]*$' "$OUT/console.log" 2>/dev/null | tail -n 1)
	why="the $KERNEL $ARCH guest kernel did not boot to /init (boot step): $(echo "$last" |
		sed 's/.*\(Kernel panic\)/\1/; s/^\[[^]]*\] //' | tr -d '\033' | cut -c1-200)"
elif grep -q 'Out of memory' "$OUT/console.log" 2>/dev/null; then
	why="the guest ran out of memory ($MEM; --mem sets it): $(grep -m1 'Out of memory' "$OUT/console.log" | sed 's/^\[[^]]*\] //')"
elif grep -q 'Kernel panic' "$OUT/console.log" 2>/dev/null; then
	why="guest kernel panic: $(grep -m1 'Kernel panic' "$OUT/console.log" | sed 's/^\[[^]]*\] //')"
elif [ -f "$H/guest_error" ]; then
	why="guest setup failed: $(cat "$H/guest_error")"
else
	why="guest stopped before the workload finished (qemu exit $qrc)"
fi
echo 1 > "$H/partial"
[ -f "$H/guest_error" ] || echo "$why" > "$H/guest_error"
echo "run.sh: $why; console: $OUT/console.log" >&2
exit 4
