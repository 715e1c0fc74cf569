# SPDX-License-Identifier: MIT
# bash completion for futexsim (installed by make install as
# share/bash-completion/completions/futexsim). It asks futexsim itself for what
# exists, so it cannot drift from the program: the commands from `futexsim --help`,
# each command's options from `futexsim CMD --help`, presets and names from
# `futexsim list`. Completes: the command; run's scenario files and its --set keys
# machine=, kernel= and workload.type= with their names; result files (*.h5) for
# show, compare, explain and c2c; measurements files (*.yaml) for fit; list's kinds;
# bench futex's suites; record's tracers, then the program (a command) after --.

_futexsim_names() { # WHAT: the first column of `futexsim list WHAT`
	"${COMP_WORDS[0]}" list "$1" 2>/dev/null | awk '{print $1}'
}

_futexsim() {
	local cur prev cmd opts line words
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD - 1]}
	if [ -n "${COMP_LINE-}" ]; then
		# readline splits words at '=' (COMP_WORDBREAKS): take them from the line
		line=${COMP_LINE:0:COMP_POINT}
		read -r -a words <<<"$line"
		[[ "$line" == *" " ]] && words+=("")
		cur=${words[${#words[@]} - 1]}
		prev=${words[${#words[@]} - 2]}
	fi
	COMPREPLY=()
	if [ "$COMP_CWORD" -eq 1 ]; then
		COMPREPLY=($(compgen -W "$("${COMP_WORDS[0]}" --help 2>/dev/null |
			awk '/^Commands:/ {on = 1; next} /^$/ {on = 0} on && /^  [a-z]/ {print $1}') --help --version" -- "$cur"))
		return
	fi
	cmd=${COMP_WORDS[1]}
	case "$prev" in
	--set | -S)
		case "$cur" in
		machine=*) COMPREPLY=($(compgen -P machine= -W "$(_futexsim_names machines)" -- "${cur#machine=}")) ;;
		kernel=*) COMPREPLY=($(compgen -P kernel= -W "$(_futexsim_names kernels)" -- "${cur#kernel=}")) ;;
		workload.type=*) COMPREPLY=($(compgen -P workload.type= -W "$(_futexsim_names workloads)" -- "${cur#workload.type=}")) ;;
		*) COMPREPLY=($(compgen -W "machine= kernel= workload.type= workload.threads= run.duration= run.seed=" -- "$cur"))
		   compopt -o nospace 2>/dev/null ;;
		esac
		# readline replaces only what follows the word's last '='
		if [ -n "${COMP_LINE-}" ] && [[ "$cur" == *=* ]]; then
			COMPREPLY=("${COMPREPLY[@]#"${cur%=*}="}")
		fi
		return ;;
	-o | --out | --output | --config-dir | --keep-raw)
		COMPREPLY=($(compgen -f -- "$cur"))
		return ;;
	--tracer)
		COMPREPLY=($(compgen -W "auto strace perf" -- "$cur"))
		return ;;
	esac
	if [ "$cmd" = record ] && [[ " ${COMP_WORDS[*]:2:COMP_CWORD-2} " == *" -- "* ]]; then
		# the program recorded and its arguments
		COMPREPLY=($(compgen -c -- "$cur") $(compgen -f -- "$cur"))
		return
	fi
	if [[ "$cur" == -* ]]; then
		opts=$("${COMP_WORDS[0]}" "$cmd" --help 2>/dev/null | grep -o -- '--[a-z][a-z-]*' | sort -u)
		COMPREPLY=($(compgen -W "$opts" -- "$cur"))
		return
	fi
	case "$cmd" in
	run | fit) COMPREPLY=($(compgen -f -X '!*.y*ml' -- "$cur") $(compgen -d -- "$cur")) ;;
	show | compare | explain | c2c) COMPREPLY=($(compgen -f -X '!*.h5' -- "$cur") $(compgen -d -- "$cur")) ;;
	list) [ "$COMP_CWORD" -eq 2 ] && COMPREPLY=($(compgen -W "machines kernels workloads hashes refcounts" -- "$cur")) ;;
	bench)
		if [ "$prev" = futex ]; then
			COMPREPLY=($(compgen -W "hash wake wake-parallel requeue lock-pi" -- "$cur"))
		else
			COMPREPLY=($(compgen -W "futex" -- "$cur"))
		fi ;;
	help) COMPREPLY=($(compgen -W "run show compare explain c2c list probe record bench fit" -- "$cur")) ;;
	esac
}
complete -F _futexsim futexsim
