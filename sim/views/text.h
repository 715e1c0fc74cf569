/* SPDX-License-Identifier: MIT */
/* The text views of a run's results: the summary `run` and `show` print (perf's
 * shape, then futexsim's own figures), perf's own lines for `bench`, the speed line
 * and the hottest buckets. They read struct results only (sim/results.h), so a
 * result file shows what its run printed. Two runs of the same scenario and seed
 * print the same summary, byte for byte.
 */
#ifndef FUTEXSIM_VIEW_TEXT_H
#define FUTEXSIM_VIEW_TEXT_H

#include <stdio.h>

#include "sim/results.h"

/* perf's shape: the header (results_print_header: futexsim's and perf's "Run
 * summary" lines), then results_print_figures: per-thread lines (optional),
 * exactly one "Averaged ..." line, then futexsim's own figures. */
void results_print_summary(const struct results *r, int per_thread, FILE *out);
void results_print_header(const struct results *r, FILE *out);
void results_print_figures(const struct results *r, int per_thread, FILE *out);

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

#endif
