/* SPDX-License-Identifier: MIT */
/* Simulated tasks (threads pinned to CPUs) and the interpreter of their programs.
 *
 * Words: a *program* is the list of micro-operations (models/futex_path.h) a
 * task runs for one futex call or one user-space step; a *micro-op* is one
 * instruction of it (local work, a line access, a lock, ...); an *access* is one
 * load, store or RMW of a cache line (models/coherence.h); an *op* is what the
 * workload counts: one program for hash-bench, one lock acquisition for mutex.
 *
 * A task runs one program at a time. Local work only advances the task's own
 * clock; anything that touches shared state (a line access, a spinlock) happens
 * at the engine's current time. When the task's clock is ahead, it runs on
 * without an event if no other event is due first (the result is the same as
 * scheduling one), otherwise it schedules a resume. It also runs ahead of the
 * engine on a line nobody else uses, and through back-to-back accesses to one
 * line (coh_access_ahead). Waiting for a line, a lock hand-off or a re-read
 * costs no events until the coherence model grants it (tasks_on_grant).
 *
 * The executor is split by concept: this interpreter (task.c), the CPUs and run
 * queues (task_cpu.h), the inline access helpers (task_access.h), the lock
 * protocols (task_lock.h) and the futex queues with their wake and requeue walks
 * (futex_queue.h). Local work takes machine.smt_slowdown longer while another
 * hardware thread of the same core is busy. Ops completing in the measuring
 * window are counted per task. After each program the workload's program_done
 * hook sets the next program and target, or stops the task.
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
#include "models/sched/fair.h"
#include "models/sched/idle.h"
#include "models/sched/select.h"
#include "models/spinlock.h"
#include "sim/core/engine.h"

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
	TS_USER_ACCESS,  /* waiting for the line of a user-space atomic on its futex word */
	TS_WAITERS_ACCESS, /* waiting for the line of a bucket's waiters count */
	TS_WALK_ACCESS,  /* walking a chain: waiting for a line */
	TS_PI_ACCESS,    /* waiting for the line of a PI step's RMW of its futex word */
	TS_RT_SPIN,    /* PREEMPT_RT: the bucket lock's top waiter spinning on its running owner */
	TS_SLEEP,      /* asleep (a semaphore's, a futex's or an rtlock's queue), not using its CPU */
	TS_READY,      /* runnable, waiting in its CPU's run queue */
	TS_NSTATES
};

/* The executor's state machine: every state change there is, as (from, to, when).
 * Nothing else is valid: task_set_state checks each change against this table in
 * FUTEXSIM_DEBUG builds (make sanitize), where tests/check_taskstate.c shows every
 * row reached (by scenarios; TS_LOCK_SPIN -> TS_RUN, which needs the spinner's CPU to
 * hold the lock's line when it sees the lock free, only by a staged grant). A micro-op a task can finish at once leaves it in TS_RUN (the
 * row TS_RUN -> TS_RUN); a wait TS_*_ACCESS ends with the coherence model's grant
 * (tasks_on_grant), which finishes the micro-op and runs the task on, or moves it
 * to the protocol's next wait. Wake-ups and hand-offs come as engine events.
 *
 *     from               to                 when (where)
 */
