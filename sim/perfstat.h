/* SPDX-License-Identifier: MIT */
/* perf's summary arithmetic (tools/perf/util/stat.c), so our numbers read like perf's.
 *
 * perf bench futex hash reports each thread's ops/sec as an integer, then
 * "Averaged N operations/sec (+- X%)": N is the mean over threads truncated to an
 * integer, X is the standard error of the mean (sample standard deviation with
 * n - 1, divided by sqrt(n)) as a percentage of N; 0 for fewer than two threads.
 * futexsim divides ops by the exact simulated seconds of the measuring window
 * (perf divides by whole seconds of a 10 s run).
 */
#ifndef FUTEXSIM_PERFSTAT_H
#define FUTEXSIM_PERFSTAT_H

#include <stddef.h>
#include <stdint.h>

struct perf_average {
	uint64_t mean;      /* truncated, as perf prints it */
	double stderr_pct;  /* standard error of the mean, % of `mean` */
};

/* Per-thread ops/sec as perf computes it: floor(ops / secs). */
uint64_t perf_ops_per_sec(uint64_t ops, double secs);

struct perf_average perf_average(const uint64_t *per_thread, size_t n);

#endif
