/* SPDX-License-Identifier: MIT */
/* Tests of the task executor's grant transitions (tasks_on_grant in
 * models/task.c, with the protocols of models/task_lock.c, models/futex_queue.c
 * and models/task_access.h): for every state a grant can find a task in, a task
 * is put in that state by hand with a small program, the models around it (lock
 * queue, rwsem, futex word, waiters counts, chains, cache lines) are set up
 * through their APIs, the grant is delivered (by calling tasks_on_grant, or by
 * letting the coherence model complete the transfer), and the transition is
 * checked: state, pc, clock, locks held, the lock model's holder and queue, the
 * word's value, counts and chains.
 *
 * The simulation is a hash-bench run of six threads on CPUs 0-5 (task i on CPU
 * i, all on one node), built but never run: every task is stopped between two
 * ops before anything happens (it keeps its CPU), and the engine's clock is
 * then moved to T0 = 10 us with nothing pending. Task 0 is the one granted.
 *
 * Every program is the micro-op under test followed by a SLEEP "stopper": once
 * the grant completes the micro-op, the task runs on into the stopper and goes
 * to sleep there, so TS_SLEEP at pc 1 with slept_at = clock says "the micro-op
 * is done and the task ran on at that time"; any other state or pc is a wait.
 *
 * Every expected time below is worked out by hand from MACHINE and KERNEL. The
 * machine runs at 2.0 GHz, so one cycle is 500 ps:
 *   line_hit (load/store on a line the CPU holds)    1 ns
 *   atomic_hit (RMW on a line the CPU holds) 10 cycles = 5 ns
 *   transfer_node (a line from another core's cache)  40 ns (x 1.0 invalidation,
 *                                                      contention, occupancy)
 *   memory_local (a fill from DRAM)                   80 ns
 *   lock_slowpath 30 cycles                        = 15 ns (the MCS node's set-up)
 *   chain_entry 15 cycles                          = 7.5 ns (per chain entry read)
 *   sched.wake_to_run (the machine's)                 7 us
 * line_hold is 0: a line is free to move as soon as its transfer is done. The
 * default 6.16+ bucket layout puts a bucket's waiters count, lock and chain on
 * one 64-byte line ("the bucket line"). */
#include <check.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "models/coherence.h"
#include "models/futex_queue.h"
#include "models/futex_table.h"
#include "models/rwsem.h"
#include "models/spinlock.h"
#include "models/task.h"
#include "models/task_cpu.h"
#include "models/task_lock.h"
#include "tests/testutil.h"

#define NS 1000ull
#define US 1000000ull

#define LINE_HIT_PS (1 * NS)
#define ATOMIC_HIT_PS (5 * NS)    /* 10 cycles x 500 ps */
#define XFER_PS (40 * NS)         /* transfer_node */
#define FILL_PS (80 * NS)         /* memory_local */
#define LOCK_SLOW_PS (15 * NS)    /* 30 cycles x 500 ps */
#define CHAIN_ENTRY_PS 7500ull    /* 15 cycles x 500 ps */
#define WAKEUP_PS (7 * US)

/* when every grant below is delivered */
#define T0 (10 * US)

#define MACHINE                                                                                         \
	"{name: grant-test, topology: {nodes: 1, cores_per_node: 8, threads_per_core: 1},"               \
	" frequency: 2.0GHz,"                                                                           \
	" costs: {line_hit: 1ns, atomic_hit: 10 cycles, transfer_smt: 5ns, transfer_node: 40ns,"        \
	" memory_local: 80ns, syscall: 100ns, line_hold: 0, smt_slowdown: 1.0,"                         \
	" transfer_occupancy: 1.0, transfer_contended: 1.0, invalidation: 1.0},"                        \
	" sched: {wake_to_run: 7us}}"

/* One global table of 16 buckets in the default layout; the path only serves to
 * build the hash-bench programs, which never run. */
#define KERNEL                                                                                          \
	"{name: grant-test, global_hash: {per_node: false, buckets: 16},"           \
	" costs: {lock_slowpath: 30 cycles, chain_entry: 15 cycles},"                                   \
	" path: {wait_eagain: [syscall, get_key, hash_lookup, wait_setup, waiters_inc, lock, read_uval," \
	" waiters_dec, unlock, hash_put]}}"

#define NTASKS 6u
#define STOP_PC 1u /* the stopper's index in every one-micro-op program */

/* an access to the line of a target operand; to a bucket field */
#define ACCESS(kind_, opnd) { .kind = UOP_ACCESS, .access = (kind_), .operand = (opnd) }
#define FIELD_ACCESS(kind_, opnd, field_) { .kind = UOP_ACCESS, .access = (kind_), .operand = (opnd), .field = (field_) }
#define LOCK { .kind = UOP_LOCK, .operand = OPND_BUCKET_LOCK, .work_ps = LOCK_SLOW_PS }
#define UNLOCK { .kind = UOP_UNLOCK, .operand = OPND_BUCKET_LOCK }
#define RWSEM(op, sem_) { .kind = UOP_RWSEM, .rwsem_op = (op), .operand = OPND_NONE, .sem = (sem_) }
#define USER(op) { .kind = UOP_USER, .user_op = (op), .operand = OPND_NONE }
#define WAITERS(opnd, inc_) { .kind = UOP_WAITERS, .operand = (opnd), .inc = (inc_) }
#define WALK(requeue_) { .kind = UOP_WALK, .operand = OPND_NONE, .requeue = (requeue_), .work_ps = CHAIN_ENTRY_PS }
#define SLEEP { .kind = UOP_SLEEP, .operand = OPND_NONE }

static struct {
	struct scenario sc;
	struct sim s;
	struct tasks *ts;
	struct task *t;                 /* task 0: the one granted */
	struct uop prog[4];
	struct futex_word w;            /* task 0's futex word */
	struct futex_word w_other;      /* another word hashed to the same bucket */
	struct futex_word w2;           /* a requeue's uaddr2 */
	struct futex_table *table;      /* task 0's target table (the global one) */
	uint32_t bucket, bucket2;       /* task 0's target bucket, and the next one */
	uint32_t bline, bline2;         /* their bucket lines */
	uint32_t lock;                  /* task 0's bucket lock */
} fx;

static struct task *task(uint32_t i)
{
	return &fx.s.tasks.v[i];
}

static void setup(void)
{
	char text[4096];
	char *path;
	struct fs_error e = { 0 };

	memset(&fx, 0, sizeof(fx));
	snprintf(text, sizeof(text),
		 "machine: %s\nkernel: %s\n"
		 "workload: {type: hash-bench, threads: %u, futexes: 1, cpus: 0-%u, start_skew: 0}\n"
		 "run: {duration: 1ms, warmup: 0ns}\n",
		 MACHINE, KERNEL, NTASKS, NTASKS - 1);
	path = tu_write_temp(text);
	ck_assert_msg(scenario_load(&fx.sc, path, NULL, 0, &e) == 0, "%s", e.msg);
	ck_assert_msg(sim_build(&fx.s, &fx.sc, &e) == 0, "%s", e.msg);
	unlink(path);
	free(path);
	fx.ts = &fx.s.tasks;
	ck_assert_uint_eq(fx.ts->n, NTASKS);
	for (uint32_t i = 0; i < NTASKS; i++) {
		ck_assert_uint_eq(task(i)->cpu, i);
		ck_assert_uint_eq(task(i)->core, i);
		/* stopped between two ops before its first: its start event (at 0)
		 * finds it not runnable; it keeps its CPU, as a running task does */
		task(i)->state = TS_IDLE;
		task(i)->call.word = &fx.w;
	}
	engine_run(&fx.s.eng, 1);
	ck_assert_uint_eq(fx.s.eng.q.len, 0);

	fx.t = task(0);
	fx.table = (struct futex_table *)fx.t->target.table;
	ck_assert_ptr_nonnull(fx.table);
	fx.bucket = fx.t->target.bucket;
	fx.bucket2 = (fx.bucket + 1) % fx.table->size;
	fx.bline = futex_table_line(fx.table, fx.bucket, BF_LOCK);
	fx.bline2 = futex_table_line(fx.table, fx.bucket2, BF_LOCK);
	/* the layout's waiters (0), lock (4) and chain (8) share the 64-byte line */
	ck_assert_uint_eq(futex_table_line(fx.table, fx.bucket, BF_WAITERS), fx.bline);
	ck_assert_uint_eq(futex_table_line(fx.table, fx.bucket, BF_CHAIN), fx.bline);
	ck_assert_uint_ne(fx.bline, fx.bline2);
	fx.lock = fx.table->lock0 + fx.bucket;
	ck_assert(spinlock_is_free(&fx.s.locks, fx.lock));
	ck_assert_uint_eq(fx.table->chain_head[fx.bucket], FUTEX_CHAIN_END);
	ck_assert_uint_eq(fx.table->chain_head[fx.bucket2], FUTEX_CHAIN_END);
	ck_assert_uint_eq(fx.table->waiters[fx.bucket], 0);
	ck_assert_uint_eq(fx.table->waiters[fx.bucket2], 0);

	fx.w = (struct futex_word){ .uaddr = 0x10000, .value = 5, .pid = fx.t->process };
	fx.w_other = (struct futex_word){ .uaddr = 0x10040, .value = 5, .pid = fx.t->process };
	fx.w2 = (struct futex_word){ .uaddr = 0x10080, .value = 7, .pid = fx.t->process };
	/* both bucket lines are every task's: none runs ahead on them as its own */
	for (uint32_t i = 0; i < NTASKS; i++) {
		coh_note_user(&fx.s.coh, fx.bline, i);
		coh_note_user(&fx.s.coh, fx.bline2, i);
	}
}

static void teardown(void)
{
	sim_free(&fx.s);
	scenario_free(&fx.sc);
}

static void no_grant(void *ctx, uint32_t requester, uint32_t line)
{
	(void)ctx;
	(void)requester;
	(void)line;
}