#define TASK_TRANSITIONS(X) \
	X(TS_IDLE,           TS_RUN,            "started on its idle CPU, or as a background task (task_start)") \
	X(TS_IDLE,           TS_READY,          "started on a CPU another task runs on: queues (task_start)") \
	X(TS_RUN,            TS_RUN,            "a micro-op done at once, or a resume scheduled at its clock (catch_up)") \
	X(TS_RUN,            TS_ACCESS,         "a line access waits for the line (UOP_ACCESS)") \
	X(TS_RUN,            TS_LOCK_ACCESS,    "a lock stage's access waits for the lock's line (lock_run)") \
	X(TS_RUN,            TS_LOCK_MCS,       "the xchg queued it behind the tail: spins on its MCS node") \
	X(TS_RUN,            TS_LOCK_SPIN,      "its cmpxchg or xchg found the lock held: the pending waiter, or the queue head") \
	X(TS_RUN,            TS_UNLOCK,         "the unlock's store or RMW waits for the lock's line") \
	X(TS_RUN,            TS_RWSEM_ACCESS,   "an rwsem down or up waits for the semaphore's line") \
	X(TS_RUN,            TS_USER_ACCESS,    "a user-space atomic waits for its futex word's line") \
	X(TS_RUN,            TS_WAITERS_ACCESS, "a waiters count's RMW waits for its line") \
	X(TS_RUN,            TS_WALK_ACCESS,    "a chain walk's stage waits for its line") \
	X(TS_RUN,            TS_PI_ACCESS,      "a PI step's RMW waits for its line") \
	X(TS_RUN,            TS_RT_SPIN,        "PREEMPT_RT: the lock is held by a running owner: spins on it as top waiter") \
	X(TS_RUN,            TS_SLEEP,          "sleeps: a futex wait, a nap, a contended rwsem or rtlock") \
	X(TS_RUN,            TS_READY,          "its time slice is used up at an op's end, others wait: preempted") \
	X(TS_RUN,            TS_IDLE,           "stopped by its workload, or its clock passed the window's end") \
	X(TS_ACCESS,         TS_RUN,            "the line was granted: the access is done") \
	X(TS_LOCK_ACCESS,    TS_RUN,            "granted: the lock is taken, or on to its next stage's access") \
	X(TS_LOCK_ACCESS,    TS_LOCK_MCS,       "granted xchg: queued behind the tail") \
	X(TS_LOCK_ACCESS,    TS_LOCK_SPIN,      "granted cmpxchg or xchg: held, it spins as pending waiter or queue head") \
	X(TS_LOCK_ACCESS,    TS_RT_SPIN,        "PREEMPT_RT, granted: held by a running owner, spins on it") \
	X(TS_LOCK_ACCESS,    TS_SLEEP,          "PREEMPT_RT, granted: held, it sleeps in the rtlock's queue") \
	X(TS_LOCK_MCS,       TS_LOCK_SPIN,      "its predecessor's store made it the queue head (lock_handed_over)") \
	X(TS_LOCK_SPIN,      TS_RUN,            "its re-read saw the lock free and the take's write hit: the lock is held") \
	X(TS_LOCK_SPIN,      TS_LOCK_SPIN,      "its re-read saw the lock still held: spins on") \
	X(TS_LOCK_SPIN,      TS_LOCK_TAKE,      "its re-read saw the lock free: waits for the write that takes it") \
	X(TS_LOCK_TAKE,      TS_RUN,            "the take's write was granted: the lock is held (lock_taken)") \
	X(TS_UNLOCK,         TS_RUN,            "the unlock was granted: done, or (PREEMPT_RT) on to the wait_lock's RMW") \
	X(TS_RWSEM_ACCESS,   TS_RUN,            "granted: the semaphore is taken or released") \
	X(TS_RWSEM_ACCESS,   TS_SLEEP,          "granted: contended, it sleeps in the semaphore's queue") \
	X(TS_USER_ACCESS,    TS_RUN,            "granted: the user-space atomic took effect") \
	X(TS_WAITERS_ACCESS, TS_RUN,            "granted: the waiters count changed") \
	X(TS_WALK_ACCESS,    TS_RUN,            "granted: the walk goes on (or ends)") \
	X(TS_PI_ACCESS,      TS_RUN,            "granted: the PI step took effect") \
	X(TS_RT_SPIN,        TS_RUN,            "PREEMPT_RT: the owner let go: retries the lock") \
	X(TS_RT_SPIN,        TS_SLEEP,          "PREEMPT_RT: the owner left its CPU holding the lock: sleeps") \
	X(TS_SLEEP,          TS_RUN,            "woken (on_wake): takes its idle CPU, or as a background task") \
	X(TS_SLEEP,          TS_READY,          "woken (on_wake) onto a CPU another task runs on: queues") \
	X(TS_READY,          TS_RUN,            "its CPU's running task gave it up: dispatched (after a context switch)")

#define TASK_NONE UINT32_MAX
/* Compositions of work micro-ops counted per task on the hot path (one add each);
 * the others (a workload's draw with fixed work, or beyond these) are split at once. */
