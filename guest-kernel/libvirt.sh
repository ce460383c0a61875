#!/bin/sh
# Boot the guest as a transient libvirt domain, the same machine run.sh gives QEMU directly:
# same kernel, initrd, command line, memory, cpus, accelerator, and the output directory as
# the virtio-9p share with mount tag "out" (accessmode squash = QEMU's security_model=none).
# The serial console goes to CONSOLE_LOG. Waits until the domain is gone (the guest powers
# off, or panics and reboots: both destroy a transient domain), at most TIMEOUT seconds.
#
# usage: libvirt.sh URI ARCH ACCEL CPUS MEM IMAGE INITRD OUT APPEND TIMEOUT CONSOLE_LOG
#
# Exit: 0 the domain ended by itself; 124 timeout (the domain is destroyed); 1 libvirt
# refused it (virsh's message on stderr); 128+N killed by signal N (the domain is destroyed).
# The daemon's QEMU user must read IMAGE and INITRD and write OUT.
set -eu
[ $# = 11 ] || { echo "usage: libvirt.sh URI ARCH ACCEL CPUS MEM IMAGE INITRD OUT APPEND TIMEOUT CONSOLE_LOG" >&2; exit 2; }
URI=$1 ARCH=$2 ACCEL=$3 CPUS=$4 MEM=$5 IMAGE=$6 INITRD=$7 OUT=$8 APPEND=$9
TIMEOUT=${10} CONSOLE=${11}
NAME=foliotrace-$(uname -n)-$$-$(date +%s)

# QEMU's -m syntax (plain number = MiB) in MiB
case "$MEM" in
*[Gg]) mib=$(( ${MEM%?} * 1024 )) ;;
*[Mm]) mib=${MEM%?} ;;
*[Kk]) mib=$(( ${MEM%?} / 1024 )) ;;
*) mib=$MEM ;;
esac

xml_escape() {
	printf '%s' "$1" | sed -e 's/&/\&amp;/g' -e 's/</\&lt;/g' -e 's/>/\&gt;/g' -e "s/'/\&apos;/g"
}

# machine: the elements that make the domain the machine `qemu-system-* -M ...` is in run.sh.
case "$ARCH" in
# x86_64: libvirt leaves out ACPI and the HPET unless asked, while `qemu-system-x86_64 -M pc`
# has both. Without them the kernel has no reference to calibrate the TSC against when the
# PIT calibration fails (it does under load) and falls back to refined-jiffies (4 ms).
x86_64) type="<type arch='x86_64' machine='pc'>hvm</type>" emu=qemu-system-x86_64
	machine="<features><acpi/></features>
  <clock offset='utc'><timer name='hpet' present='yes'/></clock>" ;;
arm64) type="<type arch='aarch64' machine='virt'>hvm</type>"
	machine="<cpu mode='custom' match='exact'><model fallback='forbid'>max</model></cpu>"
	emu=qemu-system-aarch64 ;;
*) echo "libvirt.sh: unknown arch '$ARCH'" >&2; exit 2 ;;
esac
dtype=qemu
[ "$ACCEL" = kvm ] && dtype=kvm

XML=$(mktemp "${TMPDIR:-/tmp}/foliotrace-domain.XXXXXX")
cat > "$XML" <<EOF
<domain type='$dtype'>
  <name>$NAME</name>
  <memory unit='MiB'>$mib</memory>
  <vcpu>$CPUS</vcpu>
  <os>
    $type
    <kernel>$(xml_escape "$IMAGE")</kernel>
    <initrd>$(xml_escape "$INITRD")</initrd>
    <cmdline>$(xml_escape "$APPEND")</cmdline>
  </os>
  $machine
  <on_poweroff>destroy</on_poweroff>
  <on_reboot>destroy</on_reboot>
  <on_crash>destroy</on_crash>
  <devices>
    <emulator>$(command -v $emu)</emulator>
    <filesystem type='mount' accessmode='squash'>
      <source dir='$(xml_escape "$OUT")'/>
      <target dir='out'/>
    </filesystem>
    <serial type='file'>
      <source path='$(xml_escape "$CONSOLE")'/>
      <target port='0'/>
    </serial>
    <memballoon model='none'/>
  </devices>
</domain>
EOF

destroy() {
	virsh -q -c "$URI" destroy "$NAME" > /dev/null 2>&1 || :
}
trap 'rm -f "$XML"' EXIT
trap 'destroy; exit 130' INT
trap 'destroy; exit 143' TERM
trap 'destroy; exit 129' HUP

# virsh itself under a timeout: an unreachable daemon must not hang the caller
if ! err=$(timeout 60 virsh -q -c "$URI" create "$XML" 2>&1 > /dev/null); then
	echo "libvirt.sh: $URI: $(echo "$err" | grep -v '^$' | head -n 1 | sed 's/^error: //')" >&2
	exit 1
fi
# A transient domain disappears when it powers off; poll until then.
start=$(date +%s)
while timeout 30 virsh -q -c "$URI" domstate "$NAME" > /dev/null 2>&1; do
	if [ $(( $(date +%s) - start )) -ge "$TIMEOUT" ]; then
		destroy
		exit 124
	fi
	sleep 1
done
exit 0
