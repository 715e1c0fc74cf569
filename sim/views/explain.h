/* SPDX-License-Identifier: MIT */
/* `futexsim explain`'s view of a run's results: where the reported threads' time in
 * the window went, per op. Reads struct results only (sim/results.h).
 */
#ifndef FUTEXSIM_VIEW_EXPLAIN_H
#define FUTEXSIM_VIEW_EXPLAIN_H

#include <stdio.h>

#include "sim/results.h"

/* The threads' time by class (models/task.h: enum time_class), in ns per op and as
 * a share, the kernel's local work by path step, how much of the threads' time the
 * classes account for, the classes by node and by role where threads differ, and
 * the line transfers per op. -1 (nothing printed) when the file has no time
 * breakdown or no ops. */
int results_print_explain(const struct results *r, FILE *out);

#endif