/* Leaves `line` as an access `kind` by CPU `cpu` (task `cpu`, which waits for
 * nothing) leaves it; runs the engine through the transfer, with the grant
 * going nowhere. Used before T0 only. */
static void warm(uint32_t line, uint32_t cpu, enum access_kind kind)
{
	coh_grant_fn grant = fx.s.coh.grant;
	simtime_t cost;

	fx.s.coh.grant = no_grant;
	if (coh_access(&fx.s.coh, line, cpu, cpu, kind, &cost) == COH_WAIT)
		engine_run(&fx.s.eng, SIMTIME_MAX);
	fx.s.coh.grant = grant;
	ck_assert_uint_eq(fx.s.eng.q.len, 0);
	ck_assert_uint_lt(fx.s.eng.now, T0);
}

/* Task `q`, stopped between two ops by setup, goes to sleep as a running task does
 * (only a running task may: models/task.h, TASK_TRANSITIONS). */
static void asleep(struct task *q)
{
	q->state = TS_RUN;
	task_sleep(fx.ts, q);
}

/* The engine's clock at T0, with nothing pending (every hold window is over). */
static void at_t0(void)
{
	ck_assert(engine_try_advance(&fx.s.eng, T0, fx.ts->resume_kind, 0));
	ck_assert_uint_eq(fx.s.eng.now, T0);
}

/* Task 0 runs `u` then the stopper, waiting in `state` at pc 0 since `asked`
 * (its clock before the grant: the grant must replace it). */
static void program(struct uop u, enum task_state state, simtime_t asked)
{
	fx.prog[0] = u;
	fx.prog[1] = (struct uop)SLEEP;
	fx.t->prog = fx.prog;
	fx.t->nuops = 2;
	fx.t->pc = 0;
	fx.t->state = state;
	fx.t->clock = asked;
	fx.t->burst_line = COH_NONE;
}

/* As run() and uop_lock() leave it for a lock micro-op on the target bucket. */
static void on_bucket_lock(struct task *t, uint8_t stage)
{
	t->lock = fx.lock;
	t->lock_line = fx.bline;
	t->lock_stage = stage;
}

static void grant(uint32_t line)
{
	tasks_on_grant(fx.ts, fx.t->id, line);
}

/* The micro-op was completed at `at` and the task ran on into the stopper. */
static void assert_stopped(simtime_t at)
{
	ck_assert_uint_eq(fx.t->state, TS_SLEEP);
	ck_assert_uint_eq(fx.t->pc, STOP_PC);
	ck_assert_uint_eq(fx.t->clock, at);
	ck_assert_uint_eq(fx.t->wait.slept_at, at);
}

static uint64_t node_transfers(uint32_t line)
{
	return fx.s.coh.lines[line].stats.transfers[XFER_NODE];
}

/* --- TS_ACCESS ------------------------------------------------------------------ */

/* A plain access granted: the micro-op is done at the grant's time (the engine's
 * now, T0), whatever the clock was when the task asked, and the next micro-op runs. */
START_TEST(test_access)
{
	setup();
	at_t0();
	program((struct uop)ACCESS(ACCESS_READ, OPND_WORD_LINE), TS_ACCESS, T0 - FILL_PS);
	grant(fx.t->target.word_line);
	assert_stopped(T0);
	ck_assert_uint_eq(fx.t->locks_held, 0);
	teardown();
}
END_TEST

/* The same through the coherence model: task 0 resumes at T0 and its RMW of the
 * word's line, which no cache holds, waits for a fill from DRAM; the fill's
 * grant at T0 + 80 ns completes it, and the write after it hits (the RMW left
 * the line Modified on CPU 0): 1 ns more, stopped at T0 + 81 ns. */
START_TEST(test_access_through_coherence)
{
	static const struct uop u[] = {
		ACCESS(ACCESS_RMW, OPND_WORD_LINE),
		ACCESS(ACCESS_WRITE, OPND_WORD_LINE),
		SLEEP,
	};

	setup();
	at_t0();
	memcpy(fx.prog, u, sizeof(u));
	fx.t->prog = fx.prog;
	fx.t->nuops = 3;
	fx.t->pc = 0;
	fx.t->clock = T0;
	fx.t->state = TS_RUN;
	engine_schedule(&fx.s.eng, T0, fx.ts->resume_kind, 0);
	engine_run(&fx.s.eng, T0 + 1);
	ck_assert_uint_eq(fx.t->state, TS_ACCESS);
	ck_assert_uint_eq(fx.t->pc, 0);
	ck_assert_uint_eq(fx.t->clock, T0);
	ck_assert_uint_eq(engine_next_time(&fx.s.eng), T0 + FILL_PS);

	engine_run(&fx.s.eng, T0 + FILL_PS + 1);
	ck_assert_uint_eq(fx.t->state, TS_SLEEP);
	ck_assert_uint_eq(fx.t->pc, 2);
	ck_assert_uint_eq(fx.t->clock, T0 + FILL_PS + LINE_HIT_PS);
	ck_assert_uint_eq(fx.t->wait.slept_at, T0 + FILL_PS + LINE_HIT_PS);
	teardown();
}
END_TEST

/* --- TS_LOCK_ACCESS ------------------------------------------------------------- */

/* The fast path's cmpxchg on a free lock nobody waits for: taken. One lock held,
 * the next lock micro-op starts at the cmpxchg again, no slow-path work: T0. */
START_TEST(test_lock_cmpxchg_free)
{
	const struct spinlock *l;

	setup();
	warm(fx.bline, 0, ACCESS_RMW); /* the granted cmpxchg left the line on CPU 0 */
	at_t0();
	program((struct uop)LOCK, TS_LOCK_ACCESS, T0 - FILL_PS);
	on_bucket_lock(fx.t, LS_CMPXCHG);
	grant(fx.bline);
	assert_stopped(T0);
	l = &fx.s.locks.locks[fx.lock];
	ck_assert_uint_eq(l->holder, 0);
	ck_assert_uint_eq(l->qhead, SPIN_NONE);
	ck_assert_uint_eq(l->acquisitions, 1);
	ck_assert_uint_eq(l->contended, 0);
	ck_assert_uint_eq(fx.t->locks_held, 1);
	ck_assert_uint_eq(fx.t->lock_stage, LS_CMPXCHG);
	teardown();
}
END_TEST

/* The cmpxchg finds the lock held by task 1 and nobody waiting: task 0 sets the
 * pending bit (it is the pending waiter, not in the MCS queue: qhead and qtail
 * stay empty) and spins on the lock's line at once, with no slow-path work. Its
 * CPU holds the line (its cmpxchg just got it), so the spin is a watch on its
 * own copy: no re-read is issued until someone writes the line. Still at the
 * lock micro-op, at T0. */
START_TEST(test_lock_cmpxchg_held_pending_head)
{
	const struct spinlock *l;
	const struct line *line;

	setup();
	warm(fx.bline, 0, ACCESS_RMW);
	ck_assert_int_eq(spinlock_try(&fx.s.locks, fx.lock, 1, 1 * US), SPIN_ACQUIRED);
	at_t0();
	program((struct uop)LOCK, TS_LOCK_ACCESS, T0 - FILL_PS);
	on_bucket_lock(fx.t, LS_CMPXCHG);
	grant(fx.bline);
	ck_assert_uint_eq(fx.t->state, TS_LOCK_SPIN);
	ck_assert_uint_eq(fx.t->pc, 0);
	ck_assert_uint_eq(fx.t->clock, T0);
	ck_assert_uint_eq(fx.t->locks_held, 0);
	ck_assert_uint_eq(fx.t->lock_stage, LS_CMPXCHG); /* no slow path */
	l = &fx.s.locks.locks[fx.lock];
	ck_assert_uint_eq(l->holder, 1);
	ck_assert_uint_eq(l->pending, 0);
	ck_assert_uint_eq(l->qhead, SPIN_NONE);
	ck_assert_uint_eq(l->qtail, SPIN_NONE);
	ck_assert_uint_eq(fx.s.locks.queued_at[0], T0); /* its wait counts from the cmpxchg */
	line = &fx.s.coh.lines[fx.bline];
	ck_assert_uint_eq(line->watchers, 0);
	ck_assert_uint_eq(line->qhead, COH_NONE);
	ck_assert_uint_eq(line->inflight, COH_NONE);
	ck_assert_uint_eq(fx.s.eng.q.len, 0);
	teardown();
}
END_TEST

/* The cmpxchg finds the lock held (task 1) with a pending waiter (task 2) and an
 * MCS queue (task 3, its head, which joined behind the pending waiter): the MCS
 * slow path, all in this grant, on a line CPU 0 holds Modified:
 *   set up the per-CPU MCS node: lock_slowpath 15 ns      -> T0 + 15 ns
 *   trylock read of the lock line: a hit, 1 ns            -> T0 + 16 ns
 *   xchg of the queue tail: an atomic hit, 5 ns           -> T0 + 21 ns
 * then it queues behind task 3 (the previous tail) and spins on its own MCS node
 * (TS_LOCK_MCS); linking behind task 3 is a store to CPU 3's MCS node, counted
 * as one transfer within the node. The pending waiter has no MCS node in the
 * queue: nothing is stored to CPU 2's. The lock is not held, the micro-op not
 * done. (With only the pending waiter, task 0 would be the queue's head and spin
 * on the lock's line instead: test_lock_tryread_then_xchg.) */
