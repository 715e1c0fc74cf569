/* SPDX-License-Identifier: MIT */
/* `futexsim c2c`'s view of a run's results: the perf c2c of a simulated run. Reads
 * struct results only (sim/results.h).
 */
#ifndef FUTEXSIM_VIEW_C2C_H
#define FUTEXSIM_VIEW_C2C_H

#include <stdint.h>
#include <stdio.h>

#include "sim/results.h"

/* How `futexsim c2c` ranks lines. */
enum c2c_sort { C2C_BY_TRANSFERS, C2C_BY_REMOTE, C2C_BY_WAITING };

/* The `n` lines with the most transfers (or remote ones, or the most waiting), each
 * with its object and fields, the path steps that touch them, reads and writes,
 * transfers within a core, a node and across nodes (perf c2c's local and remote
 * HITM), DRAM fills and the time requests queued for it. -1 when the file has no
 * lines. */
int results_print_c2c(const struct results *r, uint32_t n, enum c2c_sort sort, FILE *out);

#endif
