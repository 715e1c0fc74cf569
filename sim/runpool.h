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
#include "sim/runcache.h"

/* One task's figure, computed in a worker: a negative value is a failure (the
 * task prints why on stderr). */
typedef double (*runpool_task)(size_t i, void *ctx);

/* out[i] = task(i, ctx) for i < n, on up to `jobs` worker processes (0: the
 * online CPUs; 1 still forks, so a task cannot disturb the caller's state).
 * -1 with a message when a worker could not start or any task failed; the
 * failed tasks' out[i] are negative. */
int runpool_map(size_t n, runpool_task task, void *ctx, unsigned jobs, double *out, struct fs_error *e);

/* runpool_map for tasks whose figure is a function of their key alone (a
 * runcache_key): a task whose key the cache holds is not run, tasks of equal keys run
 * once (the first of them) and share its figure, and every figure made is stored.
 * keys[i] NULL: task i runs. The figures are runpool_map's, with or without a hit. */
int runpool_map_cached(size_t n, char *const *keys, runpool_task task, void *ctx, unsigned jobs,
		       struct runcache *cache, double *out, struct fs_error *e);

/* The online CPUs (at least 1, at most 64). */
unsigned runpool_default_jobs(void);

#endif