START_TEST(test_lock_cmpxchg_queued_slow_path)
{
	const struct spinlock *l;
	uint32_t prev, qnode2, qnode3;

	setup();
	qnode2 = fx.s.ft.qnode_lines[2];
	qnode3 = fx.s.ft.qnode_lines[3];
	warm(fx.bline, 0, ACCESS_RMW);
	ck_assert_int_eq(spinlock_try(&fx.s.locks, fx.lock, 1, 1 * US), SPIN_ACQUIRED);
	ck_assert_int_eq(spinlock_try(&fx.s.locks, fx.lock, 2, 2 * US), SPIN_HEAD);  /* pending */
	ck_assert_int_eq(spinlock_try(&fx.s.locks, fx.lock, 3, 3 * US), SPIN_QUEUE);
	ck_assert_int_eq(spinlock_join(&fx.s.locks, fx.lock, 3, 3 * US, 0, &prev), SPIN_HEAD); /* MCS head */
	ck_assert_uint_eq(prev, SPIN_NONE);
	ck_assert_uint_eq(node_transfers(qnode2), 0);
	ck_assert_uint_eq(node_transfers(qnode3), 0);
	at_t0();
	program((struct uop)LOCK, TS_LOCK_ACCESS, T0 - FILL_PS);
	on_bucket_lock(fx.t, LS_CMPXCHG);
	grant(fx.bline);
	ck_assert_uint_eq(fx.t->state, TS_LOCK_MCS);
	ck_assert_uint_eq(fx.t->pc, 0);
	ck_assert_uint_eq(fx.t->clock, T0 + LOCK_SLOW_PS + LINE_HIT_PS + ATOMIC_HIT_PS);
	ck_assert_uint_eq(fx.t->clock, T0 + 21 * NS);
	ck_assert_uint_eq(fx.t->lock_stage, LS_XCHG);
	ck_assert_uint_eq(fx.t->locks_held, 0);
	l = &fx.s.locks.locks[fx.lock];
	ck_assert_uint_eq(l->holder, 1);
	ck_assert_uint_eq(l->pending, 2);
	ck_assert_uint_eq(l->qhead, 3);
	ck_assert_uint_eq(l->qtail, 0);
	ck_assert_uint_eq(fx.s.locks.next[3], 0);
	ck_assert_uint_eq(node_transfers(qnode3), 1);
	ck_assert_uint_eq(node_transfers(qnode2), 0);
	teardown();
}
END_TEST

/* The slow path's trylock read granted (task 1 holds, task 2 is the pending
 * waiter, the MCS queue is empty). The read left the lock line Shared by CPUs 0,
 * 1 and 2, so the xchg that follows at once must wait for the line: task 0 stays
 * in TS_LOCK_ACCESS, now at the xchg stage, at T0. That RMW's transfer from the
 * farthest sharer (another core: 40 ns) is then granted by the coherence model at
 * T0 + 40 ns: the xchg finds no previous tail (the pending waiter is not queued),
 * so task 0 is the MCS queue's head: it links behind nobody (no MCS node store)
 * and spins on the lock's line beside the pending waiter (TS_LOCK_SPIN), as a
 * watch on the copy its xchg left Modified on CPU 0. Its wait counts from the
 * xchg, T0 + 40 ns. */
START_TEST(test_lock_tryread_then_xchg)
{
	const struct spinlock *l = NULL;
	const struct line *line;
	uint32_t qnode2;

	setup();
	qnode2 = fx.s.ft.qnode_lines[2];
	warm(fx.bline, 1, ACCESS_RMW);  /* task 1 took the lock */
	warm(fx.bline, 2, ACCESS_READ); /* task 2 spins on it */
	warm(fx.bline, 0, ACCESS_READ); /* task 0's trylock read */
	ck_assert_int_eq(spinlock_try(&fx.s.locks, fx.lock, 1, 1 * US), SPIN_ACQUIRED);
	ck_assert_int_eq(spinlock_try(&fx.s.locks, fx.lock, 2, 2 * US), SPIN_HEAD);
	at_t0();
	program((struct uop)LOCK, TS_LOCK_ACCESS, T0 - LINE_HIT_PS);
	on_bucket_lock(fx.t, LS_TRYREAD);
	grant(fx.bline);
	ck_assert_uint_eq(fx.t->state, TS_LOCK_ACCESS);
	ck_assert_uint_eq(fx.t->lock_stage, LS_XCHG);
	ck_assert_uint_eq(fx.t->pc, 0);
	ck_assert_uint_eq(fx.t->clock, T0);
	ck_assert_uint_eq(fx.s.coh.lines[fx.bline].inflight, 0); /* the xchg's transfer */
	l = &fx.s.locks.locks[fx.lock];
	ck_assert_uint_eq(l->pending, 2);
	ck_assert_uint_eq(l->qhead, SPIN_NONE); /* not queued before its xchg lands */
	ck_assert_uint_eq(l->qtail, SPIN_NONE);
	ck_assert_uint_eq(engine_next_time(&fx.s.eng), T0 + XFER_PS);

	engine_run(&fx.s.eng, T0 + XFER_PS + 1);
	ck_assert_uint_eq(fx.t->state, TS_LOCK_SPIN);
	ck_assert_uint_eq(fx.t->pc, 0);
	ck_assert_uint_eq(fx.t->clock, T0 + XFER_PS);
	ck_assert_uint_eq(fx.t->burst_line, COH_NONE); /* spinning breaks any burst */
	ck_assert_uint_eq(l->holder, 1);
	ck_assert_uint_eq(l->pending, 2);
	ck_assert_uint_eq(l->qhead, 0);
	ck_assert_uint_eq(l->qtail, 0);
	ck_assert_uint_eq(fx.s.locks.queued_at[0], T0 + XFER_PS);
	ck_assert_uint_eq(fx.t->locks_held, 0);
	ck_assert_uint_eq(node_transfers(qnode2), 0);
	line = &fx.s.coh.lines[fx.bline];
	ck_assert_uint_eq(line->owner, 0);
	ck_assert_uint_eq(line->watchers, 0);
	ck_assert_uint_eq(line->qhead, COH_NONE);
	ck_assert_uint_eq(line->inflight, COH_NONE);
	ck_assert_uint_eq(fx.s.eng.q.len, 0);
	teardown();
}
END_TEST

/* The slow path's xchg granted after everyone else left: task 1 released, task 2
 * (the pending waiter) took the lock and released it too, so the lock is free
 * with no pending waiter and nobody queued, and the xchg takes it. Held, done at T0. The acquisition is not
 * a contended one (task 0 never queued): still only task 2's. */
START_TEST(test_lock_xchg_takes_free_lock)
{
	const struct spinlock *l;

	setup();
	warm(fx.bline, 0, ACCESS_RMW);
	ck_assert_int_eq(spinlock_try(&fx.s.locks, fx.lock, 1, 1 * US), SPIN_ACQUIRED);
	ck_assert_int_eq(spinlock_try(&fx.s.locks, fx.lock, 2, 2 * US), SPIN_HEAD);
	spinlock_release(&fx.s.locks, fx.lock, 1);
	ck_assert_uint_eq(spinlock_take(&fx.s.locks, fx.lock, 2, 3 * US), SPIN_NONE);
	spinlock_release(&fx.s.locks, fx.lock, 2);
	at_t0();
	program((struct uop)LOCK, TS_LOCK_ACCESS, T0 - ATOMIC_HIT_PS);
	on_bucket_lock(fx.t, LS_XCHG);
	grant(fx.bline);
	assert_stopped(T0);
	l = &fx.s.locks.locks[fx.lock];
	ck_assert_uint_eq(l->holder, 0);
	ck_assert_uint_eq(l->pending, SPIN_NONE);
	ck_assert_uint_eq(l->qhead, SPIN_NONE);
	ck_assert_uint_eq(l->acquisitions, 3); /* 1, 2, then 0 */
	ck_assert_uint_eq(l->contended, 1);    /* task 2's */
	ck_assert_uint_eq(fx.t->locks_held, 1);
	ck_assert_uint_eq(fx.t->lock_stage, LS_CMPXCHG);
	teardown();
}
END_TEST

/* --- TS_LOCK_SPIN --------------------------------------------------------------- */

/* The pending waiter (task 0, waiting since its cmpxchg at 2 us) re-reads the
 * line and sees the lock free (task 1 released it); its CPU holds the line
 * Modified, so the write that takes the lock (clear pending, set locked) hits:
 * 1 ns. The pending waiter is not in the MCS queue: no hand-off, and the queue
 * stays empty. Held, done at T0 + 1 ns; its wait, from 2 us to the take at T0,
 * is 8 us. */
START_TEST(test_lock_spin_sees_free_takes)
{
	const struct spinlock *l;

	setup();
	warm(fx.bline, 0, ACCESS_RMW);
	ck_assert_int_eq(spinlock_try(&fx.s.locks, fx.lock, 1, 1 * US), SPIN_ACQUIRED);
	ck_assert_int_eq(spinlock_try(&fx.s.locks, fx.lock, 0, 2 * US), SPIN_HEAD);
	spinlock_release(&fx.s.locks, fx.lock, 1);
	at_t0();
	program((struct uop)LOCK, TS_LOCK_SPIN, T0 - XFER_PS);
	on_bucket_lock(fx.t, LS_CMPXCHG); /* the pending head came from the cmpxchg */
	grant(fx.bline);
	assert_stopped(T0 + LINE_HIT_PS);
	l = &fx.s.locks.locks[fx.lock];
	ck_assert_uint_eq(l->holder, 0);
	ck_assert_uint_eq(l->pending, SPIN_NONE); /* the pending bit is cleared */
	ck_assert_uint_eq(l->qhead, SPIN_NONE);
	ck_assert_uint_eq(l->qtail, SPIN_NONE);
	ck_assert_uint_eq(l->acquisitions, 2);
	ck_assert_uint_eq(l->contended, 1);
	ck_assert_uint_eq(l->wait_ps, T0 - 2 * US);
	ck_assert_uint_eq(fx.t->locks_held, 1);
	ck_assert_uint_eq(fx.s.eng.q.len, 0); /* no hand-off scheduled */
	teardown();
}
END_TEST

/* As above, but the line is Shared by CPU 1 (whose unlock store task 0's re-read
 * followed) and CPU 0: the take is a write that must wait for the line. Task 0
 * waits in TS_LOCK_TAKE at T0, still the pending waiter, the lock still free.
 * The write's transfer from CPU 1 (40 ns) is then granted: the lock is taken at
 * T0 + 40 ns, the pending bit cleared, and nothing is handed over (no queue). */
