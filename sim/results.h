/* SPDX-License-Identifier: MIT */
/* The figures of one run, gathered from the models after sim_run(): every view of
 * the models' state reads this struct, never the models. The summary, explain, c2c,
 * show --csv and --json (sim/views/) and the result file's tables (sim/h5out.h) all
 * print or write from it, and sim/h5read.h fills the same struct back from a file,
 * so a run's summary prints the same from its file later and the summary and the
 * file cannot disagree. Tables are arrays of row structs (sim/result_rows.h);
 * sim/h5common.h lists their columns for the writer and the reader. Every figure
 * derived from the rows that more than one view shows (blocking totals, transfers
 * per op, time per op by class) is computed here once, so the views only format.
 */
#ifndef FUTEXSIM_RESULTS_H
#define FUTEXSIM_RESULTS_H

#include <stddef.h>
#include <stdint.h>

#include "models/futex_step.h"
#include "models/futex_table.h"
#include "models/workload.h"
#include "sim/band.h"
#include "sim/perfstat.h"
#include "sim/result_rows.h"

struct sim;

struct results_text;       /* the arena of the lines' text (results_text) */

struct results {
	struct results_text *text;
	char *version;          /* futexsim's version that ran it */
	char *scenario, *machine, *kernel, *workload;
	char *overrides;        /* the --set overrides, space-separated ("" when none) */
	char *perf_header;      /* perf's "Run summary ..." text */
	/* perf's suites that repeat runs (wake, requeue): its "[Run N]: ..." lines and
	 * its last line, in place of per-thread lines and Averaged; NULL for the others */
	char *perf_runs, *perf_summary;
	uint64_t seed;
	simtime_t warmup_ps, window_ps;
	uint32_t nthreads;
	struct thread_result *threads;
	struct perf_average avg;
	uint64_t total_ops;
	/* the reported threads' kernel_work by path step (models/futex_step.h), in the
	 * window; has_steps false for files of earlier versions */
	bool has_steps;
	uint64_t kernel_steps_ps[STEP_NSTEPS];
	uint64_t transfers[XFER_NCLASSES];
	uint64_t fills;
	uint64_t directory_reads; /* home-snoop machines: cross-node transfers that missed the
				     home's directory cache (models/dircache.h) */
	uint32_t nodes;
	uint64_t *node_transfers; /* [nodes x nodes]: from the holder's node to the requester's */
	uint32_t nlines;
	struct line_result *lines; /* every line that saw traffic, in line order */
	uint32_t nhot;
	uint64_t *hot;          /* indices in lines of those with most transfers, most first */
	uint32_t ntables;
	struct table_result *tables;
	uint64_t nbuckets;
	struct bucket_result *buckets;
	uint32_t nhotb;
	uint64_t *hotb;         /* indices in buckets of those with most lock wait, most first (show) */
	/* run --band (sim/band.h): perf's Averaged figure at the costs' 1-sigma moves,
	 * combined; band_runs = the runs it took, 0 when no band was asked; the moves
	 * come from the fit's covariance or the costs' ranges (band_basis) */
	uint32_t band_runs;
	enum band_basis band_basis;
	double band_lo, band_hi;
	uint64_t ops_simulated; /* all programs, warm-up included (for the speed figure) */
	simtime_t simulated_ps; /* where the engine's clock stopped */
	uint64_t ops_clamped;   /* time series: ops past the ring's reach (sim/timeseries.h) */
	double wall_secs;       /* wall-clock time of sim_run */
	uint64_t events;
	int incomplete;         /* interrupted: the figures cover the window up to the stop */
	/* the workload's own figures and latency histogram (models/workload.h) */
	uint32_t nfigures;
	struct workload_figure figures[WORKLOAD_MAX_FIGURES];
	uint32_t nlat_bins;
	double *lat_edges, *lat_counts; /* [nlat_bins + 1], [nlat_bins] */
	/* private hash resizes (models/futex_table.h) */
	uint32_t nresizes;
	struct futex_resize *resizes;
};

/* A copy of `s` that r owns (in one arena: hundreds of thousands of lines' text
 * without a malloc each); freed by results_free. NULL when out of memory. */
char *results_text(struct results *r, const char *s);

/* Gathers the figures; ranks the `nhot` busiest lines. -1 when out of memory. */
int results_from_sim(struct results *r, const struct sim *s, uint32_t nhot, double wall_secs);
/* Ranks r->lines by transfers into r->hot (up to k) and r->buckets by lock wait
 * into r->hotb (up to kb). -1 when out of memory. */
int results_rank(struct results *r, uint32_t k, uint32_t kb);
void results_free(struct results *r);

/* Only what the summary's header needs (version, names, overrides, seed, perf's
 * header, warm-up and window), from a built sim: before the run, the header can
 * be printed at once. -1 when out of memory (results_free it either way). */
int results_header_from_sim(struct results *r, const struct sim *s);

/* The strings of `v` joined with spaces ("" when n is 0), malloc'd; NULL when
 * out of memory. The --set list as the summary and the CSV show it. */
char *results_join(const char *const *v, size_t n);

/* Indices of the (up to) `k` largest non-zero keys, largest first, ties by
 * lower index, into idx[]; their number in *count. -1 when out of memory. */
int results_top(const uint64_t *key, uint64_t n, uint32_t k, uint64_t *idx, uint32_t *count);

/* The figures the views derive from the rows, each computed once here. */

/* The blocking figures of every thread, summed (all 0 for a run that never blocked). */
struct blocking_totals {
	uint64_t calls, wakeups, walked, requeued, switches;
	double blocked_ps, asleep_pct; /* asleep, and that in percent of thread time in the window */
};
struct blocking_totals results_blocking_totals(const struct results *r);

/* Line transfers of every class per op in the window (0 without ops). */
double results_transfers_per_op(const struct results *r);

/* explain's figure: the threads' time of class k (enum time_class) in the window per
 * op, in ns; -1 when the run has no breakdown or no op. */
double results_class_ns_per_op(const struct results *r, int k);

#endif
