#!/bin/sh
# Guest test: `record` of a bundled workload by an installed foliotrace (issue 28 item 1):
# make install into a DESTDIR, then from another directory, with nothing of the tree in
# PATH or FOLIOTRACE_HOME, the installed binary records anon-touch in a guest built from
# the installed guest-kernel/ and workloads/. The kernel's cache key must not depend on
# where foliotrace is: build.sh, run from the installed files, finds the kernel the tree's
# build.sh names (no rebuild). The record runs on a pseudo-terminal (script(1)), so the
# guest progress line of item 5 is checked on a real guest too: it goes through booting
# and running, and the trace bytes it shows last are at most what the trace holds (the
# workload holds its memory 3 s after its faults, so the running state outlasts the line's
# 1 s tick however fast the machine: anon-touch 16M alone ran in under a second on a fast
# one and the line went from booting to the end). The fault count is the workload's own
# (getrusage minflt in workload.out), not the code's.
. "$(dirname "$0")/../test-lib.sh"

plan 8
D=$T/dest
make -s -C "$TOP" B=build install DESTDIR="$D" PREFIX=/usr > "$T/install.log" 2>&1
ok $? "make install DESTDIR=... PREFIX=/usr"
F=$D/usr/bin/foliotrace
# the tree's kernel key (build.sh's "kernel x86_64 KEY cached" or a build's last line)
tkey=$(sh "$TOP/guest-kernel/build.sh" --arch x86_64 2>&1 | sed -n 's/^build.sh: kernel x86_64 \([0-9a-f]*\) cached$/\1/p')
ikey=$(sh "$D/usr/libexec/foliotrace/guest-kernel/build.sh" --arch x86_64 2>&1 |
	sed -n 's/^build.sh: kernel x86_64 \([0-9a-f]*\) cached$/\1/p')
[ -n "$tkey" ] && [ "$tkey" = "$ikey" ]
ok $? "the installed build.sh finds the tree's cached kernel ($tkey; installed: ${ikey:-not cached})"

unset FOLIOTRACE_HOME
mkdir "$T/away" && cd "$T/away" || exit 1
start=$(date +%s)
env -i PATH=/usr/bin:/bin HOME="$HOME" TERM=xterm FT_GUEST_TIMEOUT=600 \
	script -qec "'$F' record -o '$T/away/a.db' -- anon-touch 16M --hold 3" /dev/null < /dev/null |
	tr '\r' '\n' | sed 's/\x1b\[K//g' > "$T/rec.tty"
rc=$(grep -c '^trace 1: x86_64' "$T/rec.tty")
diag "record by the installed files: $(( $(date +%s) - start )) s"
[ "$rc" = 1 ]
ok $? "the installed foliotrace recorded anon-touch 16M from outside the tree"
dir=$(ls -d "$T/away/a.db.ctf"/*/ | head -n 1)
minflt=$(sed -n 's/^RESULT .* minflt=\([0-9]*\).*/\1/p' "$dir/workload.out")
n=$(env -i PATH=/usr/bin:/bin "$F" query "$T/away/a.db" --format csv procs |
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["comm"] == "anon-touch" { print $c["anon_faults"] }')
[ -n "$minflt" ] && [ -n "$n" ] && within_pct "$n" "$minflt" 2
ok $? "its anon-touch faults are the workload's own minflt within 2% ($n vs ${minflt:-none})"
grep -q "^build.sh: kernel x86_64 $tkey cached" "$T/rec.tty"
ok $? "  ... booted from the cached kernel $tkey"
grep -Eq '^foliotrace record: guest [0-9]+ s, booting, trace ' "$T/rec.tty"
ok $? "the guest line on the terminal: booting"
grep -Eq '^foliotrace record: guest [0-9]+ s, running, trace ' "$T/rec.tty"
ok $? "  ... running"
last=$(grep '^foliotrace record: guest' "$T/rec.tty" | tail -n 1 | sed 's/.*trace //')
bytes=$(du -sb "$dir/trace" | cut -f1)
diag "the line's last trace size: $last; the trace: $bytes bytes"
lastb=$(echo "$last" | awk '{ v = $1 + 0; u = substr($1, length($1));
	if (u == "K") v *= 1024; else if (u == "M") v *= 1048576; else if (u == "G") v *= 1073741824
	print int(v) }')
[ -n "$lastb" ] && [ "$lastb" -le $((bytes + bytes / 50)) ]
ok $? "  ... its last trace size ($last) is at most the trace's $bytes bytes (2% rounding)"

done_testing