START_TEST(test_lock_spin_sees_free_waits_for_take)
{
	const struct spinlock *l;

	setup();
	warm(fx.bline, 1, ACCESS_WRITE); /* task 1's unlock store */
	warm(fx.bline, 0, ACCESS_READ);  /* task 0's re-read */
	ck_assert_int_eq(spinlock_try(&fx.s.locks, fx.lock, 1, 1 * US), SPIN_ACQUIRED);
	ck_assert_int_eq(spinlock_try(&fx.s.locks, fx.lock, 0, 2 * US), SPIN_HEAD);
	spinlock_release(&fx.s.locks, fx.lock, 1);
	at_t0();
	program((struct uop)LOCK, TS_LOCK_SPIN, T0 - XFER_PS);
	on_bucket_lock(fx.t, LS_CMPXCHG);
	grant(fx.bline);
	l = &fx.s.locks.locks[fx.lock];
	ck_assert_uint_eq(fx.t->state, TS_LOCK_TAKE);
	ck_assert_uint_eq(fx.t->pc, 0);
	ck_assert_uint_eq(fx.t->clock, T0);
	ck_assert_uint_eq(fx.t->locks_held, 0);
	ck_assert_uint_eq(l->holder, SPIN_NONE);
	ck_assert_uint_eq(l->pending, 0);
	ck_assert_uint_eq(l->qhead, SPIN_NONE);
	ck_assert_uint_eq(fx.s.coh.lines[fx.bline].inflight, 0);
	ck_assert_uint_eq(engine_next_time(&fx.s.eng), T0 + XFER_PS);

	engine_run(&fx.s.eng, T0 + XFER_PS + 1);
	assert_stopped(T0 + XFER_PS);
	ck_assert_uint_eq(l->holder, 0);
	ck_assert_uint_eq(l->pending, SPIN_NONE);
	ck_assert_uint_eq(l->qhead, SPIN_NONE);
	ck_assert_uint_eq(fx.s.eng.q.len, 0); /* no hand-off scheduled */
	ck_assert_uint_eq(l->wait_ps, T0 + XFER_PS - 2 * US);
	ck_assert_uint_eq(fx.t->locks_held, 1);
	teardown();
}
END_TEST

/* The pending waiter's re-read (after task 2's xchg wrote the line: task 2 took
 * the slow path since the pending bit was set, and is the MCS queue's head,
 * queued behind nobody) finds the lock still held by task 1: task 0 spins on,
 * watching the copy it now shares with CPU 2 (no re-read until the next write).
 * Nothing changes in the lock; T0. */
START_TEST(test_lock_spin_sees_held_spins_on)
{
	const struct spinlock *l;
	const struct line *line;
	uint32_t prev;

	setup();
	warm(fx.bline, 1, ACCESS_RMW);  /* task 1's cmpxchg */
	warm(fx.bline, 2, ACCESS_RMW);  /* task 2's xchg */
	warm(fx.bline, 0, ACCESS_READ); /* task 0's re-read */
	ck_assert_int_eq(spinlock_try(&fx.s.locks, fx.lock, 1, 1 * US), SPIN_ACQUIRED);
	ck_assert_int_eq(spinlock_try(&fx.s.locks, fx.lock, 0, 2 * US), SPIN_HEAD);
	ck_assert_int_eq(spinlock_try(&fx.s.locks, fx.lock, 2, 3 * US), SPIN_QUEUE);
	ck_assert_int_eq(spinlock_join(&fx.s.locks, fx.lock, 2, 3 * US, 0, &prev), SPIN_HEAD);
	ck_assert_uint_eq(prev, SPIN_NONE);
	at_t0();
	program((struct uop)LOCK, TS_LOCK_SPIN, T0 - XFER_PS);
	on_bucket_lock(fx.t, LS_CMPXCHG);
	fx.t->burst_line = fx.bline;
	grant(fx.bline);
	ck_assert_uint_eq(fx.t->state, TS_LOCK_SPIN);
	ck_assert_uint_eq(fx.t->pc, 0);
	ck_assert_uint_eq(fx.t->clock, T0);
	ck_assert_uint_eq(fx.t->locks_held, 0);
	ck_assert_uint_eq(fx.t->burst_line, COH_NONE); /* spinning breaks any burst */
	l = &fx.s.locks.locks[fx.lock];
	ck_assert_uint_eq(l->holder, 1);
	ck_assert_uint_eq(l->pending, 0);
	ck_assert_uint_eq(l->qhead, 2);
	ck_assert_uint_eq(l->qtail, 2);
	ck_assert_uint_eq(l->acquisitions, 1);
	line = &fx.s.coh.lines[fx.bline];
	ck_assert_uint_eq(line->watchers, 0);
	ck_assert_uint_eq(line->qhead, COH_NONE);
	ck_assert_uint_eq(line->inflight, COH_NONE);
	ck_assert_uint_eq(fx.s.eng.q.len, 0);
	teardown();
}
END_TEST

/* The MCS head's re-read finds the lock unheld, but the pending waiter has not
 * taken it yet: the head may not take it (spinlock_free_for: the pending bit is
 * set), so it spins on, and the pending waiter's grant then takes the lock
 * without any MCS hand-off. Task 1 held the lock, task 2 is the pending waiter
 * (from 2 us), task 0 the MCS head (from 3 us); task 1's unlock store left the
 * line Modified on CPU 1, then both spinners read it: Shared by CPUs 1, 2, 0.
 *   T0: task 0's re-read granted: the lock is unheld, the pending bit set: it
 *     keeps spinning (TS_LOCK_SPIN, a watch on its Shared copy). Nothing changes
 *     in the lock, nothing is issued.
 *   T0: task 2's re-read granted: free for the pending waiter: it takes it with
 *     a write, which must wait for the line (two other sharers): TS_LOCK_TAKE;
 *     the write's transfer (40 ns) starts at once and invalidates task 0's copy,
 *     whose re-read queues behind it.
 *   T0 + 40 ns: task 2's write granted: task 2 holds the lock, the pending bit
 *     clear, task 0 still the queue's head (no MCS hand-off: no store to any MCS
 *     node, no hand-off event); task 2's wait is T0 + 40 ns - 2 us. Its program
 *     runs on into the stopper. Task 0's re-read starts then: a read from CPU 2,
 *     which has the line Modified, 40 ns.
 *   T0 + 80 ns: task 0's re-read granted: the lock is held by task 2: it spins
 *     on, watching the copy it now shares with CPU 2. */
START_TEST(test_lock_head_sees_pending_spins_on)
{
	static const struct uop prog2[] = { LOCK, SLEEP };
	const struct spinlock *l;
	const struct line *line;
	struct task *t2;
	uint32_t prev;

	setup();
	t2 = task(2);
	warm(fx.bline, 1, ACCESS_WRITE); /* task 1's unlock store */
	warm(fx.bline, 2, ACCESS_READ);  /* task 2's re-read */
	warm(fx.bline, 0, ACCESS_READ);  /* task 0's re-read */
	ck_assert_int_eq(spinlock_try(&fx.s.locks, fx.lock, 1, 1 * US), SPIN_ACQUIRED);
	ck_assert_int_eq(spinlock_try(&fx.s.locks, fx.lock, 2, 2 * US), SPIN_HEAD); /* pending */
	ck_assert_int_eq(spinlock_try(&fx.s.locks, fx.lock, 0, 3 * US), SPIN_QUEUE);
	ck_assert_int_eq(spinlock_join(&fx.s.locks, fx.lock, 0, 3 * US, 0, &prev), SPIN_HEAD); /* MCS head */
	ck_assert_uint_eq(prev, SPIN_NONE);
	spinlock_release(&fx.s.locks, fx.lock, 1);
	at_t0();
	program((struct uop)LOCK, TS_LOCK_SPIN, T0 - XFER_PS);
	on_bucket_lock(fx.t, LS_XCHG); /* the head came from the slow path */
	t2->prog = prog2;
	t2->nuops = 2;
	t2->pc = 0;
	t2->state = TS_LOCK_SPIN;
	t2->clock = T0 - XFER_PS;
	t2->burst_line = COH_NONE;
	on_bucket_lock(t2, LS_CMPXCHG); /* the pending waiter came from the cmpxchg */
	l = &fx.s.locks.locks[fx.lock];
	line = &fx.s.coh.lines[fx.bline];

	/* the head's re-read: unheld, but not free for it */
	grant(fx.bline);
	ck_assert_uint_eq(fx.t->state, TS_LOCK_SPIN);
	ck_assert_uint_eq(fx.t->pc, 0);
	ck_assert_uint_eq(fx.t->clock, T0);
	ck_assert_uint_eq(fx.t->locks_held, 0);
	ck_assert_uint_eq(l->holder, SPIN_NONE);
	ck_assert_uint_eq(l->pending, 2);
	ck_assert_uint_eq(l->qhead, 0);
	ck_assert_uint_eq(l->qtail, 0);
	ck_assert_uint_eq(l->acquisitions, 1);
	ck_assert_uint_eq(line->watchers, 0); /* watching its Shared copy */
	ck_assert_uint_eq(line->qhead, COH_NONE);
	ck_assert_uint_eq(line->inflight, COH_NONE);
	ck_assert_uint_eq(fx.s.eng.q.len, 0);

	/* the pending waiter's re-read: free for it, its take waits for the line */
	tasks_on_grant(fx.ts, 2, fx.bline);
	ck_assert_uint_eq(t2->state, TS_LOCK_TAKE);
	ck_assert_uint_eq(t2->pc, 0);
	ck_assert_uint_eq(t2->clock, T0);
	ck_assert_uint_eq(l->holder, SPIN_NONE);
	ck_assert_uint_eq(l->pending, 2);
	ck_assert_uint_eq(line->inflight, 2);       /* its write */
	ck_assert_uint_eq(line->watchers, COH_NONE); /* task 0's copy invalidated... */
	ck_assert_uint_eq(line->qhead, 0);           /* ...its re-read queued behind */
	ck_assert_uint_eq(fx.s.eng.q.len, 1);
	ck_assert_uint_eq(engine_next_time(&fx.s.eng), T0 + XFER_PS);

	/* the pending waiter's take granted: pending -> locked, no hand-off */
	engine_run(&fx.s.eng, T0 + XFER_PS + 1);
	ck_assert_uint_eq(t2->state, TS_SLEEP);
	ck_assert_uint_eq(t2->pc, 1);
	ck_assert_uint_eq(t2->clock, T0 + XFER_PS);
	ck_assert_uint_eq(t2->wait.slept_at, T0 + XFER_PS);
	ck_assert_uint_eq(t2->locks_held, 1);
	ck_assert_uint_eq(l->holder, 2);
	ck_assert_uint_eq(l->pending, SPIN_NONE);
	ck_assert_uint_eq(l->qhead, 0);
	ck_assert_uint_eq(l->qtail, 0);
	ck_assert_uint_eq(l->acquisitions, 2);
	ck_assert_uint_eq(l->contended, 1);
	ck_assert_uint_eq(l->wait_ps, T0 + XFER_PS - 2 * US);
	ck_assert_uint_eq(node_transfers(fx.s.ft.qnode_lines[0]), 0); /* no MCS node store */
	ck_assert_uint_eq(fx.t->state, TS_LOCK_SPIN);
	ck_assert_uint_eq(fx.t->clock, T0);
	ck_assert_uint_eq(line->inflight, 0); /* task 0's re-read, from CPU 2 */
	ck_assert_uint_eq(fx.s.eng.q.len, 1);   /* ...and nothing else: no hand-off event */
	ck_assert_uint_eq(fx.s.eng.q.ev[0].kind, fx.s.coh.done_kind);
	ck_assert_uint_eq(engine_next_time(&fx.s.eng), T0 + 2 * XFER_PS);

	/* the head's re-read sees the lock held: it spins on */
	engine_run(&fx.s.eng, T0 + 2 * XFER_PS + 1);
	ck_assert_uint_eq(fx.t->state, TS_LOCK_SPIN);
	ck_assert_uint_eq(fx.t->pc, 0);
	ck_assert_uint_eq(fx.t->clock, T0 + 2 * XFER_PS);
	ck_assert_uint_eq(fx.t->locks_held, 0);
	ck_assert_uint_eq(l->holder, 2);
	ck_assert_uint_eq(l->qhead, 0);
	ck_assert_uint_eq(l->acquisitions, 2);
	ck_assert_uint_eq(line->owner, COH_NONE);
	ck_assert_uint_eq(line->nsharers, 2); /* CPUs 2 and 0 */
	ck_assert_uint_eq(line->watchers, 0);
	ck_assert_uint_eq(line->inflight, COH_NONE);
	ck_assert_uint_eq(fx.s.eng.q.len, 0);
	teardown();
}
END_TEST