#define WORK_COMPS 32u

struct task;
typedef void (*task_hook_fn)(void *ctx, struct task *t);

/* Where a thread's time goes, by what its micro-ops do (futexsim explain): each
 * micro-op's time, from its start to the next's, its waits included, within the
 * measured window. Consecutive local work of several path steps is one micro-op;
 * its time goes to its parts (struct work_parts) in proportion to their work:
 * the kernel's by step (task.acct.step_ps), the library's and the workload's to user_work. */
enum time_class {
	TC_KERNEL_WORK,   /* local work on the futex path (syscall entry/exit, key, hash, ...) */
	TC_USER_WORK,     /* the workload's own work between calls */
	TC_BUCKET_LINES,  /* accesses to hash bucket lines (priv, chain), transfers included */
	TC_OTHER_LINES,   /* other kernel lines: mm, private hash header, refcounts, struct page */
	TC_WAITERS,       /* the bucket's waiters count, inc and dec */
	TC_LOCK,          /* taking the bucket lock, waiting for it included */
	TC_UNLOCK,
	TC_USER_ACCESS,   /* the futex word in user memory */
	TC_MMAP_LOCK,     /* the mm's rw semaphore */
	TC_CHAIN,         /* queueing on and walking the bucket's chain */
	TC_ASLEEP,        /* blocked in a futex wait until woken */
	TC_NCLASSES
};
extern const char *const time_class_names[]; /* NULL-terminated, in enum order */

/* The futex call a task's program makes: its arguments, set by the workload before
 * the program (models/usync.h), and what it found, read by the workload after it. */
struct task_call {
	uint32_t expected, newval;    /* FUTEX_WAIT's val, the requeue's cmpval; user atomics' operands */
	struct futex_word *word;      /* uaddr (user atomics act on it too) */
	simtime_t work_ps;            /* local work of an OPND_TASK_WORK micro-op, set by the workload */
	uint32_t old_value;           /* the word's value its last user atomic or PI_LOCK_ATOMIC found */
	uint32_t proxy_woken;         /* PI_PROXY_LOCK: waiters it woke owning the second futex (0 or 1) */
	uint32_t nwake, nrequeue;
	struct futex_word *word2;     /* uaddr2 of a requeue */
	struct op_target target2;     /* uaddr2's table and bucket */
};

/* Where a task's time went (futexsim explain), counted by its own clock inside the
 * measured window (task.c: account); the current micro-op's class and start are
 * run state (task.acct_class, acct_from). */
struct task_acct {
	simtime_t time_ps[TC_NCLASSES]; /* by what it did (enum time_class): every micro-op adds to one */
	simtime_t comp_ps[WORK_COMPS];  /* the time of fixed work micro-ops, by composition (their
					   parts, below WORK_COMPS): split by step when reported */
	simtime_t step_ps[STEP_NSTEPS]; /* kernel_work by path step, of the work micro-ops split at once
					   (the rare ones: last, the cold end of the group) */
};

/* A task's CPU: its place in the run queue and the fair class, where it may run,
 * a wake-up under way, and PREEMPT_RT's sleeping bucket lock (whose holder may be
 * preempted inside its section). */
struct task_sched {
	bool rt_queued;               /* PREEMPT_RT: a waiter of the lock it is taking */
	bool rt_woken;                /* ... whose unlocker has woken it (a wake event is due) */
	bool wake_to_idle;            /* its wake-up reserved an idle CPU: it runs there when it lands */
	uint32_t runq_next;           /* next task in its CPU's run queue */
	uint32_t waker_cpu;           /* the CPU its pending wake-up came from */
	simtime_t lock_taken_at;      /* when it took the bucket lock it holds last */
	simtime_t exec_start;         /* its clock when its run time was last accounted */
	struct fair_entity fair;      /* its virtual runtime and deadline (models/sched/fair.h) */
	struct wakee_record wakee;    /* whom it woke (wake_wide) */
	const struct cpu_mask *allowed; /* CPUs it may run on; NULL: only its cpu */
};

