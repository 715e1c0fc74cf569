#!/bin/sh
# SPDX-License-Identifier: MIT
# `make install` into a staging directory (DESTDIR, PREFIX=/usr/local) from a copy of
# the built tree (nothing rebuilds: the copy keeps the objects' times and, through
# REVISION, the revision), the copy deleted, then the installed futexsim run from
# another directory: every installed command's documented examples (the EXAMPLES of
# each installed man page, or of --help, run in order in a fresh directory with the
# installed bin/ first on PATH; each must exit 0), and it must find the installed
# presets by name (one that exists only in the installed copy), never the build
# tree's configs/; FUTEXSIM_PATH and --config-dir add directories searched first,
# an unknown preset names every directory tried, `list` sees them; scenarios run and
# list by name; the installed analysis tools find their data; a copied source tree's
# bin/futexsim finds its own files; the man pages name the installed directories and
# end with SEE ALSO; `make uninstall` removes everything. Run by make check (MAKE: the make to use); prints SKIP, loudly,
# when something it needs is missing.
set -u

here=$(cd "$(dirname "$0")/.." && pwd)
make=${MAKE:-make}
fail=0

skip() {
	echo "install.sh: SKIP: $*"
	echo "install.sh: ********** the install test did NOT run **********"
	exit 0
}
check() { # description, then a command that must succeed
	what=$1
	shift
	if "$@"; then echo "ok: $what"; else echo "FAILED: $what"; fail=1; fi
}

command -v install >/dev/null 2>&1 || skip "no install(1)"
command -v mktemp >/dev/null 2>&1 || skip "no mktemp(1)"
[ -r /proc/self/exe ] || skip "no /proc/self/exe (the installed binary finds its presets through it)"

tmp=$(mktemp -d) || skip "mktemp -d failed"
trap 'rm -rf "$tmp"' EXIT
stage=$tmp/stage
prefix=/usr/local
bin=$stage$prefix/bin/futexsim
share=$stage$prefix/share/futexsim

# the tree built (in make check it is already), then copied without git and what runs
# leave behind, installed from the copy and the copy deleted: the installed files can
# need nothing of a source tree
if ! (cd "$here" && $make --no-print-directory -s all) >"$tmp/install.log" 2>&1; then
	cat "$tmp/install.log"
	echo "FAILED: make all in $here"
	exit 1
fi
rev=$("$here/bin/futexsim" --version | sed -n 's/^futexsim .* (git \(.*\))$/\1/p')
src=$tmp/src
# the build directory in use is kept (make sanitize's is build-san: BUILD_DIR from the
# Makefile), the others and every build's tests and mutants left out
build_dir=${BUILD_DIR:-build}
excl=
for d in build build-san build-fuzz build-ref; do
	[ "$d" = "$build_dir" ] || excl="$excl --exclude=./$d"
done
mkdir -p "$src" && (cd "$here" && tar cf - --exclude=./.git --exclude=./results $excl --exclude="./$build_dir/tests" \
	--exclude="./$build_dir/protocol-mutants" --exclude="./$build_dir/sched-mutants" .) | (cd "$src" && tar xpf -) ||
	skip "cannot copy the tree into $src"
if ! (cd "$src" && $make --no-print-directory -s install DESTDIR="$stage" PREFIX="$prefix" REVISION="$rev") \
	>"$tmp/install.log" 2>&1; then
	cat "$tmp/install.log"
	echo "FAILED: make install DESTDIR=$stage PREFIX=$prefix from a copy of the tree"
	exit 1
fi
check "make install from the copy rebuilt nothing (no CC or LD line)" \
	sh -c "! grep -q '^  \(CC\|LD\|CC+LD\) ' '$tmp/install.log'"
check "the installed futexsim names the tree's revision ($rev)" \
	sh -c "'$stage$prefix/bin/futexsim' --version | grep -q '(git $rev)\$'"
rm -rf "$src"
check "the copy is gone" test ! -e "$src"
check "the binary, the tools and the data are installed" \
	test -x "$bin" -a -x "$stage$prefix/bin/futexsim-validate" -a -f "$share/configs/machines/small-1node.yaml" \
	-a -f "$share/configs/kernels/linux-6.18.yaml" -a -f "$share/scenarios/quickstart.yaml" \
	-a -f "$share/analysis/results_io.py" -a -e "$stage$prefix/bin/futexsim-plot"

