# bash completion for foliotrace. Install: source this file, or copy it to
# /usr/share/bash-completion/completions/foliotrace. Subcommands come from
# `foliotrace --list-commands`, policies from `foliotrace replay --list-policies`, options
# from each subcommand's --help.

# Policy names from the templates ("mcpage:N" -> "mcpage:", "adaptive[:max=SIZE]" ->
# "adaptive"): a name that needs arguments is offered with its colon.
_foliotrace_policies()
{
	foliotrace replay --list-policies 2>/dev/null | sed 's/\[.*//; s/:.*/:/'
}

_foliotrace()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
	local cmd=${COMP_WORDS[1]}

	if [ "$COMP_CWORD" -eq 1 ]; then
		COMPREPLY=($(compgen -W "$(foliotrace --list-commands 2>/dev/null)" -- "$cur"))
		return
	fi
	case "$prev" in
	--arch) COMPREPLY=($(compgen -W "x86_64 arm64" -- "$cur")); return ;;
	--policy|--baseline|-P)
		COMPREPLY=($(compgen -W "$(_foliotrace_policies)" -- "$cur"))
		# "mcpage:" wants its argument typed right after the colon
		[ ${#COMPREPLY[@]} = 1 ] && [[ ${COMPREPLY[0]} == *: ]] && compopt -o nospace 2>/dev/null
		return ;;
	--format) COMPREPLY=($(compgen -W "table csv json" -- "$cur")); return ;;
	--frag) COMPREPLY=($(compgen -W "none buddyinfo" -- "$cur")); return ;;
	--libvirt) COMPREPLY=($(compgen -W "qemu:///system qemu:///session" -- "$cur")); return ;;
	-o|--output|--out) COMPREPLY=($(compgen -f -- "$cur")); return ;;
	esac
	case "$cmd" in
	guest)
		[ "$COMP_CWORD" -eq 2 ] &&
			{ COMPREPLY=($(compgen -W "build rootfs run replay knob" -- "$cur")); return; } ;;
	query)
		if [[ $cur != -* ]] && [ "$COMP_CWORD" -ge 3 ]; then
			COMPREPLY=($(compgen -W "summary procs vmas faults orders latency sql" -- "$cur"))
			return
		fi ;;
	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$(foliotrace "$cmd" --help 2>&1 | grep -o -- '--[a-z][a-z-]*' | sort -u)" -- "$cur"))
	else
		COMPREPLY=($(compgen -f -- "$cur"))
	fi
}
complete -F _foliotrace foliotrace
