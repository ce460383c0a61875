#!/bin/sh
# install.sh - `make install` into a DESTDIR and `make deb` (issue 28 items 1 and 2), each
# run from outside the tree with nothing of the tree on PATH or in FOLIOTRACE_HOME:
# --version, ingest and query of a fixture (its event count is babeltrace2's own), the
# guest files found beside the binary (record reaches the installed run.sh, which runs the
# installed binary's `guest knob`, and stops at a fake guest directory: nothing boots), the
# man pages (man -l), the completion, the babeltrace2 plugin with no --plugin-path (the
# system plugin directory shown to babeltrace2 with the DESTDIR's plugin in it, by an
# overlay mount in a mount namespace of its own: the real system is not touched), and
# make uninstall leaving nothing. The package: built (lintian: no errors), its Depends
# all installed here (they are what foliotrace runs with), installed with dpkg into a
# scratch root, and the same checks of its binary. The record of a bundled workload with
# the installed files, which boots a guest, is tests/guest/install-record.sh.
#
# Always the regular build (build/, whatever FT_BUILD says): make install builds what it
# installs, and under check-asan that would be build-asan/ rebuilt without its sanitizers.
. "$(dirname "$0")/../test-lib.sh"

plan 28
PF=$TOP/tests/data/x86_64-pf-loop-order0	# a recorded trace fixture
P=$(pkg-config --variable=libdir babeltrace2)/babeltrace2/plugins	# babeltrace2's system plugins
V=$(cat "$TOP/VERSION")
check "the pf-loop fixture is there" test -d "$PF/trace"
check "the system plugin directory is there ($P)" test -f "$P/babeltrace-plugin-ctf.so"
NEV=$(babeltrace2 "$PF/trace" | wc -l)
unset FOLIOTRACE_HOME
mkdir "$T/away" && cd "$T/away" || exit 1
# okf STATUS DESCRIPTION FILE: ok, and FILE's last lines when it failed
okf() { ok "$1" "$2"; [ "$1" = 0 ] || tail -n 6 "$3" | sed 's/^/# /'; }

# installed ROOT BIN WHAT: the checks of an installed foliotrace, ROOT/usr/... (9 tests)
installed() {
	R=$1 F=$1$2 W=$3
	out=$(env -i PATH=/usr/bin:/bin HOME="$T" "$F" --version)
	[ "$out" = "foliotrace $V" ]
	ok $? "$W: --version from outside the tree says foliotrace $V"
	rm -f "$T/i.db"
	env -i PATH=/usr/bin:/bin HOME="$T" "$F" ingest -q -o "$T/i.db" "$PF" &&
		[ "$(env -i PATH=/usr/bin:/bin "$F" query "$T/i.db" --format csv sql \
			"SELECT events FROM trace" | tail -n 1)" = "$NEV" ]
	ok $? "$W: ingest and query of the fixture: its $NEV events (babeltrace2's count)"
	env -i PATH=/usr/bin:/bin "$F" query "$T/i.db" procs > "$T/procs" &&
		grep -q ' pf-loop ' "$T/procs"
	ok $? "$W: query procs names pf-loop"
	# a guest directory of the other series: run.sh refuses it after `guest knob`
	mkdir -p "$T/g" && echo bzImage > "$T/g/image" && echo 6.12 > "$T/g/series"
	rm -rf "$T/r.db" "$T/r.db.ctf"
	env -i PATH=/usr/bin:/bin HOME="$T" FT_GUEST_DIR="$T/g" "$F" record -o "$T/r.db" \
		-- anon-touch 1M > /dev/null 2> "$T/rec.err"
	rc=$?
	[ $rc = 1 ] && grep -q "^run.sh: $T/g is a 6.12 guest, not 6.1" "$T/rec.err"
	okf $? "$W: record finds the installed bundled workload, run.sh and its binary" "$T/rec.err"
	(for m in "$TOP"/docs/man/*.1; do
		n=$R/usr/share/man/man1/${m##*/}
		[ -f "$n" ] || n=$n.gz	# the package's are compressed
		MANWIDTH=80 man -l "$n" 2> "$T/man.warn" > "$T/man.txt" && [ ! -s "$T/man.warn" ] &&
			grep -q "^NAME" "$T/man.txt" || { echo "$n"; cat "$T/man.warn"; exit 1; }
	done) > "$T/man.err" 2>&1
	okf $? "$W: every man page renders with man -l, no warnings ($(ls "$TOP"/docs/man/*.1 | wc -l))" "$T/man.err"
	got=$(PATH="$R/usr/bin:/usr/bin:/bin" bash -c '
		. "$1"; COMP_WORDS=(foliotrace re); COMP_CWORD=1; _foliotrace
		printf "%s " "${COMPREPLY[@]}"' sh "$R/usr/share/bash-completion/completions/foliotrace")
	[ "$got" = "record replay report " ]
	ok $? "$W: the installed completion: 'foliotrace re' -> record replay report"
	test -f "$R$P/foliotrace.so"
	ok $? "$W: the plugin is in babeltrace2's system plugin directory"
	rm -f "$T/b.db"
	unshare -m sh -c "mount -t overlay overlay -o lowerdir='$R$P:$P' '$P' &&
		babeltrace2 '$PF/trace' -c sink.foliotrace.sqlite -p 'path=\"$T/b.db\"'" \
		> "$T/bt.out" 2>&1 &&
		[ "$("$F" query "$T/b.db" --format csv sql "SELECT events FROM trace" |
			tail -n 1)" = "$NEV" ]
	okf $? "$W: babeltrace2 TRACE -c sink.foliotrace.sqlite, no --plugin-path: $NEV events" "$T/bt.out"
	babeltrace2 "$PF/trace" -c sink.foliotrace.sqlite -p "path=\"$T/n.db\"" > /dev/null 2>&1
	[ $? != 0 ]
	ok $? "$W:   ... and without the overlay babeltrace2 has no such component (the test's control)"
}