# a preset only the installed copy has: found by name proves the installed configs are read
sed 's/^name:.*/name: installed-only/' "$share/configs/machines/small-1node.yaml" >"$share/configs/machines/installed-only.yaml"
mkdir -p "$tmp/elsewhere" "$tmp/mine/machines" "$tmp/other/kernels"
sed 's/^name:.*/name: my-box/' "$share/configs/machines/small-1node.yaml" >"$tmp/mine/machines/my-box.yaml"
sed 's/^name:.*/name: my-kernel/' "$share/configs/kernels/linux-6.18.yaml" >"$tmp/other/kernels/my-kernel.yaml"
cp "$share/scenarios/quickstart.yaml" "$tmp/elsewhere/q.yaml"
short="--set run.duration=100us --set run.warmup=20us --no-output"
cd "$tmp/elsewhere" || exit 1

run() { # output in $tmp/out, status returned
	"$@" >"$tmp/out" 2>&1
}
check "installed futexsim runs a scenario by preset names from another directory" \
	run env -u FUTEXSIM_CONFIGS -u FUTEXSIM_PATH "$bin" run "$share/scenarios/quickstart.yaml" $short
check "... and a preset only the installed configs hold" \
	run env -u FUTEXSIM_CONFIGS -u FUTEXSIM_PATH "$bin" run q.yaml --set machine=installed-only --set kernel=linux-6.17 $short
run env -u FUTEXSIM_CONFIGS -u FUTEXSIM_PATH "$bin" run q.yaml --set kernel=no-such-kernel $short
check "an unknown preset names the installed directory (exit 3)" test $? -eq 3
check "... and not the build tree's configs" sh -c "grep -q 'looked in $share/configs/kernels)' '$tmp/out' && ! grep -q '$here/configs' '$tmp/out'"

# scenarios by name, from the installed scenarios/ and from DIR/scenarios of FUTEXSIM_PATH
check "run NAME runs the installed scenario of that name from another directory" \
	sh -c "env -u FUTEXSIM_CONFIGS -u FUTEXSIM_PATH -u FUTEXSIM_DATA '$bin' run quickstart $short >'$tmp/out' 2>&1 && grep -q '^# futexsim .*: scenario quickstart, machine small-1node' '$tmp/out'"
check "... and one in a subdirectory (workloads/mutex)" \
	run env -u FUTEXSIM_CONFIGS -u FUTEXSIM_PATH -u FUTEXSIM_DATA "$bin" run workloads/mutex $short
mkdir -p "$tmp/mine/scenarios"
sed 's/^name:.*/name: mine-only/' "$share/scenarios/quickstart.yaml" >"$tmp/mine/scenarios/mine-only.yaml"
check "... and one only in DIR/scenarios of FUTEXSIM_PATH" \
	sh -c "env FUTEXSIM_PATH='$tmp/mine' '$bin' run mine-only $short >'$tmp/out' 2>&1 && grep -q 'scenario mine-only' '$tmp/out'"
run env -u FUTEXSIM_PATH "$bin" run no-such-scenario $short
check "an unknown scenario name (exit 3) names the installed scenarios directory" \
	sh -c "test $? -eq 3 && grep -q 'looked in $share/scenarios)' '$tmp/out'"
check "list scenarios: the installed ones by name, with FUTEXSIM_PATH's" \
	sh -c "env FUTEXSIM_PATH='$tmp/mine' '$bin' list scenarios >'$tmp/out' && grep -q '^quickstart  *8 threads' '$tmp/out' && grep -q '^workloads/mutex ' '$tmp/out' && grep -q '^claims/refcount ' '$tmp/out' && grep -q '^mine-only ' '$tmp/out'"
check "list kernels: no part that cannot run (futex-costs, hash-costs); --all marks them" \
	sh -c "'$bin' list kernels >'$tmp/out' && grep -q '^linux-6.18 ' '$tmp/out' && ! grep -q 'costs' '$tmp/out' && '$bin' list --all kernels | grep -q '^futex-costs  *(a part other presets inherit'"
check "the docs are installed" \
	test -f "$stage$prefix/share/doc/futexsim/README.md" -a -f "$stage$prefix/share/doc/futexsim/docs/scenario.md"

# the analysis tools find their data (points, calibration spec, claims' scenarios) in the
# installed data directory, from another directory
check "futexsim-validate finds the installed points and their scenarios" \
	sh -c "env -u FUTEXSIM_DATA '$stage$prefix/bin/futexsim-validate' --table e5-v11-2025 --series before-series/shared --set run.duration=100us --set run.warmup=20us -j 1 --out '$tmp/val' >'$tmp/out' 2>&1 && grep -q '^e5-v11-2025' '$tmp/out' && test -s '$tmp/val/points.csv'"
