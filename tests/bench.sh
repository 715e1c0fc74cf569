#!/bin/sh
# SPDX-License-Identifier: MIT
# make bench: the simulator's speed on the scenarios of scenarios/bench/. For each: simulated
# ops (programs, warm-up included), engine events, CPU seconds (user + system: this machine
# is shared, so wall time says less), simulated ops per CPU-second, events per op, peak RSS,
# and the CPU cost per op relative to the first scenario's, measured in the same run; then
# the real kernel's rate for the op on this machine (perf bench futex hash, when there).
# Figures only: timing never fails a build. PYTHON: an interpreter for getrusage.
# QUEUES="4-ary-heap binary-heap" (make bench QUEUES=...): each scenario of the first table
# run with each of the engine's queues in turn (run.event_queue, sim/core/event_queue.h), a
# row each, so that the queues are measured beside each other on the same host load.
set -eu
bin=${1:-bin/futexsim}
python=${PYTHON:-/usr/bin/python3}

# measure ARGS...: runs ARGS, prints "CPU_SECONDS MAXRSS_KB" then its standard output and error
# (the "wall time" line is on standard error)
measure() {
	"$python" -c '
import resource, subprocess, sys
p = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print("%.3f %d" % (r.ru_utime + r.ru_stime, r.ru_maxrss))
sys.stdout.write(p.stdout)
sys.exit(p.returncode)' "$@"
}

queues=${QUEUES:-}
w=18
[ -z "$queues" ] || w=30
printf '%-*s %10s %10s %8s %12s %10s %9s %8s %s\n' $w scenario "sim ops" events "CPU s" "ops/CPU-s" "events/op" "ns/op" "RSS MB" "cost/op vs first"
first=""
for name in e5-global e5-private2 e7-global big-global big-private big-4096futexes; do
	f=scenarios/bench/$name.yaml
	[ -f "$f" ] || continue
	for q in ${queues:-default}; do
		s=$name
		set --
		[ -z "$queues" ] || { s=$name/$q; set -- --set run.event_queue="$q"; }
		out=$(measure "$bin" run "$f" --no-output "$@")
		set -- $(printf '%s\n' "$out" | head -n 1)
		cpu=$1 rss=$2
		# "  wall time W s for O simulated ops and E events: ..."
		set -- $(printf '%s\n' "$out" | grep '^  wall time')
		ops=$6 events=${10}
		nsop=$(awk -v c="$cpu" -v o="$ops" 'BEGIN { printf "%.1f", c * 1e9 / o }')
		awk -v w=$w -v n="$s" -v c="$cpu" -v o="$ops" -v e="$events" -v ns="$nsop" -v r="$rss" -v f="$first" 'BEGIN {
			printf "%-" w "s %10d %10d %8.2f %11.2fM %10.2f %9.1f %8.0f", n, o, e, c, o / c / 1e6, e / o, ns, r / 1024
			if (f != "") printf "   %.2fx", ns / f
			printf "\n" }'
		[ -n "$first" ] || first=$nsop
	done
done

# The real kernel's rate for the same op on this machine, one thread on one CPU (the
# goal: the simulator faster per CPU-second than the kernel runs the op).
if command -v perf >/dev/null 2>&1 &&
	real=$(perf bench futex hash -t 1 -s -r 1 2>/dev/null | awk '/^Averaged/ { print $2 }') && [ -n "$real" ]; then
	awk -v r="$real" 'BEGIN { printf "\nthe real kernel here: perf bench futex hash -t 1 -r 1: %.2fM ops/s on one CPU\n", r / 1e6 }'
else
	printf '\nthe real kernel here: not measured (perf bench is not available)\n'
fi

# The blocking workloads: simulated lock acquisitions (mutex) or barriers and
# items (condvar) in the measured window, and all programs run (user atomics and
# futex calls, warm-up included), per CPU-second.
printf '\n%-18s %12s %12s %8s %14s %14s\n' workload "window ops" "programs" "CPU s" "window ops/s" "programs/s"
for s in mutex barrier producer-consumer churn; do
	out=$(measure "$bin" run "scenarios/workloads/$s.yaml" --no-output --set run.duration=50ms)
	cpu=$(printf '%s\n' "$out" | head -n 1 | cut -d' ' -f1)
	ops=$(printf '%s\n' "$out" | awk '/^  total ops/ { print $3 }')
	set -- $(printf '%s\n' "$out" | grep '^  wall time')
	awk -v n="$s" -v o="$ops" -v p="$6" -v c="$cpu" 'BEGIN {
		printf "%-18s %12d %12d %8.2f %13.2fM %13.2fM\n", n, o, p, c, o / c / 1e6, p / c / 1e6 }'
done
