#!/bin/sh
# completion.sh - contrib/completion/foliotrace.bash completes subcommands, views, policies
# and options (options come from each subcommand's --help, policies from
# `foliotrace replay --list-policies`, which prints the policy table).
. "$(dirname "$0")/../test-lib.sh"

plan 9
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

# --list-policies against the policy table of docs/policies.md: the first column's templates,
# in order (adding a policy is a row there and a row in replay/policy.c; nothing else lists)
sed -n '/^## Policies/,/^## /p' "$TOP/docs/policies.md" | sed -n 's/^| `\([^`]*\)`.*/\1/p' \
	> "$T/want"
"$FT" replay --list-policies > "$T/got"
check "replay --list-policies: exit 0, the templates of docs/policies.md, in order" \
	sh -c "test -s '$T/want' && cmp '$T/got' '$T/want'"
check "docs/policies.md lists order0, mcpage:N and mthp:SIZE[,SIZE...]" \
	sh -c "head -3 '$T/want' | tr '\n' ' ' | grep -qxF 'order0 mcpage:N mthp:SIZE[,SIZE...] '"
# the man page's --policy list names the same policies, in the same order
sed -n '/^\.BI "\\-P, \\-\\-policy " P/,/^\.TP/p' "$TOP/docs/man/foliotrace-replay.1" |
	sed -n 's/^\.B[IR] \([a-z][a-z0-9]*\)\([ :[]\|$\).*/\1/p' > "$T/man"
sed 's/[:[].*//' "$T/got" > "$T/got-names"
check "docs/man/foliotrace-replay.1: its --policy list names the table's policies, in order" \
	sh -c "test -s '$T/man' && cmp '$T/man' '$T/got-names'"
comp foliotrace replay db --policy '' > "$T/names"
check "policies: 'replay --policy' offers one name per template" \
	sh -c "test \$(wc -l < '$T/names') = \$(wc -l < '$T/got') && grep -qx order0 '$T/names' && grep -qx adaptive '$T/names'"
[ "$(comp foliotrace compare db --baseline mc)" = "mcpage:" ]
ok $? "policies: 'compare --baseline mc' -> mcpage: (a name that needs arguments)"
done_testing
