# SPDX-License-Identifier: MIT
# Sourced by every scenarios/studies/NAME/run: where the study writes, which grid it
# runs, and the two steps of every study (sweep, then verdict). docs/studies.md.
# Environment:
#   FULL=1        the published grid (default: the small grid of `make studies`)
#   STUDY_TEST=1  the smallest grid and the shortest runs, for make check (tests/studies.py)
#   STUDIES_OUT   results root (default: ./results/studies-SIZE, SIZE = test, small or full)
#   J             runs at once (default: one per CPU); PYTHON: the interpreter with h5py
#                 and matplotlib (default /usr/bin/python3); FUTEXSIM: the binary
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
name=$(basename "$here")
PYTHON=${PYTHON:-/usr/bin/python3}
size=small
[ "${FULL:-0}" = 1 ] && size=full
[ "${STUDY_TEST:-0}" = 1 ] && size=test
out=${STUDIES_OUT:-$(pwd)/results/studies-$size}/$name

# pick TEST SMALL FULL: the value for this size
pick() {
	case $size in
	test) echo "$1" ;;
	small) echo "$2" ;;
	*) echo "$3" ;;
	esac
}

# Every run starts afresh: a study's results come from the binary that ran it.
rm -rf "$out"
mkdir -p "$out"

# sweep PART SCENARIO [scenarios/sweep options] [-- futexsim-run options]: the runs of one
# part of the study in OUT/PART (its output in OUT/PART.log)
sweep() {
	part=$1
	scenario=$2
	shift 2
	if ! "$root/scenarios/sweep" "$here/$scenario" "$out/$part" ${J:+-j "$J"} "$@" >"$out/$part.log" 2>&1; then
		echo "$name: the $part runs failed; see $out/$part.log" >&2
		exit 1
	fi
}

# The verdict, computed from the runs (analysis/studies.py), and the figure.
verdict() {
	exec "$PYTHON" "$root/analysis/study" "$name" "$out"
}
