/* SPDX-License-Identifier: MIT */
/* The figures of one run, gathered from the models after sim_run(), and the
 * perf-style summary printed from them. Every view of the models' state (the
 * summary, the result file's tables, `futexsim show`) reads this struct, never
 * the models: a run's summary prints the same from a result file later
 * (sim/h5read.h fills the same struct), and the summary and the file cannot
 * disagree. Tables are arrays of row structs (threads, lines, tables, buckets,
 * resizes: sim/result_rows.h); sim/h5common.h lists their columns for the writer and the reader.
 */
#ifndef FUTEXSIM_RESULTS_H
#define FUTEXSIM_RESULTS_H

#include <stdint.h>
#include <stdio.h>

#include "models/machine.h"
#include "sim/band.h"
#include "sim/perfstat.h"
#include "sim/result_rows.h"
#include "sim/sim.h"

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

/* perf's shape: the header (results_print_header: futexsim's and perf's "Run
 * summary" lines), then results_print_figures: per-thread lines (optional),
 * exactly one "Averaged ..." line, then futexsim's own figures. Two runs of the
 * same scenario and seed print the same summary, byte for byte. */
void results_print_summary(const struct results *r, int per_thread, FILE *out);
void results_print_header(const struct results *r, FILE *out);
void results_print_figures(const struct results *r, int per_thread, FILE *out);
/* futexsim explain: where the reported threads' time in the window went, by class
 * (models/task.h: enum time_class), in ns per op and as a share, and how much of
 * the threads' time the classes account for. -1 (nothing printed) when the file
 * has no time breakdown or no ops. */
int results_print_explain(const struct results *r, FILE *out);
/* explain's figure: the threads' time of class k (enum time_class) in the window per
 * op, in ns; -1 when the run has no breakdown or no op. */
double results_class_ns_per_op(const struct results *r, int k);

/* How `futexsim c2c` ranks lines. */
enum c2c_sort { C2C_BY_TRANSFERS, C2C_BY_REMOTE, C2C_BY_WAITING };
/* A perf-c2c-like report: the `n` lines with the most transfers (or remote ones, or
 * the most waiting), each with its object and fields, the path steps that touch
 * them, reads and writes, transfers within a core, a node and across nodes (perf
 * c2c's local and remote HITM), DRAM fills and the time requests queued for it.
 * -1 when the file has no lines. */
int results_print_c2c(const struct results *r, uint32_t n, enum c2c_sort sort, FILE *out);

/* futexsim's own figures, the part of results_print_figures after the Averaged
 * line: "futexsim: W ms warm-up, M ms measured ...", total ops, line transfers,
 * DRAM fills, blocking figures, hottest lines. */
void results_print_own_figures(const struct results *r, FILE *out);
/* perf bench futex hash's lines after its header, exactly as perf prints them
 * (print_summary() of tools/perf/bench/futex-hash.c): unless `silent` the
 * per-thread lines and a blank line, then "Averaged N operations/sec (+- X%),
 * total secs = S" with S the whole seconds of the measured window, as perf's %d. */
void results_print_perf(const struct results *r, int silent, FILE *out);

/* The simulation's speed: "  wall time W s for O simulated ops and E events: ..."
 * (the one line that differs between two runs; futexsim prints it on stderr). */
void results_print_speed(const struct results *r, FILE *out);

/* The hottest buckets (r->hotb), as a block in the summary's style. */
void results_print_buckets(const struct results *r, FILE *out);

/* show --csv: the header line, with a column for each of the workload figures
 * `figures` (the union over the files shown), then a row per file: every scalar
 * figure of the summary, its name, the blocking totals, the speed, the named
 * workload figures (empty when the run has none of that name) and "complete"
 * last (RFC 4180 quoting). The columns are listed in docs/results-format.md. */
void results_print_csv_header(const char *const *figures, size_t nfigures, FILE *out);
void results_print_csv_row(const struct results *r, const char *file, const char *const *figures, size_t nfigures,
			   FILE *out);

/* show --json: one JSON object (indented, no newline after its closing brace)
 * with every figure the summary prints, the hottest buckets and the per-thread
 * ops; the caller puts the objects of several files in an array. */
void results_print_json(const struct results *r, const char *file, FILE *out);

/* The strings of `v` joined with spaces ("" when n is 0), malloc'd; NULL when
 * out of memory. The --set list as the summary and the CSV show it. */
char *results_join(const char *const *v, size_t n);

/* Indices of the (up to) `k` largest non-zero keys, largest first, ties by
 * lower index, into idx[]; their number in *count. -1 when out of memory. */
int results_top(const uint64_t *key, uint64_t n, uint32_t k, uint64_t *idx, uint32_t *count);

/* The blocking figures of every thread, summed (all 0 for a run that never blocked). */
struct blocking_totals {
	uint64_t calls, wakeups, walked, requeued, switches;
	double blocked_ps, asleep_pct; /* asleep, and that in percent of thread time in the window */
};
struct blocking_totals results_blocking_totals(const struct results *r);

/* Line transfers of every class per op in the window (0 without ops). */
double results_transfers_per_op(const struct results *r);

/* A JSON string (quotes, escapes) and a JSON number (null when not finite), for
 * every command that prints JSON. */
void results_json_str(FILE *out, const char *s);
void results_json_num(FILE *out, double v);

/* A CSV field, quoted when it holds a comma, a quote or a line break (RFC 4180). */
void results_csv_text(FILE *out, const char *s);

#endif