check "futexsim-calibrate --dry-run finds the installed spec, points and presets" \
	sh -c "env -u FUTEXSIM_DATA '$stage$prefix/bin/futexsim-calibrate' --dry-run --spec analysis/calibration-hash.yaml -j 1 >'$tmp/out' 2>&1 && grep -q 'loss' '$tmp/out'"
check "futexsim-claims finds the installed claims' scenarios" \
	sh -c "test ! -e scenarios && env -u FUTEXSIM_DATA '$stage$prefix/bin/futexsim-claims' --only refcount --duration 100us >'$tmp/out' 2>&1 && grep -q '^refcount  *holds' '$tmp/out'"

# a source build moved (or copied) elsewhere finds its own tree's presets and scenarios
# through its bin/futexsim's place, not the path it was built in
mkdir -p "$tmp/moved/bin"
cp "$here/bin/futexsim" "$tmp/moved/bin/" && cp -R "$here/configs" "$here/scenarios" "$tmp/moved/"
sed 's/^name:.*/name: moved-only/' "$share/configs/machines/small-1node.yaml" >"$tmp/moved/configs/machines/moved-only.yaml"
check "a moved source tree's bin/futexsim lists its own presets" \
	sh -c "env -u FUTEXSIM_CONFIGS -u FUTEXSIM_PATH -u FUTEXSIM_DATA '$tmp/moved/bin/futexsim' list machines | grep -q '^moved-only '"
run env -u FUTEXSIM_CONFIGS -u FUTEXSIM_PATH -u FUTEXSIM_DATA "$tmp/moved/bin/futexsim" run quickstart --set kernel=no-such $short
check "... and runs its scenarios by name, its presets looked for in it alone" \
	sh -c "grep -q 'looked in $tmp/moved/configs/kernels)' '$tmp/out' && ! grep -q '$here' '$tmp/out'"

# FUTEXSIM_PATH, then --config-dir before it; every directory listed when a name is unknown
check "FUTEXSIM_PATH adds directories (an empty one and one with machines/)" \
	run env FUTEXSIM_PATH="$tmp/nowhere:$tmp/mine" "$bin" run q.yaml --set machine=my-box $short
check "--config-dir adds a directory, searched with FUTEXSIM_PATH's" \
	run env FUTEXSIM_PATH="$tmp/mine" "$bin" run q.yaml --config-dir "$tmp/other" --set machine=my-box \
	--set kernel=my-kernel $short
run env FUTEXSIM_PATH="$tmp/nowhere:$tmp/mine" "$bin" run q.yaml --config-dir "$tmp/other" --set machine=my-bx $short
check "an unknown machine lists every directory in search order, with the nearest name" \
	grep -q "unknown machine preset 'my-bx' (did you mean 'my-box'? .*looked in $tmp/other/machines, $tmp/nowhere/machines, $tmp/mine/machines, $share/configs/machines)" "$tmp/out"
check "list machines: the installed and the added presets, one line each" \
	sh -c "env FUTEXSIM_PATH='$tmp/mine' '$bin' list machines >'$tmp/out' && grep -q '^installed-only  *Desktop' '$tmp/out' && grep -q '^my-box  *Desktop' '$tmp/out' && grep -q '^e5-2650-2s ' '$tmp/out'"
check "list kernels --config-dir" \
	sh -c "'$bin' list kernels --config-dir '$tmp/other' >'$tmp/out' && grep -q '^my-kernel ' '$tmp/out' && grep -q '^linux-6.18 ' '$tmp/out'"

# man pages, one per command, rendered by man -l (help2man builds them at install)
if command -v help2man >/dev/null 2>&1 && command -v man >/dev/null 2>&1; then
	pages="futexsim futexsim-run futexsim-bench futexsim-show futexsim-compare futexsim-explain futexsim-c2c
		futexsim-list futexsim-probe futexsim-record futexsim-fit futexsim-validate futexsim-calibrate futexsim-claims"
	if /usr/bin/python3 -c 'import h5py, numpy, matplotlib' 2>/dev/null; then
		pages="$pages futexsim-collect futexsim-plot futexsim-study"
	else
		echo "install.sh: SKIP: the man pages of futexsim-collect, -plot and -study: /usr/bin/python3 lacks h5py, numpy or matplotlib"
	fi
	for page in $pages; do
		check "man -l renders $page(1), with SEE ALSO" \
			sh -c "MANWIDTH=80 man -l '$stage$prefix/share/man/man1/$page.1' 2>/dev/null >'$tmp/man' && grep -q 'usage' '$tmp/man' && grep -q '^SEE ALSO' '$tmp/man' && grep -q 'futexsim-run(1)' '$tmp/man'"
	done
	check "futexsim(1) names the installed configs directory, as the installed --help does" \
		sh -c "sed 's/\\\\-/-/g' '$stage$prefix/share/man/man1/futexsim.1' >'$tmp/man' && grep -q '$prefix/share/futexsim/configs' '$tmp/man' && ! grep -q '$here' '$tmp/man' && ! grep -q '$src' '$tmp/man'"
