/* SPDX-License-Identifier: MIT */
#include "sim/perfstat.h"

#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>

uint64_t perf_ops_per_sec(uint64_t ops, double secs)
{
	return secs > 0 ? (uint64_t)floor((double)ops / secs) : 0;
}

struct perf_average perf_average(const uint64_t *per_thread, size_t n)
{
	struct perf_average r = { 0, 0.0 };
	double *v;
	double sd;

	if (n == 0)
		return r;
	v = malloc(n * sizeof(*v));
	if (!v)
		return r;
	for (size_t i = 0; i < n; i++)
		v[i] = (double)per_thread[i];
	r.mean = (uint64_t)gsl_stats_mean(v, 1, n);
	if (n >= 2 && r.mean > 0) {
		sd = gsl_stats_sd(v, 1, n); /* n - 1 in the denominator, as perf */
		r.stderr_pct = 100.0 * (sd / sqrt((double)n)) / (double)r.mean;
	}
	free(v);
	return r;
}
