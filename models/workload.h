/* SPDX-License-Identifier: MIT */
/* Workloads: what the simulated threads do, selected by `workload.type`.
 *
 * A workload type parses its YAML section into parameters, says how many tasks
 * it needs, builds its processes, memory and programs on the built models (a
 * struct world, models/world.h), starts the tasks, and chooses each task's next
 * program when one completes (program_done). It reports through the common
 * per-task counters and its own figures.
 */
#ifndef FUTEXSIM_WORKLOAD_H
#define FUTEXSIM_WORKLOAD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "models/machine.h"
#include "models/task.h"
#include "sim/core/error.h"
#include "sim/core/yamltree.h"

struct world;

struct workload_size {
	uint32_t processes;           /* processes it creates (futex_tables_add_process) */
	uint32_t max_process_threads; /* threads of its largest process, main thread included */
	uint64_t user_lines;          /* cache lines of user memory and struct pages it maps */
	uint64_t targets;             /* futexes it resolves (per-futex records) */
	uint64_t bytes;               /* its own arrays: per-futex targets, programs, ... */
	simtime_t step_work_ps;       /* typical work it draws before a program run (OPND_TASK_WORK:
					 think time, critical section), 0 when none or unknown; only
					 the event estimate (sim/estimate.h) uses it */
};

/* A workload's own figures of the measured window, for the summary, the result
 * file and `futexsim show` (name, units as in docs/results-format.md, value). */
struct workload_figure {
	char name[40];
	char units[12];
	double value;
};
#define WORKLOAD_MAX_FIGURES 32u
struct workload_figures {
	uint32_t n;
	struct workload_figure v[WORKLOAD_MAX_FIGURES];
	/* acquisition latency histogram (ps): bin edges [nbins + 1] and counts, or none */
	uint32_t nbins;
	const double *edges;
	const double *counts;
};
void workload_figure_add(struct workload_figures *f, const char *name, const char *units, double value);

struct workload_type {
	const char *name;        /* the value of workload.type */
	const char *description;
	int (*parse)(const struct yt_node *n, const struct machine *m, void **params, struct fs_error *e);
	uint32_t (*ntasks)(const void *params);   /* every simulated task */
	uint32_t (*nthreads)(const void *params); /* the first nthreads tasks are the threads
						     reported; the rest do background work */
	int (*setup)(const struct world *world, const void *params, void **state, struct fs_error *e);
	void (*program_done)(void *state, struct task *t);
	/* perf's own header line ("Run summary ...", from the parameters and the built
	 * state) and per-thread label */
	void (*print_header)(const void *params, const void *state, double secs, FILE *out);
	void (*print_thread)(const void *state, const struct task *t, uint64_t ops_per_sec, FILE *out);
	/* the thread's role where threads do different things ("message", "worker"; a
	 * static string), for explain's breakdown by role; NULL hook: all alike */
	const char *(*role)(const void *state, const struct task *t);
	/* The suites that repeat runs (wake, requeue): the lines perf prints per run
	 * ([Run N]: ...) or, with `summary`, its last line, in place of the per-thread
	 * lines and the Averaged line. NULL: those (perf's hash suite). */
	void (*print_perf)(const void *state, bool summary, FILE *out);
	/* its own figures (NULL: none beyond the common ones) */
	void (*figures)(const void *state, struct workload_figures *out);
	void (*free_state)(void *state);
	void (*free_params)(void *params);
	/* What setup will allocate and add, from the parameters alone (nothing is
	 * built): for the resource estimate of sim/estimate.h. */
	void (*size)(const void *params, struct workload_size *out);
	/* The file the workload reads besides the scenario (a trace), as opened, so
	 * that -o cannot replace it (NULL hook or NULL: none). */
	const char *(*input_file)(const void *params);
};

/* Room for the names of every workload type and a NULL. */
#define WORKLOAD_MAX_TYPES 16u
const struct workload_type *workload_find(const char *name);
/* The i-th type of the registry, or NULL past its end. */
const struct workload_type *workload_at(size_t i);
/* The names of every type, in registry order, NULL-terminated, into out; returns out. */
const char *const *workload_names(const char *out[WORKLOAD_MAX_TYPES + 1]);

#endif
