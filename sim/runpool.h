/* SPDX-License-Identifier: MIT */
/* Many independent simulations on every host CPU: a pool of forked worker
 * processes, each computing one figure per task and sending it back through a
 * pipe. Task i goes to worker i mod jobs, so the figures (and any message a task
 * prints) do not depend on timing: the same inputs give the same outputs with any
 * number of jobs. */
#ifndef FUTEXSIM_RUNPOOL_H
#define FUTEXSIM_RUNPOOL_H

#include <stddef.h>

#include "sim/core/error.h"

/* One task's figure, computed in a worker: a negative value is a failure (the
 * task prints why on stderr). */
typedef double (*runpool_task)(size_t i, void *ctx);

/* out[i] = task(i, ctx) for i < n, on up to `jobs` worker processes (0: the
 * online CPUs; 1 still forks, so a task cannot disturb the caller's state).
 * -1 with a message when a worker could not start or any task failed; the
 * failed tasks' out[i] are negative. */
int runpool_map(size_t n, runpool_task task, void *ctx, unsigned jobs, double *out, struct fs_error *e);

/* The online CPUs (at least 1, at most 64). */
unsigned runpool_default_jobs(void);

#endif
