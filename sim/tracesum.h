/* SPDX-License-Identifier: MIT */
/* The summary's last line of a replayed trace (workload.type: trace; docs/trace.md),
 * from a run's figures, exactly:
 *
 *   trace: N calls replayed of M recorded; run time S s vs R s recorded; blocked S s vs R s recorded
 *
 * (scripts and CI parse it; `futexsim run` prints it last). */
#ifndef FUTEXSIM_TRACESUM_H
#define FUTEXSIM_TRACESUM_H

#include <stdio.h>

#include "sim/results.h"

/* Prints the line when `r` is a trace replay's; nothing otherwise. */
void tracesum_print(const struct results *r, FILE *out);

#endif
