#!/bin/sh
# hostile-full.sh - a full disk (issue 12 item 8): replay storing its runs and report
# writing its page on a filesystem with 0..40K free fail with one line whose first cause is
# the disk ("database or disk is full", "No space left on device"), exit 1, the database
# byte-identical, no journal or temporary left.
# The full filesystem is a small tmpfs mounted in a private mount namespace
# (unshare --map-root-user --mount): works as root (as tests run here) and, without root,
# wherever unprivileged user namespaces are enabled; elsewhere this test fails, it does not
# skip. Fixture: SYNTHETIC tests/data/synthetic-anon-tiny.
. "$(dirname "$0")/../test-lib.sh"
. "$(dirname "$0")/trace-lib.inc"

FREE_KB="0 4 8 12 16 20 24 32 40"	# free space left on the tmpfs, KiB
plan 41

GOOD="$T/good.db"
"$FT" ingest -q -o "$GOOD" "$TINY" && "$FT" replay "$GOOD" -P order0 > /dev/null
ok $? "prepare a database with an order0 run"

mkdir -p "$T/mnt" "$T/res"
# in the namespace: for each free size, a fresh tmpfs holding the database and a filler
cat > "$T/inner.sh" <<INNER
set -u
for kb in $FREE_KB; do
	mount -t tmpfs -o size=256k tmpfs "$T/mnt" || exit 3
	cp "$GOOD" "$T/mnt/k.db"
	avail=\$(df -k --output=avail "$T/mnt" | tail -1)
	dd if=/dev/zero of="$T/mnt/fill" bs=1k count=\$((avail - kb)) 2>/dev/null
	timeout 60 "$FT" replay "$T/mnt/k.db" -P mcpage:2 -P mthp:16K,64K > /dev/null \
		2> "$T/res/replay.\$kb.err"
	echo \$? > "$T/res/replay.\$kb.rc"
	cmp -s "$T/mnt/k.db" "$GOOD"; echo \$? > "$T/res/replay.\$kb.cmp"
	"$FT" query "$T/mnt/k.db" --format csv sql "SELECT count(*) FROM replay_run" |
		tail -1 > "$T/res/replay.\$kb.runs"
	rm -f "$T/mnt/fill.small"
	timeout 60 "$FT" report "$T/mnt/k.db" -o "$T/mnt/out.html" > /dev/null \
		2> "$T/res/report.\$kb.err"
	echo \$? > "$T/res/report.\$kb.rc"
	ls -a "$T/mnt" | sort | tr '\n' ' ' > "$T/res/ls.\$kb"
	umount "$T/mnt"
done
INNER
unshare --map-root-user --mount sh "$T/inner.sh"
ok $? "small tmpfs mounts in a private mount namespace"

for kb in $FREE_KB; do
	rc=$(cat "$T/res/replay.$kb.rc" 2>/dev/null)
	err=$(cat "$T/res/replay.$kb.err" 2>/dev/null)
	if [ "$rc" = 0 ]; then
		# enough room after all: it must then have stored both runs, silently
		ok 0 "replay with ${kb}K free: stored (exit 0)"
		ok $([ -z "$err" ]; echo $?) "  ... nothing on stderr"
		ok $([ "$(cat "$T/res/replay.$kb.runs")" = 4 ]; echo $?) \
			"  ... its three runs (order0 baseline, mcpage:2, mthp) stored beside the first"
		[ "$(cat "$T/res/replay.$kb.runs")" = 4 ] || diag "runs: $(cat "$T/res/replay.$kb.runs")"
	else
		ok $([ "$rc" = 1 ]; echo $?) "replay with ${kb}K free: exit 1 (got $rc)"
		[ "$(echo "$err" | wc -l)" = 1 ] &&
			echo "$err" | grep -Eq '^foliotrace: [^:]*: (database or disk is full|.*No space left on device)'
		ok $? "  ... one line, the disk its first cause: $err"
		ok "$(cat "$T/res/replay.$kb.cmp")" "  ... database byte-identical"
	fi
	rc=$(cat "$T/res/report.$kb.rc" 2>/dev/null)
	err=$(cat "$T/res/report.$kb.err" 2>/dev/null)
	if [ "$rc" = 0 ]; then
		grep -q "out.html" "$T/res/ls.$kb"
	else
		[ "$rc" = 1 ] && [ "$(echo "$err" | wc -l)" = 1 ] &&
			echo "$err" | grep -q 'No space left on device$' &&
			! grep -q 'out.html' "$T/res/ls.$kb"
	fi
	ok $? "report with ${kb}K free: written or one line naming the disk (rc $rc: $err)"
done
# the test tests a full disk only if some sizes really were too small: at least one replay
# and one report must have failed for want of space (0K free always is)
full_replays=$(cat "$T"/res/replay.*.rc 2>/dev/null | grep -c '^1$')
full_reports=$(cat "$T"/res/report.*.rc 2>/dev/null | grep -c '^1$')
ok $([ "$full_replays" -ge 1 ]; echo $?) "the disk was full for $full_replays of the replays"
ok $([ "$full_reports" -ge 1 ]; echo $?) "the disk was full for $full_reports of the reports"
# neither journal nor temporary is ever left
left=$(cat "$T"/res/ls.* | tr ' ' '\n' | grep -e '-journal$' -e 'tmp-' | sort -u | tr '\n' ' ')
ok $([ -z "$left" ]; echo $?) "nothing left behind${left:+: $left}"
done_testing
