/* SPDX-License-Identifier: MIT */
/* `futexsim show --json`'s view of a run's results, and the JSON value writers
 * every command that prints JSON uses (compare too). Reads struct results only
 * (sim/results.h).
 */
#ifndef FUTEXSIM_VIEW_JSON_H
#define FUTEXSIM_VIEW_JSON_H

#include <stdio.h>

#include "sim/results.h"

/* One JSON object (indented, no newline after its closing brace) with every figure
 * the summary prints, the hottest buckets and the per-thread ops; the caller puts
 * the objects of several files in an array. */
void results_print_json(const struct results *r, const char *file, FILE *out);

/* A JSON string (quotes, escapes) and a JSON number (null when not finite). */
void results_json_str(FILE *out, const char *s);
void results_json_num(FILE *out, double v);

#endif