/* --- TS_LOCK_TAKE --------------------------------------------------------------- */

/* The MCS head's write that takes the free lock is granted at T0. Before it:
 * task 1 held the lock, task 3 was the pending waiter (from 1 us), task 0 joined
 * the MCS queue as its head (2 us) and task 2 behind it (3 us); task 1 released,
 * task 3 took the lock at 5 us (pending -> locked: 4 us of waiting, no hand-off,
 * task 0 still the head) and released it, so the lock is free with no pending
 * waiter: the head may take it. Task 0 holds it (queued from 2 us: 8 us of
 * waiting), and task 2, queued behind it, becomes the head: the store to CPU 2's
 * MCS node (one transfer within the node) reaches it 40 ns later, when it starts
 * spinning on the lock's line. Done at T0 (the write's cost is in the grant's
 * time). */
START_TEST(test_lock_take)
{
	const struct spinlock *l;
	uint32_t prev, qnode2;

	setup();
	qnode2 = fx.s.ft.qnode_lines[2];
	warm(fx.bline, 0, ACCESS_WRITE); /* the granted take */
	ck_assert_int_eq(spinlock_try(&fx.s.locks, fx.lock, 1, 1 * US), SPIN_ACQUIRED);
	ck_assert_int_eq(spinlock_try(&fx.s.locks, fx.lock, 3, 1 * US), SPIN_HEAD); /* pending */
	ck_assert_int_eq(spinlock_try(&fx.s.locks, fx.lock, 0, 2 * US), SPIN_QUEUE);
	ck_assert_int_eq(spinlock_join(&fx.s.locks, fx.lock, 0, 2 * US, 0, &prev), SPIN_HEAD); /* MCS head */
	ck_assert_int_eq(spinlock_try(&fx.s.locks, fx.lock, 2, 3 * US), SPIN_QUEUE);
	ck_assert_int_eq(spinlock_join(&fx.s.locks, fx.lock, 2, 3 * US, 0, &prev), SPIN_QUEUE);
	ck_assert_uint_eq(prev, 0);
	spinlock_release(&fx.s.locks, fx.lock, 1);
	ck_assert_uint_eq(spinlock_take(&fx.s.locks, fx.lock, 3, 5 * US), SPIN_NONE);
	spinlock_release(&fx.s.locks, fx.lock, 3);
	ck_assert(spinlock_free_for(&fx.s.locks, fx.lock, 0));
	task(2)->state = TS_LOCK_MCS;
	on_bucket_lock(task(2), LS_XCHG);
	at_t0();
	program((struct uop)LOCK, TS_LOCK_TAKE, T0 - XFER_PS);
	on_bucket_lock(fx.t, LS_XCHG); /* the head came from the slow path */
	grant(fx.bline);
	assert_stopped(T0);
	l = &fx.s.locks.locks[fx.lock];
	ck_assert_uint_eq(l->holder, 0);
	ck_assert_uint_eq(l->pending, SPIN_NONE);
	ck_assert_uint_eq(l->qhead, 2);
	ck_assert_uint_eq(l->qtail, 2);
	ck_assert_uint_eq(l->acquisitions, 3);  /* 1, 3, then 0 */
	ck_assert_uint_eq(l->contended, 2);     /* 3's and 0's */
	ck_assert_uint_eq(l->wait_ps, (5 * US - 1 * US) + (T0 - 2 * US));
	ck_assert_uint_eq(fx.t->locks_held, 1);
	ck_assert_uint_eq(fx.t->lock_stage, LS_CMPXCHG);
	ck_assert_uint_eq(node_transfers(qnode2), 1);
	ck_assert_uint_eq(fx.s.eng.q.len, 1);
	ck_assert_uint_eq(engine_next_time(&fx.s.eng), T0 + XFER_PS);

	/* the hand-off: task 2 spins on the line from T0 + 40 ns, re-reading it
	 * from CPU 0 (which has it Modified) */
	engine_run(&fx.s.eng, T0 + XFER_PS + 1);
	ck_assert_uint_eq(task(2)->state, TS_LOCK_SPIN);
	ck_assert_uint_eq(task(2)->clock, T0 + XFER_PS);
	ck_assert_uint_eq(fx.s.coh.lines[fx.bline].inflight, 2);
	teardown();
}
END_TEST

/* --- TS_UNLOCK ------------------------------------------------------------------ */

/* The unlock store granted: the lock is free, task 0 holds none, the micro-op is
 * done at T0. The pending waiter (task 2) keeps the pending bit, outside the MCS
 * queue (which stays empty): it takes the lock itself once its re-read sees the
 * store. */
START_TEST(test_unlock)
{
	const struct spinlock *l;

	setup();
	warm(fx.bline, 0, ACCESS_WRITE);
	ck_assert_int_eq(spinlock_try(&fx.s.locks, fx.lock, 0, 1 * US), SPIN_ACQUIRED);
	ck_assert_int_eq(spinlock_try(&fx.s.locks, fx.lock, 2, 2 * US), SPIN_HEAD);
	at_t0();
	program((struct uop)UNLOCK, TS_UNLOCK, T0 - XFER_PS);
	on_bucket_lock(fx.t, LS_CMPXCHG);
	fx.t->locks_held = 1;
	grant(fx.bline);
	assert_stopped(T0);
	l = &fx.s.locks.locks[fx.lock];
	ck_assert(spinlock_is_free(&fx.s.locks, fx.lock));
	ck_assert(spinlock_free_for(&fx.s.locks, fx.lock, 2));
	ck_assert_uint_eq(l->pending, 2);
	ck_assert_uint_eq(l->qhead, SPIN_NONE);
	ck_assert_uint_eq(l->qtail, SPIN_NONE);
	ck_assert_uint_eq(l->acquisitions, 1);
	ck_assert_uint_eq(fx.t->locks_held, 0);
	teardown();
}
END_TEST

/* --- TS_RWSEM_ACCESS ------------------------------------------------------------ */

static uint32_t mmap_sem(void)
{
	uint32_t sem = fx.s.ft.procs[fx.t->process].mmap_sem;

	ck_assert_uint_ne(sem, RWSEM_NONE); /* the default mm layout has mmap_lock */
	return sem;
}

/* down_read granted while task 1 reads too: readers share it; done at T0. */
START_TEST(test_rwsem_down_read_shared)
{
	const struct rwsem *w;
	uint32_t sem;

	setup();
	sem = mmap_sem();
	ck_assert(rwsem_down(&fx.s.rwsems, sem, 1, false, 1 * US));
	at_t0();
	program((struct uop)RWSEM(RWSEM_DOWN_READ, sem), TS_RWSEM_ACCESS, T0 - XFER_PS);
	grant(fx.s.rwsems.v[sem].line);
	assert_stopped(T0);
	w = &fx.s.rwsems.v[sem];
	ck_assert_uint_eq(w->readers, 2);
	ck_assert_uint_eq(w->reads, 2);
	ck_assert_uint_eq(w->writer, RWSEM_NONE);
	ck_assert_uint_eq(w->qhead, RWSEM_NONE);
	ck_assert_uint_eq(w->contended, 0);
	teardown();
}
END_TEST

