/* SPDX-License-Identifier: MIT */
/* What a workload sees of a built simulation: the models it drives, nothing of
 * the run around them (no scenario, results, time series or output).
 *
 * The program layer (sim/sim.c) builds every model, fills a world with
 * pointers to them and hands it to the workload's setup, which keeps it for the
 * run. The pointed-to models outlive the workload's state.
 */
#ifndef FUTEXSIM_WORLD_H
#define FUTEXSIM_WORLD_H

#include <gsl/gsl_rng.h>

#include "models/coherence.h"
#include "models/futex_table.h"
#include "models/kernel.h"
#include "models/machine.h"
#include "models/memmap.h"
#include "models/task.h"
#include "sim/core/engine.h"

struct world {
	const struct machine *m;
	const struct kernel_design *k;
	struct engine *eng;
	struct coherence *coh;
	struct memmap *mem;           /* user memory is mapped here, kernel objects already are */
	struct futex_tables *ft;      /* the tables, processes and private hashes */
	struct tasks *tasks;          /* every task: the workload's threads first */
	gsl_rng *rng;                 /* the run's one random stream (seeded by run.seed) */
};

#endif
