#!/bin/sh
# Configure a guest kernel: tinyconfig + the config fragments given (build-kernel.sh gives
# config/common.config and the series' ARCH.config), then olddefconfig, then check every
# requested option stuck (Kconfig silently drops options whose dependencies are missing,
# which is how a guest ends up without 9p or SMP).
# usage: kconfig.sh SRC_TREE OBJ_DIR ARCH FRAGMENT...      (ARCH: x86_64 | arm64)
set -eu
SRC=$1 OBJ=$2 ARCH=$3
shift 3
case "$ARCH" in
x86_64) MAKEARCH="ARCH=x86_64" ;;
arm64) MAKEARCH="ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-" ;;
*) echo "kconfig.sh: unknown arch $ARCH" >&2; exit 2 ;;
esac
[ $# -gt 0 ] || { echo "kconfig.sh: no config fragment given" >&2; exit 2; }
mkdir -p "$OBJ"
make -s -C "$SRC" O="$OBJ" $MAKEARCH tinyconfig >/dev/null 2>&1
grep -h '^CONFIG_' "$@" | while IFS='=' read -r opt val; do
	case "$val" in
	y) "$SRC/scripts/config" --file "$OBJ/.config" --enable "${opt#CONFIG_}" ;;
	n) "$SRC/scripts/config" --file "$OBJ/.config" --disable "${opt#CONFIG_}" ;;
	*) "$SRC/scripts/config" --file "$OBJ/.config" --set-val "${opt#CONFIG_}" "$val" ;;
	esac
done
make -s -C "$SRC" O="$OBJ" $MAKEARCH olddefconfig
bad=0
for line in $(grep -h '^CONFIG_' "$@"); do
	grep -qx "$line" "$OBJ/.config" || { echo "kconfig.sh: $line did not stick" >&2; bad=1; }
done
exit $bad
