#!/bin/sh
# make bench: simulated futex ops and events per wall-clock second for the scenarios
# in scenarios/bench/, and each one's wall-clock cost per simulated op relative to
# the first. Figures only: timing never fails a build. Runs on one core.
set -eu
bin=${1:-bin/futexsim}
printf '%-14s %12s %12s %8s %12s %12s %9s\n' scenario "sim ops" events "wall s" "ops/s" "events/s" "ns/op"
first=""
for s in scenarios/bench/e5-global.yaml scenarios/bench/e5-private2.yaml scenarios/bench/e7-global.yaml; do
	# "  wall time W s for O simulated ops and E events: ..."
	line=$("$bin" run "$s" --no-output | grep '^  wall time')
	set -- $line
	wall=$3 ops=$6 events=${10}
	nsop=$(awk -v w="$wall" -v o="$ops" 'BEGIN { printf "%.1f", w * 1e9 / o }')
	awk -v n="$(basename "$s" .yaml)" -v w="$wall" -v o="$ops" -v e="$events" -v ns="$nsop" -v f="$first" 'BEGIN {
		printf "%-14s %12d %12d %8.3f %11.2fM %11.2fM %9.1f", n, o, e, w, o / w / 1e6, e / w / 1e6, ns
		if (f != "") printf "   %.2fx the first per op", ns / f
		printf "\n" }'
	[ -n "$first" ] || first=$nsop
done

# The blocking workloads: simulated lock acquisitions (mutex) or barriers and
# items (condvar) in the measured window per wall-clock second, and all programs
# run (user atomics and futex calls, warm-up included) per wall-clock second.
printf '\n%-18s %12s %12s %8s %14s %14s\n' workload "window ops" "programs" "wall s" "window ops/s" "programs/s"
for s in mutex barrier producer-consumer churn; do
	out=$("$bin" run "scenarios/workloads/$s.yaml" --no-output --set run.duration=50ms)
	ops=$(printf '%s\n' "$out" | awk '/^  total ops/ { print $3 }')
	set -- $(printf '%s\n' "$out" | grep '^  wall time')
	awk -v n="$s" -v o="$ops" -v w="$3" -v p="$6" 'BEGIN {
		printf "%-18s %12d %12d %8.3f %13.2fM %13.2fM\n", n, o, p, w, o / w / 1e6, p / w / 1e6 }'
done