/* down_write granted while task 1 reads: task 0 queues and sleeps in the down
 * itself (pc 0: it moves past it when woken), leaving its CPU at T0. */
START_TEST(test_rwsem_down_write_contended_sleeps)
{
	const struct rwsem *w;
	uint32_t sem;

	setup();
	sem = mmap_sem();
	ck_assert(rwsem_down(&fx.s.rwsems, sem, 1, false, 1 * US));
	at_t0();
	program((struct uop)RWSEM(RWSEM_DOWN_WRITE, sem), TS_RWSEM_ACCESS, T0 - XFER_PS);
	ck_assert_uint_eq(fx.ts->cpu_current[0], 0);
	grant(fx.s.rwsems.v[sem].line);
	ck_assert_uint_eq(fx.t->state, TS_SLEEP);
	ck_assert_uint_eq(fx.t->pc, 0);
	ck_assert_uint_eq(fx.t->clock, T0);
	ck_assert_uint_eq(fx.t->wait.slept_at, T0);
	ck_assert_uint_eq(fx.ts->cpu_current[0], TASK_NONE);
	w = &fx.s.rwsems.v[sem];
	ck_assert_uint_eq(w->readers, 1);
	ck_assert_uint_eq(w->writer, RWSEM_NONE);
	ck_assert_uint_eq(w->qhead, 0);
	ck_assert_uint_eq(w->qtail, 0);
	ck_assert_uint_eq(w->contended, 1);
	ck_assert(fx.s.rwsems.wants_write[0]);
	ck_assert_uint_eq(fx.s.rwsems.queued_at[0], T0);
	ck_assert_uint_eq(fx.s.eng.q.len, 0);
	teardown();
}
END_TEST

/* up_write granted with readers 2 (queued at 2 us) and 3 (at 3 us) asleep on it:
 * both get it together (readers 2), each woken wake_to_run after T0; their
 * waits are 8 + 7 us. Task 0 is done at T0. */
START_TEST(test_rwsem_up_write_hands_over)
{
	const struct rwsem *w;
	uint32_t sem;
	bool woke[NTASKS] = { false };

	setup();
	sem = mmap_sem();
	ck_assert(rwsem_down(&fx.s.rwsems, sem, 0, true, 1 * US));
	ck_assert(!rwsem_down(&fx.s.rwsems, sem, 2, false, 2 * US));
	asleep(task(2));
	ck_assert(!rwsem_down(&fx.s.rwsems, sem, 3, false, 3 * US));
	asleep(task(3));
	at_t0();
	program((struct uop)RWSEM(RWSEM_UP_WRITE, sem), TS_RWSEM_ACCESS, T0 - XFER_PS);
	grant(fx.s.rwsems.v[sem].line);
	assert_stopped(T0);
	w = &fx.s.rwsems.v[sem];
	ck_assert_uint_eq(w->writer, RWSEM_NONE);
	ck_assert_uint_eq(w->readers, 2);
	ck_assert_uint_eq(w->reads, 2);
	ck_assert_uint_eq(w->writes, 1);
	ck_assert_uint_eq(w->qhead, RWSEM_NONE);
	ck_assert_uint_eq(w->wait_ps, (T0 - 2 * US) + (T0 - 3 * US));
	ck_assert_uint_eq(fx.s.eng.q.len, 2);
	for (size_t i = 0; i < fx.s.eng.q.len; i++) {
		const struct event *ev = &fx.s.eng.q.ev[i];

		ck_assert_uint_eq(ev->kind, fx.ts->wake_kind);
		ck_assert_uint_eq(ev->time, T0 + WAKEUP_PS);
		ck_assert_uint_lt(ev->target, NTASKS);
		woke[ev->target] = true;
	}
	ck_assert(woke[2] && woke[3]);
	teardown();
}
END_TEST

/* --- TS_USER_ACCESS ------------------------------------------------------------- */

/* The word holds 5; the atomic's old value is its result in every case. */
static const struct {
	uint8_t op;
	uint32_t expected, newval;
	uint32_t want_value, want_old;
} user_cases[] = {
	{ USER_LOAD, 0, 9, 5, 5 },  /* a load leaves the word */
	{ USER_STORE, 0, 9, 9, 5 }, /* a store writes newval */
	{ USER_XCHG, 0, 9, 9, 5 },  /* xchg writes newval, returns the old value */
	{ USER_CAS, 5, 9, 9, 5 },   /* cas that matches writes newval */
	{ USER_CAS, 4, 9, 5, 5 },   /* cas that does not leaves the word */
};

START_TEST(test_user_access)
{
	setup();
	at_t0();
	program((struct uop)USER(user_cases[_i].op), TS_USER_ACCESS, T0 - XFER_PS);
	fx.w.value = 5;
	fx.t->call.expected = user_cases[_i].expected;
	fx.t->call.newval = user_cases[_i].newval;
	fx.t->call.old_value = 0xdeadbeef;
	grant(fx.t->target.word_line);
	assert_stopped(T0);
	ck_assert_uint_eq(fx.w.value, user_cases[_i].want_value);
	ck_assert_uint_eq(fx.t->call.old_value, user_cases[_i].want_old);
	teardown();
}
END_TEST

/* --- TS_WAITERS_ACCESS ---------------------------------------------------------- */

/* The RMW of the target bucket's waiters count granted, +1: 2 -> 3; the other
 * bucket's count is untouched. Done at T0. */
START_TEST(test_waiters_inc)
{
	setup();
	at_t0();
	fx.table->waiters[fx.bucket] = 2;
	fx.table->waiters[fx.bucket2] = 4;
	program((struct uop)WAITERS(OPND_BUCKET_FIELD, 1), TS_WAITERS_ACCESS, T0 - XFER_PS);
	grant(fx.bline);
	assert_stopped(T0);
	ck_assert_uint_eq(fx.table->waiters[fx.bucket], 3);
	ck_assert_uint_eq(fx.table->waiters[fx.bucket2], 4);
	teardown();
}
END_TEST

/* The same with -1: 2 -> 1. */
START_TEST(test_waiters_dec)
{
	setup();
	at_t0();
	fx.table->waiters[fx.bucket] = 2;
	fx.table->waiters[fx.bucket2] = 4;
	program((struct uop)WAITERS(OPND_BUCKET_FIELD, 0), TS_WAITERS_ACCESS, T0 - XFER_PS);
	grant(fx.bline);
	assert_stopped(T0);
	ck_assert_uint_eq(fx.table->waiters[fx.bucket], 1);
	ck_assert_uint_eq(fx.table->waiters[fx.bucket2], 4);
	teardown();
}
END_TEST

/* A requeue's waiters_inc2: the second target's count, 4 -> 5, not the first's. */
START_TEST(test_waiters_second_target)
{
	setup();
	at_t0();
	fx.table->waiters[fx.bucket] = 2;
	fx.table->waiters[fx.bucket2] = 4;
	fx.t->call.target2 = (struct op_target){ .table = fx.table, .bucket = fx.bucket2 };
	program((struct uop)WAITERS(OPND_BUCKET2_FIELD, 1), TS_WAITERS_ACCESS, T0 - XFER_PS);
	grant(fx.bline2);
	assert_stopped(T0);
	ck_assert_uint_eq(fx.table->waiters[fx.bucket], 2);
	ck_assert_uint_eq(fx.table->waiters[fx.bucket2], 5);
	teardown();
}
END_TEST

/* --- TS_WALK_ACCESS ------------------------------------------------------------- */

/* Waiter `i` queued (asleep) on task 0's bucket, waiting on `w`; it wrote its
 * futex_q (the line is its CPU's). */
static void queue_waiter(uint32_t i, struct futex_word *w)
{
	struct task *q = task(i);

	q->target = fx.t->target;
	q->call.word = w;
	futexq_enqueue(fx.ts, q);
	asleep(q);
	warm(q->wait.q_line, i, ACCESS_WRITE);
}

/* Waiter `i` as the walk leaves it just after unlinking it: off the chain, but
 * still waiting on `w` until woken or moved. */
static void unlinked_waiter(uint32_t i, struct futex_word *w)
{
	struct task *q = task(i);

	q->target = fx.t->target;
	q->call.word = w;
	q->wait.word = w;
	q->wait.table = fx.table;
	q->wait.bucket = fx.bucket;
	q->wait.chain_next = FUTEX_CHAIN_END;
	asleep(q);
}

/* Task 0 is the waker: FUTEX_WAKE(w, 1) (or a requeue) under the bucket lock,
 * its CPU holding the bucket line from taking the lock. */
static void waker(uint32_t requeue, enum walk_stage stage, uint32_t prev, uint32_t cur, uint32_t taken)
{
	ck_assert_int_eq(spinlock_try(&fx.s.locks, fx.lock, 0, 1 * US), SPIN_ACQUIRED);
	fx.t->locks_held = 1;
	fx.t->call.word = &fx.w;
	fx.t->call.nwake = 1;
	fx.t->call.nrequeue = 0;
	program((struct uop)WALK(requeue), TS_WALK_ACCESS, T0 - XFER_PS);
	fx.t->walk = (struct chain_walk){ .prev = prev, .cur = cur, .taken = taken, .stage = stage,
					  .wake_q = TASK_NONE, .wake_q_tail = TASK_NONE };
	fx.t->burst_line = fx.bline; /* the lock's access was its last hit */
}

static void assert_chain(uint32_t bucket, const uint32_t *want, uint32_t n)
{
	uint32_t c = fx.table->chain_head[bucket];

	for (uint32_t i = 0; i < n; i++, c = task(c)->wait.chain_next)
		ck_assert_msg(c == want[i], "chain entry %u: task %u, expected %u", i, c, want[i]);
	ck_assert_uint_eq(c, FUTEX_CHAIN_END);
	ck_assert_uint_eq(fx.table->chain_tail[bucket], n ? want[n - 1] : FUTEX_CHAIN_END);
}

