#!/bin/sh
# SPDX-License-Identifier: MIT
# The sample traces of scenarios/traces/ replayed on the E5, E7, Skylake-SP and EPYC
# configs under four kernel designs: the global hash (linux-6.15), 6.16-dev's private
# hash with its rcuref (linux-6.16-dev), the same immutable (refcount none, perf's -I),
# 6.17's per-CPU references (linux-6.17). The threads spread over each machine's CPUs
# (placement: spread). Prints, per trace, machine and design, the replay's run time,
# blocked time and causal holds from its `trace:` line and figures (docs/trace.md).
#
#   scenarios/traces/study.sh [TRACE...]     (default: every *.trace here)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
bin=${FUTEXSIM:-$here/../../bin/futexsim}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
machines="e5-2650-2s e7-8890v3-4s skylake-sp-8180-2s epyc-7713-2s"
designs="global:kernel=linux-6.15 rcuref:kernel=linux-6.16-dev immutable:kernel=linux-6.16-dev,kernel.private_hash.refcount=none percpu:kernel=linux-6.17"
[ $# -gt 0 ] || set -- "$here"/*.trace
printf '%-16s %-20s %-10s %14s %14s %8s %8s\n' trace machine design "run time (ms)" "blocked (ms)" holds calls
for trace in "$@"; do
	name=$(basename "$trace" .trace)
	for m in $machines; do
		for d in $designs; do
			label=${d%%:*} sets=""
			for kv in $(echo "${d#*:}" | tr ',' ' '); do sets="$sets --set $kv"; done
			printf 'machine: %s\nkernel: linux-6.18\nworkload: {type: trace, trace: %s, placement: spread}\nrun: {duration: 20s, warmup: 0}\noutput: {interval: 1ms}\n' \
				"$m" "$trace" > "$tmp/s.yaml"
			# shellcheck disable=SC2086
			"$bin" run "$tmp/s.yaml" $sets --no-output > "$tmp/out" 2>/dev/null || { echo "$name $m $label: failed"; continue; }
			awk -v n="$name" -v m="$m" -v d="$label" '
				/^    causal_holds / { holds = $2 }
				/^trace: / { calls = $2 "/" $6; run = $10 * 1e3; blocked = $17 * 1e3 }
				END { printf "%-16s %-20s %-10s %14.3f %14.3f %8s %8s\n", n, m, d, run, blocked, holds, calls }' "$tmp/out"
		done
	done
done
