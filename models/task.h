/* Simulated tasks (threads pinned to CPUs) and the executor of their programs.
 *
 * A task runs a program of micro-operations (models/futex_path.h) for one futex
 * operation at a time. Local work only advances the task's own clock; anything
 * that touches shared state (a line access, a spinlock) happens at the engine's
 * current time. When the task's clock is ahead, it runs on without an event if no
 * other event is due first (the result is the same as scheduling one), otherwise
 * it schedules a resume. It also runs ahead of the engine on a line nobody else
 * uses, and through back-to-back accesses to one line (models/coherence.h,
 * coh_access_ahead). Waiting for a line, a lock hand-off or a re-read costs no
 * events until the coherence model grants it.
 *
 * Local work takes machine.smt_slowdown longer while another hardware thread of
 * the same core is busy. Ops completing in the measuring window are counted per
 * task. After each op the workload's op_done hook sets the next op (target and
 * program) or stops the task.
 */
#ifndef FUTEXSIM_TASK_H
#define FUTEXSIM_TASK_H

#include <stdbool.h>
#include <stdint.h>

#include <gsl/gsl_rng.h>

#include "models/coherence.h"
#include "models/rwsem.h"
#include "models/futex_path.h"
#include "models/machine.h"
#include "models/spinlock.h"
#include "sim/engine.h"

enum task_state {
	TS_IDLE,       /* not started, or stopped */
	TS_RUN,        /* runnable (has a resume event or is running) */
	TS_ACCESS,     /* waiting for a line access to be granted */
	TS_LOCK_ACCESS, /* waiting for an access of the lock's fast or slow path */
	TS_LOCK_MCS,   /* queued behind other waiters, spinning on its MCS node */
	TS_LOCK_SPIN,  /* queue head: spinning on the lock's line */
	TS_LOCK_TAKE,  /* queue head saw the lock free: waiting for the write that takes it */
	TS_UNLOCK,     /* waiting for the unlock store */
	TS_RWSEM_ACCESS, /* waiting for the atomic of an rwsem down or up */
	TS_SLEEP       /* asleep in a semaphore's queue, not using its CPU */
};

struct task;
typedef void (*task_op_done_fn)(void *ctx, struct task *t);

struct task {
	uint32_t id;
	uint32_t cpu, core, node;
	uint32_t process;
	uint8_t state;
	simtime_t t;                  /* the task's clock (>= engine now while it runs) */
	const struct uop *prog;
	uint32_t nuops, pc;
	struct op_target target;      /* what the current op touches */
	uint32_t burst_line;          /* line of the previous micro-op if nothing came between */
	uint8_t lock_stage;           /* the next access of a lock micro-op (task.c) */
	bool background;              /* not one of the workload's threads: never counts as busy */
	uint64_t ops;                 /* ops completed inside the measuring window */
	uint64_t ops_total;
	simtime_t started;
};

struct tasks {
	struct engine *eng;
	struct coherence *coh;
	struct spinlocks *locks;
	const struct machine *m;
	const uint32_t *qnode_lines;  /* per CPU */
	struct rwsems *rwsems;
	gsl_rng *rng;                 /* random local work (OPND_RANDOM_EXP) */
	simtime_t wakeup_latency_ps;  /* a woken sleeper runs this long after its waker */

	uint32_t n;
	struct task *v;
	uint32_t *core_busy;          /* running tasks per core */
	uint32_t resume_kind, handoff_kind, wake_kind;
	simtime_t window_start, window_end; /* ops are counted when they complete inside */

	task_op_done_fn op_done;
	void *op_done_ctx;
};

int tasks_init(struct tasks *ts, struct engine *eng, const struct machine *m, uint32_t n);
/* Second stage, once the coherence and lock models exist (they need the task count). */
void tasks_attach(struct tasks *ts, struct coherence *coh, struct spinlocks *locks, const uint32_t *qnode_lines,
		  task_op_done_fn op_done, void *ctx);
void tasks_free(struct tasks *ts);

/* The coherence model's grant callback (ctx = struct tasks *). */
void tasks_on_grant(void *ctx, uint32_t task, uint32_t line);

/* Declares to the coherence model every line task `t` may touch: its program
 * run against each of `ntargets` targets. Needed for running ahead on solo lines. */
void task_note_lines(struct tasks *ts, const struct task *t, const struct op_target *targets, uint32_t ntargets);

/* Starts task `t` (its first op already set) at time `at`. */
void task_start(struct tasks *ts, struct task *t, simtime_t at);
/* Stops a task at the end of its current op (from op_done). */
void task_stop(struct tasks *ts, struct task *t);

#endif