/* A task's wait: as a futex waiter on a bucket's chain (models/futex_queue.h), and
 * asleep (a futex's, a semaphore's or an rtlock's queue, or a nap). */
struct task_wait {
	struct futex_word *word;      /* the word it is queued on, NULL when not queued */
	const struct futex_table *table; /* the chain it is on: its table and bucket */
	simtime_t slept_at;           /* when it last went to sleep */
	uint32_t chain_next;          /* next task in its bucket's chain */
	uint32_t wake_q_next;         /* next on its waker's wake_q */
	uint32_t bucket;
	uint32_t q_line;              /* the line of its futex_q (on its stack), COH_NONE if none */
	bool wake_pending;            /* woken before it went to sleep: do not sleep */
};

/* A chain walk in progress (UOP_WALK, models/futex_queue.h), as waker or requeuer. */
struct chain_walk {
	uint32_t prev, cur;           /* the entry before the one it visits, and that one */
	uint32_t taken;               /* the entry it is unlinking */
	uint8_t stage;                /* enum walk_stage */
	uint32_t woken, moved;        /* waiters woken and requeued by this walk */
	uint32_t wake_q, wake_q_tail; /* the sleepers it woke, woken once it drops its bucket
					 locks (wake_up_q after the unlock); TASK_NONE: none */
};

/* A task's counters for reports, restarted when the window starts (tasks_reset_stats). */
struct task_stats {
	uint64_t wakeups;             /* times it was woken from a futex wait */
	uint64_t chain_walked;        /* chain entries its walks visited */
	uint64_t requeued;            /* waiters its requeues moved */
	simtime_t slept_ps;           /* time asleep (futex waits, semaphores) until woken, in the window */
	uint64_t switches_in;         /* times it got its CPU from another task (context switches) */
	uint64_t wake_ipis;           /* of its wake-ups, those that needed an IPI */
	uint64_t wake_preempts;       /* ... that preempted the task running on its CPU */
	uint64_t migrations;          /* ... that moved it to another CPU */
	simtime_t wake_latency_ps;    /* from its wakers' wake-ups to it running, summed */
	uint64_t futex_calls;         /* futex syscalls it made (counted by the workload) */
};

/* A simulated thread, in parts: its run state, then the futex call, the time
 * accounting, the CPU, the wait, the walk and the counters. The order is the hot
 * path's: the run state every micro-op touches comes first (the first two host
 * lines), then what each op touches (its call, its time by class), then what only
 * blocking, scheduling and reports touch, so that the state of a task, among
 * thousands, costs the host few cache misses per op. Aligned to host lines. */
struct task {
	/* run state: every micro-op */
	uint32_t id;
	uint32_t cpu, core, node;
	uint32_t process;
	uint8_t state;
	uint8_t lock_stage;           /* the next access of a lock micro-op (enum lock_stage) */
	uint8_t locks_held;           /* bucket locks it holds (0 to 2) */
	uint8_t acct_class;           /* the current micro-op's class (acct_from) */
	simtime_t clock;              /* the task's clock (>= engine now while it runs) */
	const struct uop *prog;
	uint32_t nuops, pc;
	struct op_target target;      /* what the current program touches */
	uint32_t burst_line;          /* line of the previous micro-op if nothing came between */
	uint32_t lock, lock_line;     /* the spinlock of the lock/unlock micro-op in progress */
	bool background;              /* not one of the workload's threads: never counts as busy */
	bool uncounted;               /* its program completions are not ops: the workload counts */
	bool acct_started;            /* its clock passed the window's start: its time counts (task.c) */
	simtime_t acct_from;          /* the current micro-op began then (class acct_class) */
	uint64_t ops;                 /* ops completed inside the measuring window */
	uint64_t programs_run;        /* programs completed, warm-up included */
	simtime_t last_program_clock; /* its clock when it last completed one */
	uint32_t programs_same_time;  /* programs completed in a row without its clock moving */

	struct task_call call;        /* the futex call: every op */
	struct task_acct acct;        /* its time: every micro-op adds to acct.time_ps */
	struct task_sched sched;      /* its CPU: context switches, PREEMPT_RT's lock */
	struct task_wait wait;        /* blocking ops and sleeps */
	struct chain_walk walk;       /* wakes and requeues */
	struct task_stats stats;      /* reports */
} __attribute__((aligned(64)));

