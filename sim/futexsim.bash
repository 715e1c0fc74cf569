# SPDX-License-Identifier: MIT
# bash completion for futexsim (installed by make install as
# share/bash-completion/completions/futexsim). It asks futexsim itself for what
# exists, so it cannot drift from the program: the commands from `futexsim --help`,
# each command's options from `futexsim CMD --help`, presets and names from
# `futexsim list`. Completes: the command; run's scenario files and names and its
# --set keys machine=, kernel= and workload.type= with their names; --machine,
# --kernel and --scenario with theirs; an option's values its --help lists as
# OPT a|b|c; result files (*.h5) for show, compare, explain and c2c; measurements
# files (*.yaml) for fit; list's kinds (from its usage line); bench futex's suites;
# record's tracers, then the program (a command) after --.

_futexsim_names() { # WHAT: the first column of `futexsim list WHAT`
	"${COMP_WORDS[0]}" list "$1" 2>/dev/null | awk '{print $1}'
}

_futexsim_options() { # CMD...: the options its --help lists (at a line's start, or --x in the
	# usage and its continuation lines, bracketed or not); a description's continuation line,
	# indented deeper, may start with an option it names
	"${COMP_WORDS[0]}" "$@" --help 2>&1 | awk '
		/^usage:/ { usage = 1 } /^$/ { usage = 0 }
		usage { for (i = 1; i <= NF; i++) { o = $i; sub(/^\[+/, "", o); sub(/[]=|].*/, "", o); if (o ~ /^--[a-z]/) print o } }
		/^ +-/ && match($0, /^ +/) && RLENGTH <= 8 { # the option part: up to the description
			head = substr($0, RLENGTH + 1); if (match(head, /   */)) head = substr(head, 1, RSTART - 1)
			n = split(head, f, /[ ,]+/); for (i = 1; i <= n; i++) { o = f[i]; sub(/[=[].*/, "", o); if (o ~ /^--[a-z]/) print o } }
		END { print "--help" }' | sort -u # every command takes --help, whether its help says so or not
}

_futexsim_values() { # CMD OPTION: the values its --help lists as OPTION a|b|c
	"${COMP_WORDS[0]}" "$1" --help 2>/dev/null | grep -o -- "$2 [a-z0-9-]*|[a-z0-9|-]*" | head -n 1 |
		sed "s/^$2 //" | tr '|' ' '
}

_futexsim() {
	local cur prev cmd opts line words i
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
	--machine) COMPREPLY=($(compgen -W "$(_futexsim_names machines)" -- "$cur") $(compgen -f -X '!*.y*ml' -- "$cur"))
		return ;;
	--kernel) COMPREPLY=($(compgen -W "$(_futexsim_names kernels)" -- "$cur") $(compgen -f -X '!*.y*ml' -- "$cur"))
		return ;;
	--scenario) COMPREPLY=($(compgen -W "$(_futexsim_names scenarios)" -- "$cur") $(compgen -f -X '!*.y*ml' -- "$cur"))
		return ;;
	--tracer)
		COMPREPLY=($(compgen -W "auto strace perf" -- "$cur"))
		return ;;
	--cache) COMPREPLY=($(compgen -d -- "$cur"))
		return ;;
	-*)
		opts=$(_futexsim_values "$cmd" "$prev")
		if [ -n "$opts" ]; then
			COMPREPLY=($(compgen -W "$opts" -- "$cur"))
			return
		fi ;;
	esac
	if [ "$cmd" = record ] && [[ " ${COMP_WORDS[*]:2:COMP_CWORD-2} " == *" -- "* ]]; then
		# the program recorded and its arguments
		COMPREPLY=($(compgen -c -- "$cur") $(compgen -f -- "$cur"))
		return
	fi
	if [[ "$cur" == -* ]]; then
		words=("$cmd")
		if [ "$cmd" = bench ]; then # a suite's own options: its -h (perf's usage)
			words=()                 # before 'futex SUITE': perf bench's own (sim/perfbench.c)
			for ((i = 2; i + 1 < COMP_CWORD; i++)); do
				[ "${COMP_WORDS[i]}" = futex ] && words=(bench futex "${COMP_WORDS[i + 1]}")
			done
			if [ ${#words[@]} -eq 0 ]; then
				COMPREPLY=($(compgen -W "--repeat --help" -- "$cur"))
				return
			fi
		fi
		COMPREPLY=($(compgen -W "$(_futexsim_options "${words[@]}")" -- "$cur"))
		return
	fi
	case "$cmd" in
	run) COMPREPLY=($(compgen -W "$(_futexsim_names scenarios)" -- "$cur") $(compgen -f -X '!*.y*ml' -- "$cur")
	     $(compgen -d -- "$cur")) ;;
	fit) COMPREPLY=($(compgen -f -X '!*.y*ml' -- "$cur") $(compgen -d -- "$cur")) ;;
	show | compare | explain | c2c) COMPREPLY=($(compgen -f -X '!*.h5' -- "$cur") $(compgen -d -- "$cur")) ;;
	list) # the kinds of list's usage line: futexsim list [--all] a|b|c
		COMPREPLY=($(compgen -W "$("${COMP_WORDS[0]}" list --help 2>/dev/null |
			awk '/^usage:/ {print $NF}' | tr '|' ' ')" -- "$cur")) ;;
	bench)
		if [ "$prev" = futex ]; then
			COMPREPLY=($(compgen -W "hash wake wake-parallel requeue lock-pi" -- "$cur"))
		elif ! [[ " ${COMP_WORDS[*]:2:COMP_CWORD-2} " == *" futex "* ]]; then
			COMPREPLY=($(compgen -W "futex" -- "$cur"))
		fi ;;
	help) COMPREPLY=($(compgen -W "run show compare explain c2c list probe record bench fit" -- "$cur")) ;;
	esac
}
complete -F _futexsim futexsim
