/* SPDX-License-Identifier: MIT */
/* `futexsim compare`: the figures of one run (the base) against another's, as
 * deltas, and thresholds on them for a CI gate. Works on the struct results
 * `show` reads (sim/h5read.h); prints nothing but what it is asked to print and
 * picks no exit status (sim/main.c does).
 *
 * The figures are named as show --csv names its columns (ops_per_sec,
 * stderr_pct, total_ops, transfers_smt, ...), plus transfers (the sum of the
 * classes), remote_transfers_per_op, and every workload figure present in both
 * runs by its own name. A figure's delta is value - base; its relative delta
 * (rel) is 100 * delta / base in percent (+-inf when the base is 0 and the value
 * not, 0 when both are 0).
 */
#ifndef FUTEXSIM_COMPARE_H
#define FUTEXSIM_COMPARE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "sim/core/error.h"
#include "sim/results.h"

#define COMPARE_MAX_FIGURES (24u + TC_NCLASSES + WORKLOAD_MAX_FIGURES)
#define COMPARE_TOP 5u

struct compare_figure {
	char name[48];
	char units[16];
	int decimals;           /* as show --csv prints it; -1: %.12g */
	bool shown;             /* printed (the blocking totals only for runs that blocked) */
	double base, value, delta, rel;
	/* compare_groups: base and value are the groups' means; their sample standard
	 * deviations and sizes, and Welch's two-sided p for a difference of the means
	 * (NAN with fewer than 2 runs on a side); base_n = 0 for two single runs */
	double base_sd, value_sd, p;
	uint32_t base_n, value_n;
};

/* A line (by description) or a bucket (by table name and index) whose total
 * transfers or lock wait changed most. */
struct compare_change {
	char *what;             /* line description, or the table's name */
	uint32_t bucket;        /* buckets only */
	double base, value, delta;
};

struct compare {
	uint32_t nfigures;
	struct compare_figure figures[COMPARE_MAX_FIGURES];
	uint32_t nlines, nbuckets;
	struct compare_change lines[COMPARE_TOP];   /* total transfers, by |delta|, most first */
	struct compare_change buckets[COMPARE_TOP]; /* lock wait (ps), by |delta|, most first */
};

/* Compares `b` with the base `a` into c. -1 when out of memory (compare_free it either way). */
int compare_results(const struct results *a, const struct results *b, struct compare *c);

/* Compares group `b` (nb runs, e.g. the seeds of one design) with the base group
 * `a` (na runs): every figure present in every run, its base and value the
 * groups' means, with their standard deviations and Welch's t-test (the delta and
 * the thresholds apply to the means); the lines and buckets are those of the two
 * first runs. -1 when out of memory (compare_free it either way). */
int compare_groups(const struct results *a, size_t na, const struct results *b, size_t nb, struct compare *c);
void compare_free(struct compare *c);

/* The figure named `name` in c, or NULL. */
const struct compare_figure *compare_find(const struct compare *c, const char *name);

/* The names of the figures of c, comma-separated, into buf (for error messages). */
void compare_names(const struct compare *c, char *buf, size_t size);

/* Text: a block per comparison, "base_label: FILE" headers, a row per shown
 * figure (base, value, delta, rel), then the lines and buckets that changed most. */
void compare_print(const struct compare *c, const char *base_file, const char *file, FILE *out);

/* JSON: one object (indented, no newline after it) for the comparison of `file`
 * with the base: {"file", "figures": {NAME: {base, value, delta, rel, units}},
 * "lines": [...], "buckets": [...]}; rel is null when infinite. */
void compare_print_json(const struct compare *c, const char *file, FILE *out);

/* --fail-if 'FIGURE OP VALUE': OP < or >, VALUE a signed number, with % for the
 * relative delta, else the absolute delta. The figure name is checked later,
 * against a comparison (compare_find). */
struct compare_threshold {
	char figure[48];
	char op;                /* '<' or '>' */
	double value;
	bool rel;               /* VALUE had a %: compared with rel, else with delta */
	char text[64];          /* VALUE as given, e.g. "-5%" */
};
int compare_parse_threshold(const char *expr, struct compare_threshold *t, struct fs_error *e);

/* Whether the figure breaks the threshold (delta or rel OP value). */
bool compare_threshold_failed(const struct compare_threshold *t, const struct compare_figure *f);

/* The figure's change, the threshold and both values, without a newline:
 * "ops_per_sec -7.30% < -5% (A 2345678, B 2174512)" when `failed`, else
 * "ops_per_sec -2.15% (fails if < -5%; A 2345678, B 2295178)". */
void compare_print_threshold(const struct compare_threshold *t, const struct compare_figure *f, bool failed,
			     const char *base_label, const char *label, FILE *out);

#endif
