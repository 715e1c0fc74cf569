/* SPDX-License-Identifier: MIT */
/* A workload's processes and threads: which tasks belong to which process, the
 * CPUs they run on, thread creation, and the private-hash resizes it causes.
 *
 * Threads are split into processes in order (process q gets threads
 * [T*q/P, T*(q+1)/P)); thread i runs on cpus[i % ncpus] (several threads may share
 * a CPU). Each process is created on the node of its first thread's CPU. With
 * `staggered`, a process starts with its main thread only and its threads are
 * created one at a time (procset_create); each creation may grow an auto-sized
 * private hash (futex_hash_allocate_default() in kernel/futex/core.c: the 6.16+ growth rule). A grown hash is
 * published to the process's ops at once, or, when the refcount mode switches to
 * atomic for a replacement (6.17 per-CPU), two RCU grace periods later; until then
 * the process's ops run the atomic-mode variant of their programs. Publishing
 * asks the workload to re-resolve its futexes and to move sleeping waiters to the
 * new hash (futex_hash_rehash); the workload may refuse while one of the
 * process's ops is still inside the old hash, and the publish is retried.
 */
#ifndef FUTEXSIM_PROCSET_H
#define FUTEXSIM_PROCSET_H

#include <stdbool.h>
#include <stdint.h>

#include "models/futex_path.h"
#include "models/task.h"
#include "models/workload.h"
#include "sim/core/error.h"
#include "sim/core/yamltree.h"

struct world;

/* The YAML keys every multi-threaded workload shares (docs/scenario.md):
 * threads (default: one per CPU of the list), cpus ("all"), processes (1),
 * threads_start (together | as_created), create_interval (50us), start_skew (1us),
 * churn_interval (0: none; else every interval one thread, round-robin, exits at
 * its next op boundary and a new one takes its place create_interval later). */
struct procset_params {
	uint32_t threads, processes;
	uint32_t *cpus, ncpus;
	/* threads of each process, in order (NULL: the equal blocks above); not a YAML
	 * key: a workload that knows its processes (a replayed trace) sets it */
	const uint32_t *process_threads;
	bool staggered;          /* threads_start: as_created */
	simtime_t create_interval, start_skew, churn_interval;
};
#define PROCSET_KEYS \
	"threads", "cpus", "processes", "threads_start", "create_interval", "start_skew", "churn_interval"

/* Thread i runs on cpus[i % ncpus]: more threads than CPUs share them round-robin
 * (perf bench pins thread i to online CPU i mod N). */
int procset_parse(const struct yt_node *n, const struct machine *m, struct procset_params *p,
		  struct fs_error *e);
void procset_params_free(struct procset_params *p);
/* For a workload whose parameters begin with their struct procset_params (a pointer
 * to a struct points to its first member too): its threads, and freeing the
 * parameters, as workload_type.nthreads and .free_params take them. */
uint32_t procset_params_threads(const void *params);
void procset_params_release(void *params);

/* Program variants of a task: the usual one, and the one for a resize window in
 * which a per-CPU refcount runs in atomic mode. */
enum prog_variant { PROG_NORMAL, PROG_REF_ATOMIC, NPROG_VARIANTS };

struct procset_ops {
	/* thread `t` was created: set its first op and task_start it at now */
	void (*thread_started)(void *ctx, struct task *t);
	/* process `pid`'s new private hash is published: re-resolve the process's
	 * futexes, rebuild programs, move waiters. False: an op is still in the old
	 * hash; the publish is retried a little later. */
	bool (*publish)(void *ctx, uint32_t pid);
};

struct procset {
	const struct world *world;
	uint32_t nprocs;        /* processes 0..nprocs-1 of the futex tables (struct process) */
	const struct procset_params *p;
	bool private_ops;       /* the workload's futex ops are private (may use a private hash) */
	struct procset_ops ops;
	void *ctx;
	uint32_t create_kind, publish_kind, churn_kind;
	bool *exit_due;         /* per thread: churn picked it to exit */
	uint64_t created;       /* threads created after the start (as_created, churn) */
	uint64_t exits;         /* threads that exited (churn) */
};

/* Creates the processes for tasks 0..threads-1 and places the tasks on CPUs. */
int procset_init(struct procset *ps, const struct world *world, const struct procset_params *p, bool private_ops,
		 const struct procset_ops *ops, void *ctx, struct fs_error *e);
void procset_free(struct procset *ps);

/* Starts the threads: all at once (each after a random skew below start_skew) or,
 * when staggered, one created every create_interval. */
void procset_start(struct procset *ps);

/* pthread_create of thread `task` at `at` (>= now), as a staggered start creates
 * them: the process's private hash may grow, then thread_started runs. For a
 * workload that creates its threads itself (a replayed trace's clones). */
void procset_create_at(struct procset *ps, uint32_t task, simtime_t at);

/* At an op boundary where thread t holds nothing: if churn picked it, it exits
 * here (task stopped; a new thread is created in its place later). True then. */
bool procset_exiting(struct procset *ps, struct task *t);

/* Its figures: threads_created (after the start), thread_exits (churn). */
void procset_figures(const struct procset *ps, struct workload_figures *out);

/* Whether process `pid`'s ops use the per-CPU refcount's atomic mode during a resize. */
bool procset_uses_atomic_mode(const struct procset *ps, uint32_t pid);
/* The program variant task `t`'s next op runs. */
enum prog_variant procset_variant(const struct procset *ps, const struct task *t);

/* A path builder for task `t`'s programs (sim's kernel and machine, its process's
 * lines, the variant), writing into uops[cap]. */
struct path_builder procset_builder(const struct procset *ps, const struct task *t, enum prog_variant v,
				    bool shared, struct uop *uops, uint32_t cap);

#endif
