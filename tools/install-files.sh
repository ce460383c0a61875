#!/bin/sh
# install-files.sh - what `make install` installs and `make uninstall` removes, from one
# list (so the two never disagree). Run by the Makefile, which passes the GNU directories:
#
#   install-files.sh install|uninstall DESTDIR BINDIR PKGLIBEXECDIR MAN1DIR BASHCOMPDIR \
#                    BTPLUGINDIR BUILD
#
# PKGLIBEXECDIR (PREFIX/libexec/foliotrace) is the program's home (cli/main.c finds it
# beside its binary): guest-kernel/ and workloads/ with the source tree's relative paths,
# and the built static programs in workloads/ARCH/ (the tree's build/workloads/ARCH/).
# Scripts (#!) are installed 0755, everything else 0644. uninstall removes exactly the
# files of the list, then the home's directories left empty.
set -eu
[ $# = 8 ] || { echo "usage: install-files.sh install|uninstall DESTDIR BINDIR PKGLIBEXECDIR MAN1DIR BASHCOMPDIR BTPLUGINDIR BUILD" >&2; exit 2; }
ACTION=$1 D=$2 BINDIR=$3 HOME_DIR=$4 MAN1DIR=$5 COMPDIR=$6 PLUGINDIR=$7 B=$8
TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP"

# list BUILT: SOURCE DESTINATION MODE, one line per file; BUILT, the directory holding the
# static programs' ARCH/ (the build's to install, the installed ones to uninstall: arm64's
# may have been built for one and not the other)
list() {
	echo "$B/foliotrace $BINDIR/foliotrace 0755"
	echo "$B/plugins/foliotrace.so $PLUGINDIR/foliotrace.so 0644"
	echo "contrib/completion/foliotrace.bash $COMPDIR/foliotrace 0644"
	for m in docs/man/*.1; do echo "$m $MAN1DIR/${m##*/} 0644"; done
	find guest-kernel workloads -type f | LC_ALL=C sort | while read -r f; do
		if [ "$(head -c 2 "$f")" = '#!' ]; then mode=0755; else mode=0644; fi
		echo "$f $HOME_DIR/$f $mode"
	done
	for a in x86_64 arm64; do
		[ -d "$1/$a" ] || continue
		for f in "$1/$a"/*; do
			echo "$f $HOME_DIR/workloads/$a/${f##*/} 0755"
		done
	done
}

case "$ACTION" in
install)
	[ -x "$B/workloads/x86_64/ft-launch" ] || { echo "install-files.sh: $B is not built (make all)" >&2; exit 1; }
	list "$B/workloads" | while read -r src dst mode; do
		install -D -m "$mode" "$src" "$D$dst"
	done
	;;
uninstall)
	list "$D$HOME_DIR/workloads" | while read -r src dst mode; do
		rm -f "$D$dst"
	done
	[ ! -d "$D$HOME_DIR" ] || find "$D$HOME_DIR" -depth -type d -empty -delete
	;;
*) echo "install-files.sh: install or uninstall, not '$ACTION'" >&2; exit 2 ;;
esac
