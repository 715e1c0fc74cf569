/* SPDX-License-Identifier: MIT */
/* `futexsim bench [-r N] futex SUITE [OPTIONS]`: perf bench futex's command lines
 * and output, simulated, for the suites hash, wake, wake-parallel and requeue. The
 * options build a scenario of the suite's workload (hash-bench, or the workloads of
 * models/workloads/perfwake.h) as --set overrides on a base scenario (scenarios/
 * quickstart.yaml's machine and kernel by default, or --scenario FILE), run it, and
 * print what perf prints, line for line (tools/perf/bench/futex-*.c, perf 6.16+):
 * the "# Running" and "Run summary" header, the per-thread (hash) or per-run lines
 * unless -s, the summary line, and for hash the "Futex hashing:" line; futexsim's
 * own figures follow with -v. -o, --quiet, --progress and --print-scenario are
 * futexsim run's, through the parts of run it shares (sim/cmd/cmd.h). */
#ifndef FUTEXSIM_PERFBENCH_H
#define FUTEXSIM_PERFBENCH_H

#include <signal.h>
#include <stddef.h>

/* Its help: perf bench's futex suites that futexsim simulates, and their options. */
extern const char perfbench_usage[];

/* argv[0] is "futexsim", argv[1] "bench": the rest are perf bench's arguments.
 * `interrupt` is the flag a signal handler sets (the run then stops, prints what
 * it has and the status is 130). Prints its own errors; returns the exit status
 * (0, 1 run failed, 2 bad option, 3 bad scenario, 5 refused, 130 interrupted). */
int perfbench_command(int argc, char **argv, volatile sig_atomic_t *interrupt);

/* The scenario overrides that a perf bench command line stands for. */
#define PERFBENCH_MAX_SETS 16
struct perfbench_sets {
	const char *v[PERFBENCH_MAX_SETS];
	char buf[PERFBENCH_MAX_SETS][4200];
	size_t n;
};

/* What perf's summary line reports: operations/sec (hash, lock-pi) or the mean time
 * of a run in ms (wake, wake-parallel, requeue). */
enum perfbench_figure { PERF_FIGURE_OPS_PER_SEC, PERF_FIGURE_MS };

/* perf's command line as typed ("perf bench [-r N] futex SUITE [OPTIONS]", words split
 * at blanks), parsed by the same parser as futexsim bench, run on `machine` and
 * `kernel` (names or files) with the threads on `cpus` (workload.cpus; NULL: all):
 * its overrides into b, in the order futexsim bench applies them (the kernel before
 * the buckets that -b sets in it), without per-thread lines, and the kind of figure
 * perf prints. futexsim's own options are refused. -1 with the message in msg. */
int perfbench_line_sets(const char *line, const char *machine, const char *kernel, const char *cpus,
			struct perfbench_sets *b, enum perfbench_figure *figure, char *msg, size_t msgsize);

/* perf's figure from its printed output: the last summary line's. -1 when none. */
int perfbench_output_figure(const char *text, enum perfbench_figure figure, double *out);

#endif
