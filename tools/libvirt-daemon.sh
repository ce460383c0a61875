#!/bin/sh
# Make sure a libvirt daemon answers on qemu:///system, for `foliotrace record --libvirt`
# and its guest test. A machine with a running libvirt is left alone. These machines have
# no systemd, so Debian's libvirt-daemon-system cannot be configured there; with the
# packages tools/install-deps.sh installs (libvirt-daemon, -driver-qemu, libvirt-clients)
# this script does what its postinst and units would:
#   - the libvirt-qemu user, which the QEMU driver looks up before it reads qemu.conf;
#   - /etc/libvirt/qemu.conf, only if there is none: QEMU runs as root, because the guest
#     cache (~/.cache/foliotrace) and the output directories are root's;
#   - virtlogd and libvirtd as daemons.
# Run as root. Exit 0 when qemu:///system answers.
set -eu
URI=qemu:///system
up() { timeout 20 virsh -q -c "$URI" version > /dev/null 2>&1; }
up && { echo "libvirt-daemon: a daemon answers on $URI"; exit 0; }
command -v libvirtd > /dev/null || { echo "libvirt-daemon: libvirtd is not installed (make deps)" >&2; exit 1; }
[ "$(id -u)" = 0 ] || { echo "libvirt-daemon: no daemon on $URI, and only root can start one" >&2; exit 1; }
getent passwd libvirt-qemu > /dev/null ||
	useradd --system --user-group --no-create-home --home-dir /var/lib/libvirt \
		--shell /usr/sbin/nologin libvirt-qemu
if [ ! -e /etc/libvirt/qemu.conf ]; then
	cat > /etc/libvirt/qemu.conf <<CONF
# Written by foliotrace's tools/libvirt-daemon.sh (no libvirt-daemon-system here): QEMU
# runs as root so that it can read the guest cache and write the trace directories.
user = "root"
group = "root"
CONF
fi
mkdir -p /var/log/libvirt /run/libvirt /var/lib/libvirt
pgrep -x virtlogd > /dev/null || virtlogd -d
pgrep -x libvirtd > /dev/null || libvirtd -d
for i in $(seq 1 30); do
	up && { echo "libvirt-daemon: libvirtd answers on $URI"; exit 0; }
	sleep 1
done
echo "libvirt-daemon: libvirtd does not answer on $URI; see /var/log/libvirt/libvirtd.log" >&2
exit 1