/* A row of TASK_TRANSITIONS, and the table itself (for tests and messages). */
struct task_transition {
	uint8_t from, to;             /* enum task_state */
	const char *when;
};
extern const struct task_transition task_transitions[];
extern const uint32_t task_ntransitions;
extern const char *const task_state_names[]; /* by enum task_state */

/* Whether the executor may go from state `from` to `to`: a row of TASK_TRANSITIONS. */
bool task_transition_valid(enum task_state from, enum task_state to);

#ifdef FUTEXSIM_DEBUG
/* Aborts with a message when t's change to `next` is not in TASK_TRANSITIONS, and
 * notes the change as seen (for the test that every row is reachable). */
void task_check_transition(const struct task *t, enum task_state next);
/* Whether some task of this process made the change since it started. */
bool task_transition_seen(enum task_state from, enum task_state to);
#endif

/* Every change of a task's state goes through here (the executor's only writer of
 * t->state; tests set states by hand to stage a grant). Checked only in debug
 * builds: on the hot path it is one store. */
static inline void task_set_state(struct task *t, enum task_state next)
{
#ifdef FUTEXSIM_DEBUG
	task_check_transition(t, next);
#endif
	t->state = (uint8_t)next;
}

/* What the engine's prefetch hook fetches before a task's resume: kept apart from
 * the task (8 bytes each, in the host's cache) so the hook itself does not miss. */
struct resume_hint {
	uint32_t line;                /* the line the resume will access first, or COH_NONE */
	uint32_t lock;                /* its current op's bucket lock, or SPIN_NONE */
};

struct tasks {
	struct engine *eng;
	struct coherence *coh;
	struct spinlocks *locks;
	const struct machine *m;
	const uint32_t *qnode_lines;  /* per CPU */
	struct rwsems *rwsems;
	gsl_rng *rng;                 /* random local work (OPND_RANDOM_EXP) */
	struct fair_params fair;      /* the kernel's fair class, its slice scaled to the machine */
	const struct machine_sched *msched; /* the machine's idle states and wake-up costs */
	bool preempt_rt;              /* bucket locks are PREEMPT_RT's sleeping spinlock_t (models/rtlock.h) */

	uint32_t n;
	struct task *v;
	uint32_t *core_busy;          /* running tasks per core */
	/* per CPU: the task on it (TASK_NONE: idle, since idle_since; a task whose wake-up
	 * reserved it counts), its run queue and how many wait there, the fair class's sums,
	 * the idle governor's history, and when a woken task's preemption of the running
	 * one takes effect (SIMTIME_MAX: none pending) */
	uint32_t *cpu_current, *runq_head, *runq_tail, *runq_len;
	simtime_t *idle_since;
	struct fair_rq *rq;
	struct idle_history *idle_hist;
	simtime_t *resched_at;
	struct resume_hint *hint;     /* per task */
	uint32_t resume_kind, handoff_kind, wake_kind, timer_kind;
	simtime_t window_start, window_end; /* ops are counted when they complete inside */

	task_hook_fn program_done;    /* the workload's: sets the next program, or stops the task */
	void *program_done_ctx;
	task_hook_fn op_counted;   /* every counted op (for time series) */
	void *op_counted_ctx;
	task_hook_fn slept;        /* the workload's, when one of its tasks goes to sleep (or NULL) */
	void *slept_ctx;
	bool finished;             /* the workload has done all it does: the run ends now */
	struct work_part_table parts; /* the work micro-ops' compositions (models/futex_path.h) */
	bool stalled;                 /* a task's programs stopped advancing its clock: run stopped */
};

/* Programs a task may complete in a row without its clock moving before the run
 * is stopped as stalled (a design whose every cost is 0 on some loop). */
#define TASK_MAX_PROGRAMS_SAME_TIME 100000u

/* The init contract: every field of struct tasks is set by these, in this order
 * (the workload's setup, between the third stage and the last, starts tasks). */
