/* The figures of one run, gathered from the models after sim_run(), and the
 * perf-style summary printed from them. Kept apart from the models so that a
 * run's summary can be printed the same way from a result file later.
 */
#ifndef FUTEXSIM_RESULTS_H
#define FUTEXSIM_RESULTS_H

#include <stdint.h>
#include <stdio.h>

#include "models/machine.h"
#include "sim/perfstat.h"
#include "sim/sim.h"

struct thread_result {
	uint32_t id, cpu, node;
	uint64_t ops;           /* completed inside the measuring window */
	uint64_t ops_per_sec;   /* perf_ops_per_sec(ops, window) */
	char *perf_line;        /* perf's "[thread  N] ..." line, with newline */
};

struct line_result {
	uint32_t line;
	char *what;             /* memmap_describe() */
	uint64_t reads, writes, fills;
	uint64_t transfers[XFER_NCLASSES];
	uint64_t total_transfers;
	simtime_t queued_ps;
};

struct results {
	char *scenario, *machine, *kernel, *workload;
	char *perf_header;      /* perf's "Run summary ..." text */
	uint64_t seed;
	simtime_t warmup_ps, window_ps;
	uint32_t nthreads;
	struct thread_result *threads;
	struct perf_average avg;
	uint64_t total_ops;
	uint64_t transfers[XFER_NCLASSES];
	uint64_t fills;
	uint32_t nhot;
	struct line_result *hot; /* the lines with most transfers, most first */
	uint64_t ops_simulated; /* all ops, warm-up included (for the speed figure) */
	double wall_secs;       /* wall-clock time of sim_run */
	uint64_t events;
};

/* Gathers the figures; keeps the `nhot` busiest lines. -1 when out of memory. */
int results_from_sim(struct results *r, const struct sim *s, uint32_t nhot, double wall_secs);
void results_free(struct results *r);

/* perf's shape: per-thread lines (optional), then exactly one "Averaged ..." line,
 * then futexsim's own figures. The last line (wall-clock speed) is the only one
 * that differs between two runs of the same scenario and seed. */
void results_print_summary(const struct results *r, int per_thread, FILE *out);

#endif
