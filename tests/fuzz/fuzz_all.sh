#!/bin/sh
# SPDX-License-Identifier: MIT
# make fuzz: every fuzz target in turn, FUZZ_SECONDS each (issue 38), then a table of what
# each did: the inputs tried, the crashes, hangs (time-outs) and out-of-memory inputs,
# and, for the result-file reader, whose code each crash is in. libhdf5's own crashes on
# damaged files are expected (futexsim reads result files in a child for them) and kept
# in build-fuzz/results-artifacts/; a crash in futexsim's code is a bug.
#
#   scenario  libFuzzer over the scenario loader and --set (tests/fuzz/fuzz_scenario.c)
#   results   libFuzzer over the result-file reader (tests/fuzz/fuzz_results.c)
#   trace     libFuzzer over the trace reader and small replays (tests/fuzz/fuzz_trace.c)
#   tools     analysis/collect and analysis/plot on mutants (tests/fuzz/fuzz_tools.py)
#
# Each target's whole output is in build-fuzz/TARGET.log. Exit status: 0 when no target
# found a crash, hang or out-of-memory input in futexsim's own code, 1 otherwise.
make=${MAKE:-make}
seconds=${FUZZ_SECONDS:-60}
targets=${FUZZ_TARGETS:-scenario results trace tools}
mkdir -p build-fuzz
status=0
summary=build-fuzz/fuzz-summary.txt
: >"$summary"

# ARTIFACT: libhdf5 when the first frame of its ASan report outside the sanitizers and
# libc is in libhdf5, else futexsim (its reader's own checks abort through libc)
whose() {
	ASAN_OPTIONS=detect_leaks=0 timeout 60 build-fuzz/fuzz_results "$1" 2>&1 |
		awk '/^ *#[0-9]+ / && !/libasan|libubsan|libc\.so|libc-|__sanitizer|__asan|__ubsan|__interceptor|abort|raise|libFuzzer|fuzzer::/ {
			print (/libhdf5/ ? "libhdf5" : "futexsim"); found = 1; exit }
			END { if (!found) print "futexsim" }'
}

for t in $targets; do
	log=build-fuzz/$t.log
	before=$(ls build-fuzz/results-artifacts 2>/dev/null | wc -l)
	echo "fuzz: $t for $seconds s (log: $log)"
	$make --no-print-directory fuzz-$t FUZZ_SECONDS="$seconds" >"$log" 2>&1
	rc=$?
	case $t in
	tools)
		# fuzz_tools: TOOL: N inputs tried, F failures, H hangs
		grep '^fuzz_tools: .*inputs tried' "$log" | sed "s/^fuzz_tools: /fuzz: tools: /" >>"$summary"
		[ $rc -eq 0 ] || status=1
		;;
	*)
		# libFuzzer's final stats (one process), or the fork mode's last line
		execs=$(awk '/stat::number_of_executed_units/ { n += $NF } END { if (n) print n }' "$log")
		if [ -z "$execs" ]; then
			execs=$(grep -o '^#[0-9]*' "$log" | tail -n 1 | tr -d '#')
		fi
		crashes=$(grep -c '^==[0-9]*==ERROR\|^SUMMARY: UndefinedBehaviorSanitizer\|^==[0-9]*== ERROR: libFuzzer: deadly signal' "$log")
		timeouts=$(grep -c 'ERROR: libFuzzer: timeout' "$log")
		ooms=$(grep -c 'ERROR: libFuzzer: out-of-memory' "$log")
		line="fuzz: $t: ${execs:-?} inputs tried, $crashes crashes, $timeouts hangs (time-outs), $ooms out-of-memory"
		if [ "$t" = results ]; then
			# fork mode: the workers' crashes are artifacts; tell libhdf5's from futexsim's
			lib=0 own=0
			for a in $(ls -t build-fuzz/results-artifacts 2>/dev/null | head -n $(( $(ls build-fuzz/results-artifacts 2>/dev/null | wc -l) - before ))); do
				case $a in crash-*) ;; *) continue ;; esac
				if [ "$(whose "build-fuzz/results-artifacts/$a")" = libhdf5 ]; then lib=$((lib + 1)); else
					own=$((own + 1)); echo "fuzz: results: a crash in futexsim's code: build-fuzz/results-artifacts/$a" >>"$summary"; fi
			done
			kept=$(( $(ls build-fuzz/results-artifacts 2>/dev/null | wc -l) - before ))
			# the fork mode's last status line: oom/timeout/crash: A/B/C
			triple=$(grep -o 'oom/timeout/crash: [0-9]*/[0-9]*/[0-9]*' "$log" | tail -n 1 | sed 's/.*: //')
			line="fuzz: results: ${execs:-?} inputs tried, out-of-memory/hangs/crashes ${triple:-0/0/0}, $kept inputs kept (crashes, hangs, out-of-memory: build-fuzz/results-artifacts/), crashes: $lib in libhdf5, $own in futexsim's code"
			[ $own -eq 0 ] || status=1
			# libFuzzer's fork mode exits 70 when it kept inputs (libhdf5's crashes); make
			# then fails: a failure only if libFuzzer did not end so
			if [ $rc -ne 0 ] && grep -q '^INFO: exiting: 70 ' "$log"; then rc=0; fi
			[ $rc -eq 0 ] || status=1
		else
			[ $rc -eq 0 ] || status=1
		fi
		echo "$line" >>"$summary"
		;;
	esac
	[ $rc -eq 0 ] || echo "fuzz: make fuzz-$t exited $rc" >>"$summary"
done
cat "$summary"
exit $status
