#!/bin/sh
# completion.sh - contrib/completion/foliotrace.bash completes subcommands, views, policies
# and options (options come from each subcommand's --help, policies from
# `foliotrace replay --list-policies`, which prints the policy table).
. "$(dirname "$0")/../test-lib.sh"

plan 8
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

# the six policies of docs/policies.md, as templates (name, then ':' and its arguments)
printf '%s\n' order0 mcpage:N 'mthp:SIZE[,SIZE...]' faultaround:N thp 'adaptive[:max=SIZE]' \
	> "$T/want"
"$FT" replay --list-policies > "$T/got"
check "replay --list-policies: exit 0, one template per line, table order" cmp "$T/got" "$T/want"
for name in $(sed 's/[[:punct:]].*//' "$T/got"); do
	grep -q "^| \`$name[:\`\[]" "$TOP/docs/policies.md" || echo "$name"
done > "$T/undocumented"
check "every listed policy has a row in docs/policies.md" test ! -s "$T/undocumented"
[ "$(comp foliotrace replay db --policy '' | tr '\n' ' ')" = \
	"order0 mcpage: mthp: faultaround: thp adaptive " ]
ok $? "policies: 'replay --policy' offers every name, with ':' where arguments are needed"
[ "$(comp foliotrace compare db --baseline mc)" = "mcpage:" ]
ok $? "policies: 'compare --baseline mc' -> mcpage:"
done_testing
