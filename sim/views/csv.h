/* SPDX-License-Identifier: MIT */
/* `futexsim show --csv`'s view of runs' results, a line per file, and the CSV field
 * quoting every command that prints CSV uses. Reads struct results only
 * (sim/results.h).
 */
#ifndef FUTEXSIM_VIEW_CSV_H
#define FUTEXSIM_VIEW_CSV_H

#include <stddef.h>
#include <stdio.h>

#include "sim/results.h"

/* The header line, with a column for each of the workload figures `figures` (the
 * union over the files shown), then a row per file: every scalar figure of the
 * summary, its name, the blocking totals, the speed, the named workload figures
 * (empty when the run has none of that name) and "complete" last (RFC 4180
 * quoting). The columns are listed in docs/results-format.md. */
void results_print_csv_header(const char *const *figures, size_t nfigures, FILE *out);
void results_print_csv_row(const struct results *r, const char *file, const char *const *figures, size_t nfigures,
			   FILE *out);

/* A CSV field, quoted when it holds a comma, a quote or a line break (RFC 4180). */
void results_csv_text(FILE *out, const char *s);

#endif
