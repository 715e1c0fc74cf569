/* SPDX-License-Identifier: MIT */
/* One simulation: every model of a scenario wired together, run, and its results.
 *
 * sim_build() constructs the models from a loaded scenario (sim/scenario.h):
 * engine, coherence, memory map, spinlocks, futex tables, tasks, the workload;
 * sim_run() runs the warm-up and the measuring window; the results stay in the
 * models (per-task ops, per-line and per-lock counters) for reports.
 * All mutable state of a run lives here: nothing is global.
 */
#ifndef FUTEXSIM_SIM_H
#define FUTEXSIM_SIM_H

#include <gsl/gsl_rng.h>
#include <stdbool.h>
#include <stdint.h>

#include "models/coherence.h"
#include "models/futex_table.h"
#include "models/memmap.h"
#include "models/spinlock.h"
#include "models/task.h"
#include "models/workload.h"
#include "models/world.h"
#include "sim/core/engine.h"
#include "sim/core/error.h"
#include "sim/scenario.h"
#include "sim/timeseries.h"

struct sim {
	const struct scenario *sc;
	const struct machine *m;
	const struct kernel_design *k;
	struct engine eng;
	struct coherence coh;
	struct memmap mem;
	struct spinlocks locks;
	struct rwsems rwsems;
	struct futex_tables ft;
	struct tasks tasks;
	gsl_rng *rng;
	struct world world;       /* what the workload sees of the above */
	void *wl;                 /* the workload's state */
	struct timeseries series; /* ops and transfers per output.interval */
	uint32_t nthreads;        /* tasks 0..nthreads-1 are the workload's reported threads */
	simtime_t warmup_end, end;
	uint32_t control_kind;    /* engine event: end of warm-up */
	bool interrupted;         /* sim_run stopped early on eng.interrupt */
};

int sim_build(struct sim *s, const struct scenario *sc, struct fs_error *e);
/* Runs the warm-up and the window, then closes the time series (rows go to the
 * sink set with series_set_sink(&s->series, ...), if any). Stops early when
 * s->eng.interrupt is flagged: s->interrupted is then set and the figures
 * cover the simulated time up to the stop. */
int sim_run(struct sim *s, struct fs_error *e);
/* sim_run in steps, for callers that look at the models between them:
 * sim_start, then sim_advance to increasing times, then sim_finish. */
void sim_start(struct sim *s);
void sim_advance(struct sim *s, simtime_t until);
int sim_finish(struct sim *s, struct fs_error *e);
void sim_free(struct sim *s);
/* Once the results are gathered (sim/results.h): frees what only the run needed
 * (the workload's state, the lines' coherence state, locks, tables, tasks), so
 * that writing the result file does not hold it too. Keeps the memory map, whose
 * names the results borrow, the engine and the run's scalars (interrupted, end,
 * the clock); sim_free frees the rest. */
void sim_release_models(struct sim *s);

/* The measured window in simulated time: after the warm-up, up to its end or
 * to where an interrupted run stopped. */
simtime_t sim_window_ps(const struct sim *s);
double sim_window_secs(const struct sim *s);
/* Where that window ends: the time results take each task's time by class at
 * (tasks_split_work). */
simtime_t sim_window_stop(const struct sim *s);

#endif
