/* SPDX-License-Identifier: MIT */
/* `futexsim bench futex hash [OPTIONS]`: perf bench futex hash's command line and
 * output, simulated. The options build a hash-bench scenario as --set overrides on
 * a base scenario (scenarios/quickstart.yaml's machine and kernel by default, or
 * --scenario FILE), run it, and print what perf prints, line for line
 * (tools/perf/bench/futex-hash.c, perf 6.16+): the "# Running" and "Run summary"
 * header, the per-thread lines (unless -s), the "Averaged" line and the "Futex
 * hashing:" line; futexsim's own figures follow with -v. No result file. */
#ifndef FUTEXSIM_PERFBENCH_H
#define FUTEXSIM_PERFBENCH_H

#include <signal.h>

/* The suites and benchmarks perf bench has that futexsim simulates: only futex hash. */
extern const char perfbench_usage[];

/* argv[0] is "futexsim", argv[1] "bench": the rest are perf bench's arguments.
 * `interrupt` is the flag a signal handler sets (the run then stops, prints what
 * it has and the status is 130). Prints its own errors; returns the exit status
 * (0, 1 run failed, 2 bad option, 3 bad scenario, 5 refused, 130 interrupted). */
int perfbench_command(int argc, char **argv, volatile sig_atomic_t *interrupt);

#endif
