#!/bin/sh
# SPDX-License-Identifier: MIT
# make bench-callgrind [BIN=...]: host instructions and cache misses per simulated op for
# the E5, E7 and 1024-CPU bench scenarios, exact counts where hardware counters are
# missing. Callgrind with a 48 KiB L1 and a 1 MiB last level standing for the host's L2;
# each figure is the difference between two run lengths divided by the difference in
# ops, so that setup and the result file drop out. About a quarter of an hour on 2 cores.
# Figures only: nothing fails on them.
set -eu
bin=${1:-bin/futexsim}
command -v valgrind >/dev/null 2>&1 || { echo "bench-callgrind: valgrind is not installed"; exit 0; }
tmp=$(mktemp -d /tmp/futexsim-cg-XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# totals SCENARIO DURATION: "OPS IR L1_MISSES LL_MISSES EVENTS ENGINE_IR" of one run
# (ENGINE_IR: the instructions of the engine itself, sim/core/engine.[ch] and its queue
# (event_queue*.c, event_heap.h): the heap and the dispatch loop, without the handlers it calls)
totals() {
	out=$(valgrind --tool=callgrind --cache-sim=yes --D1=49152,12,64 --LL=1048576,16,64 \
		--callgrind-out-file="$tmp/cg" "$bin" run "$1" --no-output --set run.duration="$2" 2>&1)
	set -- $(printf '%s\n' "$out" | awk '/^  wall time/ { print $6, $10 }')
	ops=$1 events=$2
	engine=$(callgrind_annotate --auto=no --threshold=100 --show=Ir "$tmp/cg" 2>/dev/null |
		awk '/sim\/core\/(engine|event_queue[a-z0-9_]*|event_heap)\.[ch]:/ { gsub(",", "", $1); s += $1 } END { print s + 0 }')
	# the events line names the columns, the summary line holds their totals
	awk -v ops="$ops" -v events="$events" -v engine="$engine" '
		/^events:/ { for (i = 2; i <= NF; i++) col[$i] = i - 1 }
		/^summary:/ || /^totals:/ { for (i = 2; i <= NF; i++) v[i - 1] = $i }
		END {
			l1 = v[col["D1mr"]] + v[col["D1mw"]]
			ll = v[col["DLmr"]] + v[col["DLmw"]]
			print ops, v[col["Ir"]], l1, ll, events, engine
		}' "$tmp/cg"
}

printf '%-16s %14s %14s %14s %14s %10s\n' scenario "instructions" "of the engine" "L1 data miss" "L2 data miss" "events"
for s in "e5-global 5ms 10ms" "e7-global 1ms 2ms" "big-global 500us 1ms"; do
	set -- $s
	a=$(totals "scenarios/bench/$1.yaml" "$2")
	b=$(totals "scenarios/bench/$1.yaml" "$3")
	echo "$a $b" | awk -v n="$1" '{ d = $7 - $1
		printf "%-16s %14.0f %14.0f %14.1f %14.2f %10.2f   per op (%d ops apart)\n", n, ($8 - $2) / d,
			($12 - $6) / d, ($9 - $3) / d, ($10 - $4) / d, ($11 - $5) / d, d }'
done
echo "(the rest of the instructions are the models': what the handlers of the events do)"
