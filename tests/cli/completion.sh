#!/bin/sh
# completion.sh - contrib/completion/foliotrace.bash completes subcommands, views, policies
# and options (options come from each subcommand's --help).
. "$(dirname "$0")/../test-lib.sh"

plan 4
command -v bash > /dev/null
ok $? "bash is available"
comp() { # comp WORDS...: what the completion offers for the last word
	PATH="$TOP/build:$PATH" bash -c '
		. "$1/contrib/completion/foliotrace.bash"; shift
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _foliotrace
		printf "%s\n" "${COMPREPLY[@]}"' sh "$TOP" "$@"
}
[ "$(comp foliotrace re | tr '\n' ' ')" = "record replay report " ]
ok $? "subcommands: 'foliotrace re' -> record replay report"
comp foliotrace query db.db su | grep -qx summary
ok $? "query views: 'su' -> summary"
comp foliotrace replay db --pol | grep -qx -- --policy
ok $? "options from --help: 'replay --pol' -> --policy"
done_testing
