/* SPDX-License-Identifier: MIT */
/* What a scenario will cost before it is built: host memory and engine events.
 *
 * sim_build() refuses a scenario whose estimate exceeds run.max_memory or
 * run.max_events (FS_ERR_LIMIT, exit status 5) instead of letting the OS kill
 * it halfway, and the message gives the estimate and what drives it.
 *
 * Memory (estimate_memory, from the parsed scenario alone, nothing allocated):
 * cache lines (the coherence state, sharer sets, addresses, labels and the
 * address map of each), the futex tables' buckets and spinlocks, per-CPU and
 * per-process kernel objects, the workload's own arrays, the time series
 * buffers, and what the result file's writer gathers per line and bucket.
 * Growable arrays are counted at the capacity they double to. It is meant to
 * be within a factor of two of the peak heap (tests/check_estimate.c holds it
 * to that against the measured peak RSS).
 *
 * Events (estimate_events, from the built tasks' programs before the run; sim_build
 * passes them in, so this module sits below the run and knows nothing of struct
 * sim): every program run of a task takes at least its fixed local work (loop,
 * syscall and the path's costs; accesses and lock waits only add to it) plus, for
 * blocking workloads, the typical think time or critical section it draws
 * (workload_size.step_work_ps), so runs <= tasks x simulated time / that, and
 * each schedules at most one event per micro-op; plus one event per
 * output.interval. For hash-bench an upper bound, typically 2-10 times the
 * events a run really handles; for blocking workloads an estimate of the same
 * looseness (barriers start far looser). A floor of 0 ps means an op takes no
 * simulated time, so a run would never end: that scenario is refused as bad
 * input (FS_ERR_INPUT) with the reason.
 */
#ifndef FUTEXSIM_ESTIMATE_H
#define FUTEXSIM_ESTIMATE_H

#include <stdint.h>

#include "sim/core/error.h"
#include "sim/scenario.h"

struct tasks;

struct estimate {
	uint64_t bytes;       /* peak heap of the model, results included */
	uint64_t lines;       /* simulated cache lines */
	uint64_t buckets;     /* futex hash buckets over every table */
	uint64_t targets;     /* per-futex records of the workload */
	uint64_t events;      /* engine events, an upper bound (estimate_events) */
	uint64_t ops;         /* ops, an upper bound */
	simtime_t op_floor_ps;/* the least simulated time one op takes */
};

/* Memory of `sc` (fills bytes, lines, buckets, targets). */
void estimate_memory(const struct scenario *sc, struct estimate *est);
/* Events of `sc`'s run with the built tasks `ts` (their first programs) and
 * `intervals` time-series intervals (fills events, ops, op_floor_ps); UINT64_MAX
 * when an op takes no simulated time. */
void estimate_events(const struct scenario *sc, const struct tasks *ts, uint64_t intervals, struct estimate *est);

/* Fail (FS_ERR_INPUT) when times summed over every task (waiting times of a
 * lock or line) could exceed 2^64 ps: tasks x (warmup + duration) >= 2^64. */
int estimate_check_sums(const struct scenario *sc, struct fs_error *e);
/* Fail (FS_ERR_LIMIT) when the estimate exceeds sc->max_memory / max_events. */
int estimate_check_memory(const struct scenario *sc, const struct estimate *est, struct fs_error *e);
int estimate_check_events(const struct scenario *sc, const struct estimate *est, struct fs_error *e);

#endif