int tasks_init(struct tasks *ts, struct engine *eng, const struct machine *m, uint32_t n);
/* Second stage, once the coherence, lock and rwsem models exist (they need the task
 * count): the models the executor works on. */
void tasks_attach(struct tasks *ts, struct coherence *coh, struct spinlocks *locks, struct rwsems *rwsems,
		  const uint32_t *qnode_lines);
/* Third: the run's parameters. The kernel's scheduling costs and whether its bucket
 * locks are PREEMPT_RT's, the random source of OPND_RANDOM_EXP work, the measuring
 * window [window_start, window_end), and the run's hook for every counted op (the
 * time series; NULL for none). */
void tasks_configure(struct tasks *ts, const struct kernel_design *k, gsl_rng *rng, simtime_t window_start,
		     simtime_t window_end, task_hook_fn op_counted, void *op_counted_ctx);
/* The workload's hook, when one of its tasks goes to sleep (optional: from its setup). */
void tasks_set_slept(struct tasks *ts, task_hook_fn slept, void *ctx);
/* Last, once the workload exists: its hook for every program completed before
 * the window's end (it sets the task's next program and target, or stops it). */
void tasks_set_program_done(struct tasks *ts, task_hook_fn program_done, void *ctx);
void tasks_free(struct tasks *ts);

/* The coherence model's grant callback (ctx = struct tasks *). */
void tasks_on_grant(void *ctx, uint32_t task, uint32_t line);

/* The measuring window starts: the per-task counters of waits, wakes and switches
 * restart from zero (ops count by completion time anyway). */
void tasks_reset_stats(struct tasks *ts);

/* Whether task t's clock is inside the measuring window (what counters count). */
static inline bool task_in_window(const struct tasks *ts, const struct task *t)
{
	return t->clock >= ts->window_start && t->clock < ts->window_end;
}

/* The window's edge task t's time-keeping cuts at next: its start, then its end. */
static inline simtime_t task_acct_edge(const struct tasks *ts, const struct task *t)
{
	return t->acct_started ? ts->window_end : ts->window_start;
}

/* The part of [from, to) inside the measuring window. */
static inline simtime_t task_window_part(const struct tasks *ts, simtime_t from, simtime_t to)
{
	if (from < ts->window_start)
		from = ts->window_start;
	if (to > ts->window_end)
		to = ts->window_end;
	return to > from ? to - from : 0;
}

/* Task t's time starts counting at `at` (its start), or stops at its clock (it exits). */
void task_account_start(const struct tasks *ts, struct task *t, simtime_t at);
void task_account_stop(const struct tasks *ts, struct task *t);

/* Task t's time by class and its kernel_work by path step, the work micro-ops
 * counted by composition split between their parts (what explain reports), with
 * the micro-op under way at the run's end (`stop`) counted up to it: inside the
 * window, every thread's classes add up to the time it existed there. */
void tasks_split_work(const struct tasks *ts, const struct task *t, simtime_t stop, simtime_t time_ps[TC_NCLASSES],
		      simtime_t step_ps[STEP_NSTEPS]);

/* Counts one op of task `t` at its clock (when inside the measuring window), for
 * workloads that count ops themselves (t->uncounted). */
void task_count_op(struct tasks *ts, struct task *t);

/* Declares to the coherence model every line task `t` may touch: its program
 * run against each of `ntargets` targets. Needed for running ahead on solo lines. */
void task_note_lines(struct tasks *ts, const struct task *t, const struct op_target *targets, uint32_t ntargets);

/* Starts task `t` (its first program already set) at time `at`. */
void task_start(struct tasks *ts, struct task *t, simtime_t at);
/* Stops a task at the end of its current program (from program_done). */
void task_stop(struct tasks *ts, struct task *t);
/* Stops a task whose clock passed the window's end; its CPU stays busy. */
void task_stop_at_window_end(struct task *t);

/* Bytes per task beyond struct task: its engine event, coherence request, run
 * queue and counters; measured at 19 KiB per task with 65536 blocking threads
 * including the workload's own share, of which 4 KiB is the executor's. */
uint64_t tasks_bytes(uint64_t ntasks);

#endif
