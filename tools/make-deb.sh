#!/bin/sh
# make-deb.sh - `make deb`: the Debian package of the tree as it is (committed or not),
# build/foliotrace_VERSION_ARCH.deb, then lintian's verdict on it.
#
# dpkg-buildpackage (debian/rules: the Makefile's install, PREFIX /usr) runs in a copy of
# the tree, build/deb/foliotrace-VERSION/, because it cleans the tree it builds in (make
# clean: build/) and writes its results to the parent directory. VERSION and
# debian/changelog must agree. Exit 1 when the build fails or lintian reports an error
# (its warnings are printed, not fatal).
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP"
die() { echo "make-deb.sh: $*" >&2; exit 1; }
command -v dpkg-buildpackage > /dev/null || die "dpkg-buildpackage is missing (make deps)"
command -v dh > /dev/null || die "debhelper is missing (make deps)"
VERSION=$(cat VERSION)
CV=$(dpkg-parsechangelog -l debian/changelog -S Version)
[ "$CV" = "$VERSION" ] || die "debian/changelog is at $CV but VERSION says $VERSION: add a changelog entry"
ARCH=$(dpkg --print-architecture)
W=$TOP/build/deb
rm -rf "$W"
mkdir -p "$W/foliotrace-$VERSION"
tar -C "$TOP" --exclude=./build --exclude=./build-asan --exclude=./build-fuzz --exclude=./.git \
	-cf - . | tar -C "$W/foliotrace-$VERSION" -xf -
(cd "$W/foliotrace-$VERSION" &&
	DEB_BUILD_OPTIONS="nocheck parallel=${JOBS:-2}" dpkg-buildpackage -b -us -uc) \
	> "$W/build.log" 2>&1 || { tail -n 20 "$W/build.log" >&2; die "dpkg-buildpackage failed (log: $W/build.log)"; }
DEB=$TOP/build/foliotrace_${VERSION}_$ARCH.deb
mv "$W/foliotrace_${VERSION}_$ARCH.deb" "$DEB"
echo "make-deb.sh: $DEB"
if command -v lintian > /dev/null; then
	lintian "$DEB" > "$W/lintian.log" 2>&1 || :
	cat "$W/lintian.log"
	! grep -q '^E: ' "$W/lintian.log" || die "lintian reports errors (above)"
	echo "make-deb.sh: lintian: no errors"
else
	echo "make-deb.sh: lintian is not installed (make deps): not checked" >&2
fi
