#!/bin/sh
# help-man.sh - the --help text of ingest and query and their man pages name the same
# options (the man page is the long form of the same interface).
. "$(dirname "$0")/../test-lib.sh"

plan 6
for cmd in ingest query; do
	"$FT" $cmd --help > "$T/help"
	ok $? "foliotrace $cmd --help exits 0"
	grep -o -- '--[a-z][a-z-]*' "$T/help" | sort -u > "$T/help.opts"
	man="$TOP/docs/man/foliotrace-$cmd.1"
	sed -n '/^\.SH OPTIONS/,/^\.SH /p' "$man" | sed 's/\\-/-/g' |
		grep -o -- '--[a-z][a-z-]*' | sort -u > "$T/man.opts"
	check "$cmd: options of --help and of the man page agree" cmp "$T/help.opts" "$T/man.opts"
	if [ $cmd = query ]; then
		for v in summary procs vmas faults orders latency sites sql; do
			grep -q "^\.B.* $v\|^\.B $v\|^\.BI sql" "$man" || echo "missing $v"
		done > "$T/views"
		check "query: every view is in the man page" test ! -s "$T/views"
	else
		# man-db is a dependency (tools/install-deps.sh): a missing man fails the test
		check "ingest: man page renders (man -l)" sh -c "man -l '$man' 2>&1 | grep -q SYNOPSIS"
	fi
done
done_testing