/* Chain 1 (waiting on another word), 2 and 3 (on w). The read of task 1's
 * futex_q is granted at T0: futex_match costs chain_entry (7.5 ns), task 1 is
 * not a match, the walk moves to task 2 and reads its futex_q, which CPU 2
 * holds: the engine catches up to T0 + 7.5 ns and the read waits for a 40 ns
 * transfer (granted at T0 + 47.5 ns). Nothing unlinked, nobody woken. */
START_TEST(test_walk_read_other_moves_on)
{
	static const uint32_t chain[] = { 1, 2, 3 };

	setup();
	warm(fx.bline, 0, ACCESS_RMW);
	queue_waiter(1, &fx.w_other);
	queue_waiter(2, &fx.w);
	queue_waiter(3, &fx.w);
	fx.table->waiters[fx.bucket] = 3;
	at_t0();
	waker(0, WS_READ, FUTEX_CHAIN_END, 1, FUTEX_CHAIN_END);
	grant(task(1)->wait.q_line);
	ck_assert_uint_eq(fx.t->state, TS_WALK_ACCESS);
	ck_assert_uint_eq(fx.t->pc, 0);
	ck_assert_uint_eq(fx.t->clock, T0 + CHAIN_ENTRY_PS);
	ck_assert_uint_eq(fx.t->walk.stage, WS_READ);
	ck_assert_uint_eq(fx.t->walk.prev, 1);
	ck_assert_uint_eq(fx.t->walk.cur, 2);
	ck_assert_uint_eq(fx.t->walk.woken, 0);
	ck_assert_uint_eq(fx.t->stats.chain_walked, 1);
	ck_assert_uint_eq(fx.s.coh.lines[task(2)->wait.q_line].inflight, 0);
	ck_assert_uint_eq(engine_next_time(&fx.s.eng), T0 + CHAIN_ENTRY_PS + XFER_PS);
	assert_chain(fx.bucket, chain, 3);
	ck_assert_uint_eq(fx.table->waiters[fx.bucket], 3);
	ck_assert_ptr_eq(task(1)->wait.word, &fx.w_other);
	ck_assert_uint_eq(task(1)->stats.wakeups, 0);
	ck_assert_uint_eq(fx.t->locks_held, 1);
	teardown();
}
END_TEST

/* The same chain; the read of task 2's futex_q (reached past task 1) is granted
 * at T0: 7.5 ns of futex_match, a match: it is to be unlinked, a write of the
 * bucket's chain. CPU 4 (a lock spinner) shares the bucket line, so the write
 * cannot run ahead on CPU 0's copy: the engine catches up to T0 + 7.5 ns and
 * the write waits for the line (invalidating CPU 4: 40 ns). Unlinked only once
 * that write is granted: the chain and count are unchanged. */
START_TEST(test_walk_read_match_unlinks)
{
	static const uint32_t chain[] = { 1, 2, 3 };

	setup();
	warm(fx.bline, 0, ACCESS_RMW);
	warm(fx.bline, 4, ACCESS_READ);
	queue_waiter(1, &fx.w_other);
	queue_waiter(2, &fx.w);
	queue_waiter(3, &fx.w);
	fx.table->waiters[fx.bucket] = 3;
	at_t0();
	waker(0, WS_READ, 1, 2, FUTEX_CHAIN_END);
	grant(task(2)->wait.q_line);
	ck_assert_uint_eq(fx.t->state, TS_WALK_ACCESS);
	ck_assert_uint_eq(fx.t->pc, 0);
	ck_assert_uint_eq(fx.t->clock, T0 + CHAIN_ENTRY_PS);
	ck_assert_uint_eq(fx.t->walk.stage, WS_UNLINK);
	ck_assert_uint_eq(fx.t->walk.taken, 2);
	ck_assert_uint_eq(fx.t->walk.prev, 1);
	ck_assert_uint_eq(fx.t->stats.chain_walked, 1);
	ck_assert_uint_eq(fx.s.coh.lines[fx.bline].inflight, 0);
	ck_assert_uint_eq(engine_next_time(&fx.s.eng), T0 + CHAIN_ENTRY_PS + XFER_PS);
	assert_chain(fx.bucket, chain, 3);
	ck_assert_uint_eq(fx.table->waiters[fx.bucket], 3);
	ck_assert_ptr_eq(task(2)->wait.word, &fx.w);
	ck_assert_uint_eq(task(2)->stats.wakeups, 0);
	teardown();
}
END_TEST

/* The walk woke task `id` while its waker holds the bucket lock: it is on the waker's
 * wake_q, no wake event yet (wake_up_q comes after the unlock). Once the waker drops
 * the lock at its clock `unlock` (the machine's sched.wake_up is 0), the wake event
 * is due wake_to_run later: its CPU is idle and polls. */
static void assert_woken_after_unlock(uint32_t id, simtime_t unlock)
{
	ck_assert_uint_eq(fx.t->walk.wake_q, id);
	ck_assert_uint_eq(fx.t->walk.wake_q_tail, id);
	ck_assert_uint_eq(fx.s.eng.q.len, 0);
	ck_assert_uint_eq(fx.t->clock, unlock);
	fx.t->locks_held = 0;
	task_wake_q_flush(fx.ts, fx.t);
	ck_assert_uint_eq(fx.t->walk.wake_q, TASK_NONE);
	ck_assert_uint_eq(fx.s.eng.q.len, 1);
	ck_assert_uint_eq(fx.s.eng.q.ev[0].kind, fx.ts->wake_kind);
	ck_assert_uint_eq(fx.s.eng.q.ev[0].target, id);
	ck_assert_uint_eq(fx.s.eng.q.ev[0].time, unlock + WAKEUP_PS);
}

/* A grant ends a burst: the walk's next access is back-to-back only with the
 * line just granted, and the per-entry work after a read is not back-to-back
 * with anything. Chain 1 (another word), 2 and 3 (on w); task 0 holds the
 * bucket lock and its CPU holds the bucket line Modified, its last access the
 * lock's (burst_line = the bucket line); CPU 4 shares nothing. Task 4 asks for
 * the bucket line (an RMW) at T0 + 3 ns. The read of task 2's futex_q is
 * granted at T0:
 *   futex_match: 7.5 ns of work                           -> T0 + 7.5 ns
 *   the unlink's write of the bucket line cannot run ahead (the line is not
 *   task 0's alone, and a read and work came since the lock's access): the
 *   task hands back to the engine, to resume at T0 + 7.5 ns
 *   T0 + 3 ns: task 4's RMW, a transfer from CPU 0: 40 ns -> granted at T0 + 43 ns
 *   T0 + 7.5 ns: the unlink's write queues behind it; the line comes back from
 *   CPU 4 once it is there, another 40 ns               -> granted at T0 + 83 ns
 *   waiters-- on the line CPU 0 now holds: atomic hit 5 ns -> T0 + 88 ns
 * task 2 woken (wake_to_run after T0 + 83 ns), the walk done. Run ahead
 * instead, the unlink (1 ns) and waiters-- (5 ns) would keep the line on CPU 0
 * until T0 + 13.5 ns and task 4 would get it only at T0 + 53.5 ns. */
START_TEST(test_walk_unlink_after_read_waits_its_turn)
{
	static const uint32_t chain[] = { 1, 3 };
	static const struct uop prog4[] = {
		FIELD_ACCESS(ACCESS_RMW, OPND_BUCKET_FIELD, BF_LOCK),
		SLEEP,
	};
	const simtime_t asked4 = T0 + 3 * NS;
	const simtime_t granted4 = asked4 + XFER_PS;                        /* T0 + 43 ns */
	const simtime_t unlinked = granted4 + XFER_PS;                      /* T0 + 83 ns */
	struct task *t4;

	setup();
	t4 = task(4);
	warm(fx.bline, 0, ACCESS_RMW);
	queue_waiter(1, &fx.w_other);
	queue_waiter(2, &fx.w);
	queue_waiter(3, &fx.w);
	fx.table->waiters[fx.bucket] = 3;
	at_t0();
	ck_assert_uint_eq(fx.s.coh.lines[fx.bline].owner, 0);
	ck_assert_uint_eq(fx.s.coh.lines[fx.bline].nsharers, 0);
	t4->target = fx.t->target;
	t4->prog = prog4;
	t4->nuops = 2;
	t4->pc = 0;
	t4->clock = asked4;
	t4->state = TS_RUN;
	t4->burst_line = COH_NONE;
	engine_schedule(&fx.s.eng, asked4, fx.ts->resume_kind, 4);
	waker(0, WS_READ, 1, 2, FUTEX_CHAIN_END);
	grant(task(2)->wait.q_line);
	/* handed back to the engine after futex_match: nothing unlinked yet */
	ck_assert_uint_eq(fx.t->state, TS_RUN);
	ck_assert_uint_eq(fx.t->pc, 0);
	ck_assert_uint_eq(fx.t->clock, T0 + CHAIN_ENTRY_PS);
	ck_assert_uint_eq(fx.t->walk.stage, WS_UNLINK);
	ck_assert_uint_eq(fx.t->walk.taken, 2);
	ck_assert_uint_eq(fx.t->stats.chain_walked, 1);
	ck_assert_uint_eq(fx.table->waiters[fx.bucket], 3);
	ck_assert_uint_eq(fx.s.eng.q.len, 2);

	/* task 4 gets the line first: at T0 + 43 ns, while the unlink waits */
	engine_run(&fx.s.eng, granted4 + 1);
	ck_assert_uint_eq(t4->state, TS_SLEEP);
	ck_assert_uint_eq(t4->pc, 1);
	ck_assert_uint_eq(t4->wait.slept_at, granted4);
	ck_assert_uint_eq(fx.t->state, TS_WALK_ACCESS);
	ck_assert_uint_eq(fx.t->walk.stage, WS_UNLINK);
	ck_assert_uint_eq(fx.table->waiters[fx.bucket], 3);
	ck_assert_ptr_eq(task(2)->wait.word, &fx.w);

	/* then the waker's unlink and waiters-- */
	engine_run(&fx.s.eng, T0 + 1 * US);
	assert_stopped(unlinked + ATOMIC_HIT_PS);
	ck_assert_uint_eq(fx.t->clock, T0 + 88 * NS);
	assert_chain(fx.bucket, chain, 2);
	ck_assert_uint_eq(fx.table->waiters[fx.bucket], 2);
	ck_assert_ptr_null(task(2)->wait.word);
	ck_assert_uint_eq(task(2)->stats.wakeups, 1);
	ck_assert_uint_eq(task(3)->stats.wakeups, 0);
	ck_assert_uint_eq(fx.t->walk.woken, 1);
	ck_assert_uint_eq(fx.t->locks_held, 1);
	assert_woken_after_unlock(2, fx.t->clock);
	teardown();
}
END_TEST