else
	echo "install.sh: man pages not checked: help2man or man is missing (apt-get install help2man man-db)"
fi

# every installed command's documented examples, from the installed pages: the EXAMPLES
# of each man page (its "  $ COMMAND" lines, as man renders them), or without help2man
# the Examples: of the command's --help. Each command's run in order, by sh, in a fresh directory of its own, the
# installed bin/ first on PATH and no FUTEXSIM_* variable set: each must exit 0. Short
# variants (long examples): probe -o measures for 20 s by default, run here with
# --seconds 1. Skipped, loudly: record's without strace or perf, the Python tools'
# without /usr/bin/python3 and h5py, numpy and matplotlib. futexsim-study's use is the
# installed study below (its script runs it).
man1=$stage$prefix/share/man/man1
examples_of() { # PAGE: its examples, one a line
	if [ -f "$man1/$1.1" ] && command -v man >/dev/null 2>&1; then
		LC_ALL=C MANWIDTH=1000 man -l "$man1/$1.1" 2>/dev/null |
			awk '/^EXAMPLES/ { on = 1; next } /^[^ ]/ { on = 0 } on && /^ +\$ / { sub(/^ +\$ /, ""); print }'
	else
		if [ -x "$stage$prefix/bin/$1" ]; then "$stage$prefix/bin/$1" --help; else "$bin" "${1#futexsim-}" --help; fi 2>&1 |
			awk '/^Examples[ :(]/ { on = 1; next } /^[^ ]/ { on = 0 } on && /^ +\$ / { sub(/^ +\$ /, ""); print }'
	fi
}
pages="futexsim futexsim-run futexsim-bench futexsim-show futexsim-compare futexsim-explain futexsim-c2c futexsim-list
	futexsim-probe futexsim-record futexsim-fit futexsim-validate futexsim-calibrate futexsim-claims"
if /usr/bin/python3 -c 'import h5py, numpy, matplotlib' 2>/dev/null; then
	pages="$pages futexsim-collect futexsim-plot"
else
	echo "install.sh: SKIP: the examples of futexsim-collect and -plot: /usr/bin/python3 lacks h5py, numpy or matplotlib"
fi
nexamples=0
examples_ok=0
for page in $pages; do
	if [ "$page" = futexsim-record ] && ! command -v strace >/dev/null 2>&1 && ! command -v perf >/dev/null 2>&1; then
		echo "install.sh: SKIP: the examples of futexsim-record: neither strace nor perf is installed"
		continue
	fi
	examples_of "$page" >"$tmp/examples"
	if ! [ -s "$tmp/examples" ]; then
		echo "FAILED: $page documents no example (an Examples: section of '  \$ COMMAND' lines in its --help)"
		examples_ok=1
		continue
	fi
	mkdir -p "$tmp/ex/$page"
	while IFS= read -r example; do
		case $example in
		"futexsim probe -o myhost.yaml") run_as="$example --seconds 1" ;; # 20 s by default
		*) run_as=$example ;;
		esac
		nexamples=$((nexamples + 1))
		if ! (cd "$tmp/ex/$page" && env -u FUTEXSIM_CONFIGS -u FUTEXSIM_PATH -u FUTEXSIM_DATA \
			PATH="$stage$prefix/bin:$PATH" timeout 300 sh -c "$run_as" </dev/null >"$tmp/out" 2>&1); then
			echo "FAILED: $page's example exits non-zero: $run_as"
			tail -n 5 "$tmp/out" | sed 's/^/    /'
			examples_ok=1
		fi
	done <"$tmp/examples"
done
check "the installed commands' $nexamples documented examples exit 0 from another directory, the source tree gone" \
	test "$examples_ok" -eq 0

# a study from the installed tree, its sweep finding the installed futexsim on PATH
if command -v parallel >/dev/null 2>&1 && [ -x /usr/bin/python3 ]; then
	check "an installed study runs with the installed futexsim on PATH (scenarios/sweep's default)" \
		sh -c "cd '$tmp/elsewhere' && PATH='$stage$prefix/bin':\$PATH STUDY_TEST=1 STUDIES_OUT='$tmp/studies' \
			'$share/scenarios/studies/node-div/run' | grep -q '^node-div ' && test -f '$tmp/studies/node-div/node-div.png'"