# --- make install, make uninstall ---
D=$T/dest
make -s -C "$TOP" B=build install DESTDIR="$D" PREFIX=/usr > "$T/install.log" 2>&1
okf $? "make install DESTDIR=... PREFIX=/usr" "$T/install.log"
[ -x "$D/usr/bin/foliotrace" ] && [ -x "$D/usr/libexec/foliotrace/guest-kernel/run.sh" ] &&
	[ -x "$D/usr/libexec/foliotrace/workloads/x86_64/ft-launch" ] &&
	[ -f "$D/usr/libexec/foliotrace/guest-kernel/patches/linux/0001-mm-add-the-anon-trace-system.patch" ]
ok $? "  ... the binary, run.sh, the static programs and the patches in place"
(cd "$TOP/guest-kernel" && find . -type f | sort | while read -r f; do
	cmp -s "$f" "$D/usr/libexec/foliotrace/guest-kernel/$f" || echo "$f"; done) > "$T/diff"
test ! -s "$T/diff"
ok $? "  ... guest-kernel/ installed byte for byte (the kernel's cache key hashes it)"
installed "$D" /usr/bin/foliotrace "DESTDIR install"
make -s -C "$TOP" B=build uninstall DESTDIR="$D" PREFIX=/usr > "$T/uninstall.log" 2>&1 &&
	[ -z "$(find "$D" -type f)" ] && [ ! -e "$D/usr/libexec/foliotrace" ]
okf $? "make uninstall removes every file it installed, and the libexec directory" "$T/uninstall.log"

# --- make deb, dpkg into a scratch root ---
DEB=$TOP/build/foliotrace_${V}_$(dpkg --print-architecture).deb
rm -f "$DEB"
make -s -C "$TOP" deb > "$T/deb.log" 2>&1 && [ -f "$DEB" ] &&
	grep -q '^make-deb.sh: lintian: no errors' "$T/deb.log"
okf $? "make deb: $(basename "$DEB"), lintian reports no errors" "$T/deb.log"
dpkg-deb -f "$DEB" Depends | tr ',' '\n' | sed 's/^ *//; s/ .*//; s/|.*//' | grep . > "$T/deps"
missing=$(while read -r p; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q 'ok installed' || echo "$p"
done < "$T/deps")
grep -qx babeltrace2 "$T/deps" && grep -qx qemu-system-x86 "$T/deps" &&
	grep -qx libsqlite3-0 "$T/deps" && grep -qx libbabeltrace2-0 "$T/deps" && [ -z "$missing" ]
ok $? "  ... Depends: $(wc -l < "$T/deps") packages (qemu, babeltrace2, the libraries), all installed here${missing:+; missing: $missing}"
R=$T/root
mkdir -p "$R/var/lib/dpkg/info" "$R/var/lib/dpkg/updates" && : > "$R/var/lib/dpkg/status"
dpkg --root="$R" --force-depends --force-script-chrootless -i "$DEB" > "$T/dpkg.log" 2>&1 &&
	dpkg --root="$R" -s foliotrace | grep -qx 'Status: install ok installed'
okf $? "dpkg --root SCRATCH -i the package: installed" "$T/dpkg.log"
installed "$R" /usr/bin/foliotrace "the package"
dpkg --root="$R" --force-script-chrootless -r foliotrace > "$T/dpkg-r.log" 2>&1 &&
	[ ! -e "$R/usr/bin/foliotrace" ]
ok $? "dpkg -r removes it"

done_testing
