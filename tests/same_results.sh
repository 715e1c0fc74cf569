#!/bin/sh
# SPDX-License-Identifier: MIT
# make same-results [REF=rev]: shows that this tree's build gives the same results
# as revision REF's (default HEAD, i.e. the last commit) on the regression scenarios:
# every scenario under scenarios/ (quickstart, bench, claims, validation, workloads)
# and every point of tests/regression/points.tsv, each shortened to 2 ms + 0.5 ms of
# warm-up, are run by both builds and their result files compared with
# tests/h5same.py (every dataset and attribute but the wall clock, start time,
# command line, revision, and the engine's event count and last event time). Exit 1 on
# any difference. An optimisation or a
# restructuring must pass it against the commit before it; a model change fails it
# on purpose, in a commit of its own.
set -eu
ref=${1:-HEAD}
python=${PYTHON:-/usr/bin/python3}
top=$(pwd)
work=build-ref
rm -rf "$work"
mkdir -p "$work/src" "$work/out"
git archive "$ref" | tar -x -C "$work/src"
echo "building $ref ($(git rev-parse --short=12 "$ref")) in $work/src"
make -s -C "$work/src" bin/futexsim >/dev/null
make -s bin/futexsim >/dev/null
old=$work/src/bin/futexsim new=bin/futexsim
short="--set run.duration=2ms --set run.warmup=500us"

n=0 failed=0
# compare NAME SCENARIO [--set ...]
compare() {
	name=$1; shift
	n=$((n + 1))
	a=$work/out/$n-old.h5 b=$work/out/$n-new.h5
	if ! "$old" run "$@" $short -o "$a" >/dev/null 2>"$work/out/$n-old.err"; then
		echo "FAIL $name: the $ref build failed: $(tail -n 1 "$work/out/$n-old.err")"; failed=$((failed + 1)); return
	fi
	if ! "$new" run "$@" $short -o "$b" >/dev/null 2>"$work/out/$n-new.err"; then
		echo "FAIL $name: this build failed: $(tail -n 1 "$work/out/$n-new.err")"; failed=$((failed + 1)); return
	fi
	if "$python" tests/h5same.py "$a" "$b" >"$work/out/$n.diff"; then
		echo "same $name"
	else
		echo "DIFFERENT $name:"; sed 's/^/    /' "$work/out/$n.diff" | head -n 20; failed=$((failed + 1))
	fi
}

for s in scenarios/quickstart.yaml scenarios/e5-2650-hashbench.yaml scenarios/bench/*.yaml \
	 scenarios/claims/*.yaml scenarios/validation/*.yaml scenarios/workloads/*.yaml; do
	compare "$s" "$s"
done
# the regression points: table, series, x, published, scenario, sets
grep -v '^#' tests/regression/points.tsv | while IFS='	' read -r table series x pub scenario sets; do
	args=""
	for kv in $sets; do args="$args --set $kv"; done
	# shellcheck disable=SC2086
	compare "$table $series $x" "$scenario" $args
	echo "$n $failed" >"$work/out/count"
done
if [ -f "$work/out/count" ]; then read -r n failed <"$work/out/count"; fi
echo "same-results: $n runs against $ref, $failed different"
[ "$failed" -eq 0 ]
