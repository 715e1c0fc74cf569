/* SPDX-License-Identifier: MIT */
/* `futexsim bench [-r N] futex SUITE [OPTIONS]`: perf bench futex's command lines
 * and output, simulated, for the suites hash, wake, wake-parallel and requeue. The
 * options build a scenario of the suite's workload (hash-bench, or the workloads of
 * models/workload_perfwake.h) as --set overrides on a base scenario (scenarios/
 * quickstart.yaml's machine and kernel by default, or --scenario FILE), run it, and
 * print what perf prints, line for line (tools/perf/bench/futex-*.c, perf 6.16+):
 * the "# Running" and "Run summary" header, the per-thread (hash) or per-run lines
 * unless -s, the summary line, and for hash the "Futex hashing:" line; futexsim's
 * own figures follow with -v. No result file. */
#ifndef FUTEXSIM_PERFBENCH_H
#define FUTEXSIM_PERFBENCH_H

#include <signal.h>

/* Its help: perf bench's futex suites that futexsim simulates, and their options. */
extern const char perfbench_usage[];

/* argv[0] is "futexsim", argv[1] "bench": the rest are perf bench's arguments.
 * `interrupt` is the flag a signal handler sets (the run then stops, prints what
 * it has and the status is 130). Prints its own errors; returns the exit status
 * (0, 1 run failed, 2 bad option, 3 bad scenario, 5 refused, 130 interrupted). */
int perfbench_command(int argc, char **argv, volatile sig_atomic_t *interrupt);

#endif