else
	echo "install.sh: installed study not checked: GNU parallel or /usr/bin/python3 is missing"
fi

# bash completion: loads, and completes from the installed futexsim's own lists
comp=$stage$prefix/share/bash-completion/completions/futexsim
if command -v bash >/dev/null 2>&1; then
	check "the bash completion loads and completes commands, list's kinds and kernel presets" \
		bash -c ". '$comp' && complete -p futexsim >/dev/null &&
			c() { COMP_WORDS=(\"\$@\"); COMP_CWORD=\$((\${#COMP_WORDS[@]} - 1)); _futexsim; echo \"\${COMPREPLY[*]}\"; } &&
			[ \"\$(c '$bin' li)\" = list ] && [ \"\$(c '$bin' list ma)\" = machines ] &&
			c '$bin' run --set kernel=linux-6.1 | grep -q 'kernel=linux-6.18 '"
	# compl WORD...: what completion offers for the last word (one a line), from elsewhere
	printf '%s\n' ". '$comp'" 'COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _futexsim' \
		'printf "%s\n" "${COMPREPLY[@]}"' >"$tmp/compl.sh"
	compl() { (cd "$tmp/elsewhere" && bash "$tmp/compl.sh" "$bin" "$@"); }
	"$bin" list machines | awk '{print $1}' >"$tmp/want"
	compl bench futex hash --machine '' >"$tmp/got"
	check "completion: bench futex hash --machine <TAB> offers the machine presets (and .yaml files, not 'futex')" \
		sh -c "grep -v '\.yaml\$' '$tmp/got' | cmp -s '$tmp/want' -"
	check "completion: c2c --sort <TAB> offers the sort keys (not files)" \
		test "$(compl c2c --sort '' | tr '\n' ' ')" = "transfers remote waiting "
	check "completion: list <TAB> offers every list (scenarios, spinlocks)" \
		test "$(compl list '' | tr '\n' ' ')" = "machines kernels scenarios workloads hashes refcounts spinlocks "
	check "completion: run qu<TAB> offers the scenario by name" test "$(compl run qu)" = quickstart
	# every option completion offers, for every command (from futexsim --help) and every
	# bench suite, is one the command's parser accepts: given it, then a value, then an
	# option no parser has, the command's complaint (parsers read every word before they
	# act, so nothing runs) is about anything but the offered option being unknown
	offered_ok=0
	cmds=$("$bin" --help | awk '/^Commands:/ {on = 1; next} /^$/ {on = 0} on && /^  [a-z]/ {print $1}')
	[ -n "$cmds" ] || { echo "FAILED: no command found in futexsim --help"; offered_ok=1; }
	for words in $(printf '%s\n' $cmds | grep -vx help) bench,futex,hash bench,futex,wake \
		bench,futex,wake-parallel bench,futex,requeue bench,futex,lock-pi; do
		words=$(echo "$words" | tr ',' ' ')
		opts=$(compl $words --)
		[ -n "$opts" ] || { echo "FAILED: completion offers no option for '$words'"; offered_ok=1; }
		for o in $opts; do
			(cd "$tmp/elsewhere" && timeout 60 "$bin" $words "$o" 1 --zz-no-parser-has-it </dev/null >"$tmp/out" 2>&1)
			if grep -q -e "unknown option '$o'" -e "unexpected argument '$o'" -e "unexpected '$o'" \
				-e "unknown option \`$o'" -e "unknown option \`${o#--}'" -e "unknown switch \`${o#-}'" "$tmp/out"; then
				echo "FAILED: completion offers '$words $o', which futexsim rejects: $(head -n 1 "$tmp/out")"
				offered_ok=1
			fi
		done
	done
	check "completion offers only options the parsers accept (every command, every bench suite)" test "$offered_ok" -eq 0
else
	echo "install.sh: bash completion not checked: no bash"
fi

cd "$here" || exit 1
if ! $make --no-print-directory -s uninstall DESTDIR="$stage" PREFIX="$prefix" >"$tmp/install.log" 2>&1; then
	cat "$tmp/install.log"
	fail=1
fi
check "make uninstall removes every installed file" \
	test -z "$(find "$stage" -type f -o -type l)"
[ "$fail" -eq 0 ] && echo "install.sh: all passed"
exit "$fail"
