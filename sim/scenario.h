/* SPDX-License-Identifier: MIT */
/* A scenario: the YAML a user runs, with its machine and kernel presets resolved,
 * --set overrides applied, and every section parsed into model parameters.
 *
 * Keys (docs/scenario.md): name, description, machine, kernel, workload, run,
 * output. `machine` and `kernel` name a preset (machines/NAME.yaml, kernels/NAME.yaml
 * in a directory of the search path, scenario_config_path), give a path to a YAML file, or are a map with an
 * optional `preset: NAME` plus fields that override the preset's. Presets may
 * `inherit: OTHER` and override fields the same way.
 */
#ifndef FUTEXSIM_SCENARIO_H
#define FUTEXSIM_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "models/kernel.h"
#include "models/machine.h"
#include "models/workload.h"
#include "sim/core/error.h"
#include "sim/core/simtime.h"
#include "sim/core/yamltree.h"

struct event_queue_type;

/* Runs are refused beyond this much simulated time (keeps every sum of times far
 * from 2^64 ps). */
#define SCENARIO_MAX_SIM_PS (3600ull * 1000000000000ull)
/* output.interval may cut the measured time into at most this many intervals
 * (each one an event and a row of the result file's time series): the longest
 * run at the default 100us, so only a shorter interval can pass it. */
#define SCENARIO_MAX_INTERVALS (SCENARIO_MAX_SIM_PS / 100000000ull)
/* Defaults of run.max_memory and run.max_events (sim/estimate.h): a sixth of
 * the 24 GiB machines futexsim is developed on, and an upper bound of events
 * that takes minutes, not hours, at the simulator's usual 5-20M events/s. */
#define SCENARIO_DEFAULT_MAX_MEMORY (4ull << 30)
#define SCENARIO_DEFAULT_MAX_EVENTS 10000000000ull

/* The directories holding machines/ and kernels/ presets, searched in order. */
#define SCENARIO_MAX_CONFIG_DIRS 64
struct config_path {
	size_t n;
	const char *dirs[SCENARIO_MAX_CONFIG_DIRS + 1]; /* NULL-terminated */
	char buf[8192];                                  /* $FUTEXSIM_PATH split, the default dir */
};

struct scenario {
	struct yt_doc *doc;
	const char *path;
	const char *given_text;       /* the file's bytes exactly as read (owned by doc) */
	size_t given_len;
	const char *const *sets;      /* the --set overrides, in order (the caller's strings) */
	size_t nsets;
	struct yt_node *given;        /* the file as loaded */
	struct yt_node *resolved;     /* overrides applied, presets merged in, and every
					 default a reader used recorded (sim/core/config.h), so
					 emitting it gives a scenario that runs the same;
					 docs/results-format.md lists what is not echoed */
	const char *name;
	struct config_path config_path; /* where presets were looked for */

	struct machine machine;
	struct kernel_design kernel;
	const struct workload_type *wl_type;
	void *wl_params;

	simtime_t duration, warmup;
	uint64_t seed;
	uint64_t user_base;           /* user heap base (page aligned; seeded ASLR) */

	bool per_thread;              /* print perf's per-thread lines */
	uint32_t hottest_lines;       /* lines listed in the summary */
	simtime_t interval;           /* output.interval: time series resolution */

	uint64_t max_memory;          /* run.max_memory: bytes the model may take (sim/estimate.h) */
	uint64_t max_events;          /* run.max_events: engine events a run may need */
	/* run.event_queue: the engine's queue (sim/core/event_queue.h). Not a model
	 * parameter: every queue gives the same results, only the speed differs, so
	 * its default is not recorded in `resolved` (a given value is, as given). */
	const struct event_queue_type *event_queue;

	/* every file loading it read: the scenario, then each machine and kernel file or
	 * preset and those they inherit from; NULL-terminated (what run -o must not
	 * replace: h5out_check_path) */
	char **inputs;
	size_t ninputs;
};

/* Loads `path`, applies `sets` ("dotted.path=VALUE") in order, resolves presets
 * and parses everything. On error fills `e` (FILE:LINE:COL where it applies).
 * `sets` must outlive the scenario (it is kept for provenance). */
int scenario_load(struct scenario *sc, const char *path, const char *const *sets, size_t nsets,
		  struct fs_error *e);
void scenario_free(struct scenario *sc);

/* As scenario_load, with the directories of `config_dirs` (NULL-terminated, may be
 * NULL; e.g. run --config-dir) searched for presets first (scenario_config_path). */
int scenario_load_dirs(struct scenario *sc, const char *path, const char *const *sets, size_t nsets,
		       const char *const *config_dirs, struct fs_error *e);

/* The preset search path: the directories of `extra` (NULL-terminated, may be NULL),
 * then those of $FUTEXSIM_PATH (colon-separated), then the default directory. */
void scenario_config_path(struct config_path *p, const char *const *extra);

/* The directory of futexsim's data (configs/, scenarios/, analysis/), found from the
 * running executable, so that an installed or a moved copy finds its own:
 * $FUTEXSIM_DATA when set; else, for an installed PREFIX/bin/futexsim,
 * PREFIX/share/futexsim when it holds configs/kernels/ and scenarios/; else the
 * source tree one or two levels above the executable (bin/futexsim,
 * build-san/bin/futexsim, build/tests/check_x); else the tree it was built in.
 * May be written into buf. */
const char *futexsim_data_dir(char *buf, size_t len);

/* A data file by its path relative to the data directory (analysis/calibration.yaml):
 * PATH itself when absolute or present from the current directory, else the data
 * directory's when that exists (written into buf), else PATH (whose open then fails). */
const char *futexsim_data_file(const char *path, char *buf, size_t len);

/* The default directory of presets: $FUTEXSIM_CONFIGS when set; else the data
 * directory's configs/ (written into buf). */
const char *scenario_default_config_dir(char *buf, size_t len);

/* The scenario file ARG names: ARG when it is a file (or absolute); else ARG under the
 * data directory (scenarios/claims/refcount.yaml); else by name (quickstart,
 * workloads/mutex: ".yaml" added unless given) DIR/scenarios/NAME.yaml for each
 * directory of CP but the default configs/, then the data directory's scenarios/.
 * NULL when none is found, `looked` listing the scenarios/ directories tried. */
const char *scenario_find(const char *arg, const struct config_path *cp, char *buf, size_t len, char *looked,
			  size_t looked_len);

#endif
