#!/bin/sh
# SPDX-License-Identifier: MIT
# Real programs recorded on this machine and replayed on its probed model
# (docs/trace.md, "Real programs, recorded here and replayed"): xz and zstd
# compressing with two threads, perf bench futex wake, and scenarios/traces/mutexloop.c.
# Each is recorded by futexsim record (its default tracer: perf's tracepoints where
# permitted, else strace) with --reference (one untraced run first), then replayed on
# MACHINE (default scenarios/traces/host-vm-2cpu.yaml: this VM as futexsim probe
# measured it) under linux-6.18 with the recorded placement. Prints, per program, the
# calls, the run times (untraced, recorded, replayed) and the blocked times (recorded,
# replayed); the traces stay in OUTDIR.
#
#   scenarios/traces/real.sh [OUTDIR [MACHINE]]     (TRACER=strace|perf|auto, default auto)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
bin=${FUTEXSIM:-$here/../../bin/futexsim}
out=${1:-$(mktemp -d)}
machine=${2:-$here/host-vm-2cpu.yaml}
mkdir -p "$out"
seq 1 2000000 > "$out/input"               # 15 MB of text, the same every time
cc -O2 -pthread "$here/mutexloop.c" -o "$out/mutexloop"
record() { # NAME PROGRAM ARGS...
	name=$1; shift
	"$bin" record --tracer "${TRACER:-auto}" --reference -o "$out/$name.trace" -- "$@" > /dev/null 2> "$out/$name.record"
}
record xz xz -T2 -1 -c "$out/input"
record zstd zstd -T2 -3 -c "$out/input"
record perfwake perf bench -r 3 futex wake -t 8
record mutexloop "$out/mutexloop" 4 1000 500 100
printf '%-10s %-9s %22s %22s   %s\n' program calls "run time (ms): real" "recorded / replayed" "blocked (ms): recorded / replayed"
for name in xz zstd perfwake mutexloop; do
	printf 'machine: %s\nkernel: linux-6.18\nworkload: {type: trace, trace: %s}\nrun: {duration: 30s, warmup: 0}\noutput: {interval: 1ms}\n' \
		"$machine" "$out/$name.trace" > "$out/$name.yaml"
	"$bin" run "$out/$name.yaml" --no-output > "$out/$name.replay" 2>/dev/null
	ref=$(awk '/^reference run=/ { sub("reference run=", ""); print $0 / 1e6 }' "$out/$name.trace")
	awk -v n="$name" -v ref="${ref:-?}" '
		/^trace: / { printf "%-10s %4d/%-4d %22s %10.3f / %-10.3f   %10.3f / %.3f\n", n, $2, $6, ref, $13 * 1e3, $10 * 1e3, $20 * 1e3, $17 * 1e3 }' \
		"$out/$name.replay"
done
echo "(traces, their record summaries and the replays' summaries in $out)"
