#!/bin/sh
# SPDX-License-Identifier: MIT
# A CI gate: runs one scenario on two kernel designs, compares the second with the
# first (futexsim compare) and fails when a figure moved past a threshold.
#
# usage: scenarios/ci-gate.sh [-s SCENARIO] [-f 'FIGURE OP VALUE']... [-S KEY=VALUE]...
#                             [-o DIR] BASE_KERNEL NEW_KERNEL
#   BASE_KERNEL, NEW_KERNEL  kernel designs as `--set kernel=` takes them: a preset name
#                (linux-6.18), a kernel file (my-kernel.yaml) or YAML
#                ('{preset: linux-6.18, private_hash: {buckets: 2}}')
#   -s SCENARIO  the scenario (default: quickstart.yaml beside this script)
#   -f EXPR      a threshold, as compare --fail-if takes it (repeatable; default
#                'ops_per_sec < -5%': the new design more than 5% slower fails)
#   -S KEY=VALUE a --set for both runs (repeatable), e.g. -S run.duration=1ms
#   -o DIR       keep the two result files in DIR (base.h5, new.h5); default: a
#                temporary directory, removed
# Environment: FUTEXSIM, the futexsim binary (default: bin/futexsim beside this
# script's directory when there, else futexsim on PATH).
# Exit status: 0 every threshold passed, 1 one failed, 2 bad usage or expression,
# 3 or more a run or the comparison could not be done.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
bin=${FUTEXSIM:-}
if [ -z "$bin" ]; then
	if [ -x "$here/../bin/futexsim" ]; then bin=$here/../bin/futexsim; else bin=futexsim; fi
fi
scenario=$here/quickstart.yaml
nl='
'
thresholds='' sets='' keep=''
usage() {
	sed -n '6,18s/^# \{0,1\}//p' "$0" >&2
	exit 2
}
while getopts s:f:S:o:h opt; do
	case $opt in
	s) scenario=$OPTARG ;;
	f) thresholds=$thresholds$OPTARG$nl ;;
	S) sets=$sets$OPTARG$nl ;;
	o) keep=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 2 ] || usage
base=$1 new=$2
[ -n "$thresholds" ] || thresholds="ops_per_sec < -5%$nl"

if [ -n "$keep" ]; then
	mkdir -p "$keep"
	dir=$keep
else
	dir=$(mktemp -d)
	trap 'rm -rf "$dir"' EXIT
fi

# run NAME KERNEL: the scenario with the --set list and the kernel, into DIR/NAME.h5
run() {
	name=$1 kernel=$2
	set -- run "$scenario" --quiet -o "$dir/$name.h5"
	oldifs=$IFS
	IFS=$nl
	set -f
	for s in $sets; do set -- "$@" --set "$s"; done
	set +f
	IFS=$oldifs
	echo "ci-gate: $name: kernel $kernel" >&2
	status=0
	"$bin" "$@" --set "kernel=$kernel" || status=$?
	if [ "$status" -ne 0 ]; then
		echo "ci-gate: the $name run failed (exit status $status)" >&2
		exit $((status < 3 ? 3 : status))
	fi
}
run base "$base"
run new "$new"

set -- compare "$dir/base.h5" "$dir/new.h5"
oldifs=$IFS
IFS=$nl
set -f
for t in $thresholds; do set -- "$@" --fail-if "$t"; done
set +f
IFS=$oldifs
status=0
"$bin" "$@" || status=$?
if [ "$status" -eq 0 ]; then
	echo "ci-gate: PASSED: $new against $base"
elif [ "$status" -eq 1 ]; then
	echo "ci-gate: FAILED: $new against $base"
fi
exit "$status"
