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
		# the default queue's figures, for the goals below
		if [ "$q" = default ] || [ "$q" = "${queues%% *}" ]; then
			eval "nsop_$(printf '%s' "$name" | tr -c 'a-z0-9\n' _)=$nsop rss_$(printf '%s' "$name" | tr -c 'a-z0-9\n' _)=$rss"
		fi
	done
done

# The real kernel's rate for the same op on this machine, one thread on one CPU (the
# goal: the simulator faster per CPU-second than the kernel runs the op).
if command -v perf >/dev/null 2>&1 &&
	real=$(perf bench futex hash -t 1 -s -r 1 2>/dev/null | awk '/^Averaged/ { print $2 }') && [ -n "$real" ]; then
	awk -v r="$real" 'BEGIN { printf "\nthe real kernel here: perf bench futex hash -t 1 -r 1: %.2fM ops/s on one CPU\n", r / 1e6 }'
else
	real=
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

# What a user waits for, against the goals of the speed work (docs/architecture.md,
# "Speed"): the first four from the runs above, in this same run; then the fit of the
# 4-socket E7's five stock rows, timed (wall clock: it runs on every CPU); with
# BENCH_TOOLS=1 also futexsim-validate of every published point (minutes). make check
# and make calibrate (which rewrites the generated configs) are timed by hand.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
wall() { # wall seconds of ARGS, their output in $tmp/out; non-zero status kept
	"$python" -c '
import subprocess, sys, time
t = time.monotonic()
with open(sys.argv[1], "w") as f:
    r = subprocess.run(sys.argv[2:], stdout=f, stderr=subprocess.STDOUT).returncode
print("%.1f" % (time.monotonic() - t))
sys.exit(r)' "$tmp/out" "$@"
}
printf '\n%-58s %12s %s\n' "what a user waits for (this run)" figure goal
goal() { printf '%-58s %12s %s\n' "$1" "$2" "$3"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "" || b == 0) print "-"; else printf "%.2fx\n", a / b }'; }
if [ -n "${nsop_e5_global:-}" ] && [ -n "$real" ]; then
	goal "E5 simulated ops per CPU-s / the real kernel's hash -t 1" \
		"$(awk -v ns="$nsop_e5_global" -v r="$real" 'BEGIN { printf "%.2fx", 1e9 / ns / r }')" ">= 1.0x (moonshot 2x)"
else
	goal "E5 simulated ops per CPU-s / the real kernel's hash -t 1" "-" ">= 1.0x (no perf here)"
fi
goal "E7 / E5 cost per op" "$(ratio "${nsop_e7_global:-}" "${nsop_e5_global:-}")" "<= 1.5x"
goal "1024-CPU / E5 cost per op" "$(ratio "${nsop_big_global:-}" "${nsop_e5_global:-}")" "<= 1.8x"
goal "4M futexes (1024 CPUs) peak RSS" \
	"$(awk -v r="${rss_big_4096futexes:-}" 'BEGIN { if (r == "") print "-"; else printf "%.0f MB", r / 1024 }')" "<= 256 MB"
if s=$(wall "$bin" fit analysis/data/e7-8890v3-stock-rows.yaml -o "$tmp/e7-fit.yaml" --quiet); then
	goal "futexsim fit of the E7's five stock rows (wall)" "$s s" "<= 60 s"
else
	goal "futexsim fit of the E7's five stock rows" "FAILED" "(see below)"
	sed 's/^/  /' "$tmp/out" | tail -n 5
fi
if [ "${BENCH_TOOLS:-0}" = 1 ]; then
	if s=$(wall "$(dirname "$bin")/futexsim-validate" --out "$tmp/validation"); then
		goal "futexsim-validate, every published point (wall)" "$s s" "<= 180 s"
	else
		goal "futexsim-validate" "FAILED" ""
		sed 's/^/  /' "$tmp/out" | tail -n 5
	fi
else
	goal "futexsim-validate (BENCH_TOOLS=1 times it)" "-" "<= 180 s"
fi
