#!/bin/sh
# Turn schema/NNN-*.sql into a C header: ft_schema_migrations[i] is the SQL that brings a
# database from user_version i to i+1. Files must be numbered 001, 002, ... without gaps.
set -eu
echo "/* Generated from the schema/NNN-name.sql files by schema/embed.sh; do not edit. */"
echo "static const char *const ft_schema_migrations[] = {"
n=0
for f in "$@"; do
	n=$((n + 1))
	want=$(printf '%03d' "$n")
	case "$(basename "$f")" in
	"$want"-*) ;;
	*) echo "schema/embed.sh: expected $want-*.sql, got $f" >&2; exit 1 ;;
	esac
	printf '\t/* %s */\n' "$(basename "$f")"
	sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/\t"/' -e 's/$/\\n"/' "$f"
	printf '\t,\n'
done
echo "};"
echo "#define FT_SCHEMA_VERSION $n"
