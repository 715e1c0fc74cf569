#!/bin/sh
# SPDX-License-Identifier: MIT
# The tracers' own overhead on futex-heavy programs (docs/trace.md, "Which tracer"):
# scenarios/traces/mutexloop.c (4 threads, one mutex held most of the time: 4 100000 500 100) and perf bench futex
# hash, each without a tracer, under strace and under perf's syscall tracepoints,
# both run exactly as futexsim record runs them. Prints wall times, futex calls
# made (perf stat counts them when permitted) and ops/s.
#
#   scenarios/traces/overhead.sh [RUNS]       (default 3 runs of each)
set -eu
runs=${1:-3}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -O2 -pthread "$here/mutexloop.c" -o "$tmp/mutexloop"
strace_cmd="strace -f -ttt -T -q -e trace=futex,futex_waitv,clone,clone3,fork,vfork,exit,exit_group,execve,nanosleep,clock_nanosleep -e raw=futex -o $tmp/raw.txt --"
perf_ok=0
if command -v perf >/dev/null 2>&1 && perf record -q -e syscalls:sys_enter_futex -o "$tmp/p.data" -- true >/dev/null 2>&1; then
	perf_ok=1
fi
events=""
for ev in syscalls:sys_enter_futex syscalls:sys_exit_futex syscalls:sys_enter_clone syscalls:sys_exit_clone \
	syscalls:sys_enter_clone3 syscalls:sys_exit_clone3 syscalls:sys_enter_exit syscalls:sys_enter_exit_group \
	syscalls:sys_enter_nanosleep syscalls:sys_exit_nanosleep syscalls:sys_enter_clock_nanosleep \
	syscalls:sys_exit_clock_nanosleep sched:sched_process_exit sched:sched_process_exec; do
	events="$events -e $ev"
done
perf_cmd="perf record -q --switch-events -o $tmp/raw.data $events --"

ns() { date +%s%N; }
# wall NAME PREFIX...: RUNS runs of mutexloop under PREFIX; prints the times and the futex calls
wall() {
	name=$1; shift
	for r in $(seq "$runs"); do
		t0=$(ns)
		# shellcheck disable=SC2068
		$@ "$tmp/mutexloop" 4 100000 500 100 >/dev/null 2>&1
		t1=$(ns)
		calls=""
		if [ "$name" = strace ]; then calls=$(grep -c ' futex(' "$tmp/raw.txt" || true); fi
		if [ "$name" = perf ]; then calls=$(perf script -i "$tmp/raw.data" 2>/dev/null | grep -c sys_enter_futex || true); fi
		if [ "$name" = none ] && [ "$perf_ok" = 1 ]; then
			calls=$(perf stat -x, -e syscalls:sys_enter_futex "$tmp/mutexloop" 4 100000 500 100 2>&1 >/dev/null | cut -d, -f1)
		fi
		printf '  mutexloop 4 100000 500 100  %-7s run %s: %8.3f s  futex calls %s\n' "$name" "$r" \
			"$(echo "$t0 $t1" | awk '{print ($2 - $1) / 1e9}')" "${calls:-n/a}"
	done
}
# bench NAME PREFIX...: perf bench futex hash -t 2 under PREFIX, its Averaged ops/s
bench() {
	name=$1; shift
	command -v perf >/dev/null 2>&1 || return 0
	for r in $(seq "$runs"); do
		# shellcheck disable=SC2068
		ops=$($@ perf bench futex hash -t 2 -r 1 -s 2>/dev/null | awk '/Averaged/ {print $2}')
		printf '  perf bench futex hash -t 2  %-7s run %s: %12s ops/s per thread\n' "$name" "$r" "${ops:-n/a}"
	done
}
echo "== host: $(nproc) CPUs, $(uname -r), strace $(strace -V 2>/dev/null | head -n 1 | awk '{print $NF}'), $(perf --version 2>/dev/null || echo 'no perf')"
wall none
wall strace $strace_cmd
if [ "$perf_ok" = 1 ]; then wall perf $perf_cmd; else echo "  perf: cannot open the syscall tracepoints here (not root, perf_event_paranoid > -1)"; fi
if [ "$perf_ok" = 1 ]; then
	for r in $(seq "$runs"); do
		t0=$(ns); $perf_cmd true >/dev/null 2>&1; t1=$(ns)
		printf '  perf record start-up (of true)  run %s: %8.3f s\n' "$r" "$(echo "$t0 $t1" | awk '{print ($2 - $1) / 1e9}')"
	done
fi
bench none
bench strace $strace_cmd
if [ "$perf_ok" = 1 ]; then bench perf $perf_cmd; fi