/* The unlink's write of task 2's entry granted at T0: the chain becomes 1, 3;
 * then waiters-- on the same line, which CPU 0 now holds Modified: an atomic hit
 * (5 ns), the count 3 -> 2, task 2 woken (one to wake: the walk ends, task 3
 * stays queued). Done at T0 + 5 ns. Task 2 is woken once the waker unlocks: wake_to_run
 * after that. */
START_TEST(test_walk_unlink_wakes)
{
	static const uint32_t chain[] = { 1, 3 };

	setup();
	warm(fx.bline, 0, ACCESS_WRITE);
	queue_waiter(1, &fx.w_other);
	queue_waiter(2, &fx.w);
	queue_waiter(3, &fx.w);
	fx.table->waiters[fx.bucket] = 3;
	at_t0();
	waker(0, WS_UNLINK, 1, 2, 2);
	grant(fx.bline);
	assert_stopped(T0 + ATOMIC_HIT_PS);
	assert_chain(fx.bucket, chain, 2);
	ck_assert_uint_eq(task(2)->wait.chain_next, FUTEX_CHAIN_END);
	ck_assert_uint_eq(fx.table->waiters[fx.bucket], 2);
	ck_assert_ptr_null(task(2)->wait.word);
	ck_assert_uint_eq(task(2)->stats.wakeups, 1);
	ck_assert_ptr_eq(task(3)->wait.word, &fx.w);
	ck_assert_uint_eq(task(3)->stats.wakeups, 0);
	ck_assert_uint_eq(fx.t->walk.stage, WS_START);
	ck_assert_uint_eq(fx.t->walk.woken, 1);
	ck_assert_uint_eq(fx.t->locks_held, 1);
	assert_woken_after_unlock(2, T0 + ATOMIC_HIT_PS);
	teardown();
}
END_TEST

/* waiters-- of the unlinked task 2 granted at T0: the count 3 -> 2, task 2 on the
 * waker's wake_q (after the unlock at T0, running wake_to_run later: T0 + 7 us), the
 * walk done (one to wake). T0. */
START_TEST(test_walk_dec_wakes)
{
	static const uint32_t chain[] = { 1, 3 };

	setup();
	queue_waiter(1, &fx.w_other);
	queue_waiter(3, &fx.w);
	unlinked_waiter(2, &fx.w);
	fx.table->waiters[fx.bucket] = 3;
	at_t0();
	waker(0, WS_DEC, 1, 3, 2);
	grant(fx.bline);
	assert_stopped(T0);
	assert_chain(fx.bucket, chain, 2);
	ck_assert_uint_eq(fx.table->waiters[fx.bucket], 2);
	ck_assert_ptr_null(task(2)->wait.word);
	ck_assert_uint_eq(task(2)->stats.wakeups, 1);
	ck_assert_uint_eq(task(3)->stats.wakeups, 0);
	ck_assert_uint_eq(fx.t->walk.stage, WS_START);
	assert_woken_after_unlock(2, T0);
	teardown();
}
END_TEST

/* A requeue (nwake 1, nrequeue 1) that has woken task 2 already: the unlink of
 * task 3, the last entry, is granted at T0. The chain becomes just 1. Then, all
 * on lines CPU 0 holds Modified (it holds both buckets' locks):
 *   waiters-- on the first bucket: atomic hit at T0, 5 ns   -> T0 + 5 ns
 *   (one woken already: task 3 is moved, not woken)
 *   link into the second bucket's chain: a write on its line, another line
 *   than the last access, so the engine catches up first: hit 1 ns -> T0 + 6 ns
 *   waiters++ on the second bucket: atomic hit 5 ns          -> T0 + 11 ns
 * and the chain's end: done at T0 + 11 ns. Task 3 now waits on uaddr2 in the
 * second bucket, not woken; counts 2 -> 1 and 0 -> 1. */
START_TEST(test_walk_requeue_moves)
{
	static const uint32_t chain[] = { 1 };
	static const uint32_t chain2[] = { 3 };

	setup();
	warm(fx.bline, 0, ACCESS_WRITE);
	warm(fx.bline2, 0, ACCESS_RMW);
	queue_waiter(1, &fx.w_other);
	queue_waiter(3, &fx.w);
	fx.table->waiters[fx.bucket] = 2; /* tasks 1 and 3 (task 2's already went) */
	at_t0();
	waker(1, WS_UNLINK, 1, 3, 3);
	ck_assert_int_eq(spinlock_try(&fx.s.locks, fx.table->lock0 + fx.bucket2, 0, 1 * US), SPIN_ACQUIRED);
	fx.t->locks_held = 2;
	fx.t->call.nrequeue = 1;
	fx.t->walk.woken = 1;
	fx.t->call.word2 = &fx.w2;
	fx.t->call.target2 = (struct op_target){ .table = fx.table, .bucket = fx.bucket2 };
	grant(fx.bline);
	assert_stopped(T0 + ATOMIC_HIT_PS + LINE_HIT_PS + ATOMIC_HIT_PS);
	ck_assert_uint_eq(fx.t->clock, T0 + 11 * NS);
	assert_chain(fx.bucket, chain, 1);
	assert_chain(fx.bucket2, chain2, 1);
	ck_assert_uint_eq(fx.table->waiters[fx.bucket], 1);
	ck_assert_uint_eq(fx.table->waiters[fx.bucket2], 1);
	ck_assert_ptr_eq(task(3)->wait.word, &fx.w2);
	ck_assert_ptr_eq(task(3)->wait.table, fx.table);
	ck_assert_uint_eq(task(3)->wait.bucket, fx.bucket2);
	ck_assert_uint_eq(task(3)->stats.wakeups, 0);
	ck_assert_uint_eq(task(3)->state, TS_SLEEP);
	ck_assert_uint_eq(fx.t->walk.moved, 1);
	ck_assert_uint_eq(fx.t->stats.requeued, 1);
	ck_assert_uint_eq(fx.t->walk.stage, WS_START);
	ck_assert_uint_eq(fx.t->locks_held, 2);
	ck_assert_uint_eq(fx.s.eng.q.len, 0); /* nobody woken */
	teardown();
}
END_TEST

/* --- a grant for nothing ----------------------------------------------------------- */

/* A task that waits for no line (here: runnable) cannot be granted one: the
 * executor aborts rather than run a model bug on. */
START_TEST(test_grant_to_runnable_aborts)
{
	setup();
	at_t0();
	program((struct uop)ACCESS(ACCESS_READ, OPND_WORD_LINE), TS_RUN, T0);
	grant(fx.t->target.word_line);
	teardown();
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("grant");
	TCase *access = tcase_create("access");
	TCase *lock = tcase_create("spinlock");
	TCase *rwsem = tcase_create("rwsem");
	TCase *user = tcase_create("user atomics");
	TCase *futex = tcase_create("futex queue");

	tcase_add_test(access, test_access);
	tcase_add_test(access, test_access_through_coherence);
	tcase_add_test_raise_signal(access, test_grant_to_runnable_aborts, SIGABRT);
	tcase_add_test(lock, test_lock_cmpxchg_free);
	tcase_add_test(lock, test_lock_cmpxchg_held_pending_head);
	tcase_add_test(lock, test_lock_cmpxchg_queued_slow_path);
	tcase_add_test(lock, test_lock_tryread_then_xchg);
	tcase_add_test(lock, test_lock_xchg_takes_free_lock);
	tcase_add_test(lock, test_lock_spin_sees_free_takes);
	tcase_add_test(lock, test_lock_spin_sees_free_waits_for_take);
	tcase_add_test(lock, test_lock_spin_sees_held_spins_on);
	tcase_add_test(lock, test_lock_head_sees_pending_spins_on);
	tcase_add_test(lock, test_lock_take);
	tcase_add_test(lock, test_unlock);
	tcase_add_test(rwsem, test_rwsem_down_read_shared);
	tcase_add_test(rwsem, test_rwsem_down_write_contended_sleeps);
	tcase_add_test(rwsem, test_rwsem_up_write_hands_over);
	tcase_add_loop_test(user, test_user_access, 0, (int)(sizeof(user_cases) / sizeof(user_cases[0])));
	tcase_add_test(futex, test_waiters_inc);
	tcase_add_test(futex, test_waiters_dec);
	tcase_add_test(futex, test_waiters_second_target);
	tcase_add_test(futex, test_walk_read_other_moves_on);
	tcase_add_test(futex, test_walk_read_match_unlinks);
	tcase_add_test(futex, test_walk_unlink_after_read_waits_its_turn);
	tcase_add_test(futex, test_walk_unlink_wakes);
	tcase_add_test(futex, test_walk_dec_wakes);
	tcase_add_test(futex, test_walk_requeue_moves);
	suite_add_tcase(s, access);
	suite_add_tcase(s, lock);
	suite_add_tcase(s, rwsem);
	suite_add_tcase(s, user);
	suite_add_tcase(s, futex);
	return s;
}

int main(void)
{
	return tu_run_suite(suite());
}
