#!/bin/sh
# SPDX-License-Identifier: MIT
# The layers of docs/architecture.md, checked on the #include lines:
#   sim/core/  the substrate: includes only sim/core/ (and system headers)
#   models/    the models: include models/ and sim/core/ only, and no HDF5
#   sim/       the program: anything below it
# Usage: tests/layers.sh [ROOT]   (default: .). Prints each violation as
# FILE:LINE: what it includes and why not; exits 1 when there is one.
# `tests/layers.sh --self-test` shows that it fails on a tree that breaks each
# rule and passes on one that keeps them (make check runs both).
set -eu

check() {
	root=$1
	bad=0 files=0
	for f in "$root"/sim/core/*.[ch] "$root"/models/*.[ch]; do
		[ -f "$f" ] || continue
		files=$((files + 1))
		case $f in
		"$root"/sim/core/*) layer=substrate allowed='sim/core/' ;;
		*) layer=models allowed='models/ sim/core/' ;;
		esac
		# every quoted include must start with an allowed folder; <hdf5*> is the program's
		out=$(awk -v allowed="$allowed" -v layer="$layer" -v file="${f#"$root"/}" '
			/^[ \t]*#[ \t]*include[ \t]*"/ {
				match($0, /"[^"]*"/); inc = substr($0, RSTART + 1, RLENGTH - 2)
				n = split(allowed, a, " "); ok = 0
				for (i = 1; i <= n; i++) if (index(inc, a[i]) == 1) ok = 1
				if (!ok) printf "%s:%d: includes \"%s\": the %s layer may include only %s\n", file, NR, inc, layer, allowed
			}
			/^[ \t]*#[ \t]*include[ \t]*<hdf5/ {
				printf "%s:%d: includes HDF5: only the program (sim/) writes and reads result files\n", file, NR
			}' "$f")
		if [ -n "$out" ]; then
			printf '%s\n' "$out"
			bad=$((bad + $(printf '%s\n' "$out" | wc -l)))
		fi
	done
	if [ "$files" -eq 0 ]; then
		echo "layers: no source files under $root/sim/core or $root/models"
		return 1
	fi
	echo "layers: $files files of the substrate and the models checked, $bad violations"
	[ "$bad" -eq 0 ]
}

if [ "${1:-}" = "--self-test" ]; then
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	mkdir -p "$tmp/sim/core" "$tmp/models"
	printf '#include "sim/core/error.h"\n#include <stdio.h>\n' >"$tmp/sim/core/ok.c"
	printf '#include "models/machine.h"\n#include "sim/core/engine.h"\n' >"$tmp/models/ok.c"
	check "$tmp" >/dev/null || { echo "layers self-test: a clean tree failed"; exit 1; }
	failed=0
	for case in 'sim/core/up.c:#include "models/task.h"' 'models/up.c:#include "sim/results.h"' \
		    'models/up.h:#include "sim/sim.h"' 'models/h5.c:#include <hdf5.h>' \
		    'sim/core/up.h:  #  include "sim/h5out.h"'; do
		file=${case%%:*} line=${case#*:}
		printf '%s\n' "$line" >"$tmp/$file"
		if check "$tmp" >/dev/null; then
			echo "layers self-test: '$line' in $file was not caught"; failed=1
		fi
		rm -f "$tmp/$file"
	done
	[ "$failed" -eq 0 ] && echo "layers self-test: 5 violations caught, the clean tree passes"
	exit "$failed"
fi
check "${1:-.}"
