/* SPDX-License-Identifier: MIT */
/* Futex queues: the waiters hashed to each bucket, as chains of tasks, and
 * what futex ops do to them: the waiters count, queueing a waiter, waking
 * waiters and requeueing them to another bucket by walking a chain.
 *
 * A walk (UOP_WALK) visits the target bucket's chain in order; for each entry
 * it reads the waiter's futex_q (its line) and, for one waiting on the op's
 * word, unlinks it (a write to the chain's line), decrements the waiters count
 * (an RMW) and wakes it, up to nwake; a requeue then links up to nrequeue more
 * into the second bucket's chain and increments its count. A waiter woken
 * before it went to sleep does not sleep. PI futexes keep their waiters on the
 * chain until the one handed the word unqueues itself (futexq_pi_done). Part of the task executor
 * (models/task.h); waiter state lives in struct task, chains in the futex
 * tables (models/futex_table.h).
 */
#ifndef FUTEXSIM_FUTEX_QUEUE_H
#define FUTEXSIM_FUTEX_QUEUE_H

#include <stdbool.h>
#include <stdint.h>

#include "models/futex_table.h"
#include "models/task.h"

/* Stages of a chain walk for each entry: read its futex_q, decide; for a taken
 * entry: unlink it (write our chain's line), waiters-- (RMW), and for a requeue
 * link it into the second chain and waiters++ there. */
enum walk_stage { WS_START, WS_READ, WS_UNLINK, WS_DEC, WS_LINK2, WS_INC2, WS_DONE };

/* The first task in t's target chain waiting on t's word (the PI futex's top
 * waiter: one priority, so in queueing order), or FUTEX_CHAIN_END. */
static inline uint32_t futexq_pi_top(const struct tasks *ts, const struct task *t)
{
	uint32_t c = t->target.table->chain_head[t->target.bucket];

	while (c != FUTEX_CHAIN_END && ts->v[c].wait.word != t->call.word)
		c = ts->v[c].wait.chain_next;
	return c;
}

static inline bool futexq_branch_taken(const struct tasks *ts, const struct task *t, const struct uop *u)
{
	switch (u->cond) {
	case BR_VALUE_NE:
		return t->call.word->value != t->call.expected;
	case BR_PI_ACQUIRED:
		return !(t->call.old_value & FUTEX_TID_MASK);
	case BR_NO_PI_WAITER:
		return futexq_pi_top(ts, t) == FUTEX_CHAIN_END;
	case BR_NOT_QUEUED:
		return !t->wait.word;
	default:
		return t->target.table->waiters[t->target.bucket] == 0;
	}
}

/* The waiters count a UOP_WAITERS micro-op u of t changes: its target's or its
 * second target's. */
static inline uint32_t *futexq_waiters_of(const struct task *t, const struct uop *u)
{
	const struct op_target *which = u->operand == OPND_BUCKET2_FIELD ? &t->call.target2 : &t->target;

	return &which->table->waiters[which->bucket];
}

/* The RMW of a waiters count (target or second target) took effect: +1 or -1
 * (inline: every waiters_inc/dec of the hot path). */
static inline void futexq_waiters_done(struct task *t)
{
	const struct uop *u = &t->prog[t->pc];
	uint32_t *count = futexq_waiters_of(t, u);

	if (u->inc)
		(*count)++;
	else if (*count)
		(*count)--;
	t->pc++;
	task_set_state(t, TS_RUN);
}

/* Queues t on its target bucket's chain, waiting on its word (UOP_QUEUE). */
void futexq_enqueue(struct tasks *ts, struct task *t);
/* Moves a queued waiter to another bucket's chain (a private hash resize). */
void futexq_move(struct tasks *ts, struct task *t, const struct futex_table *table, uint32_t bucket);

/* A PI step (UOP_PI) took effect: its RMW of the word was granted, or (PI_UNQUEUE)
 * the new owner leaves the chain. */
void futexq_pi_done(struct tasks *ts, struct task *t);

/* A walk: starts at the chain's head; runs until it waits for a line (false)
 * or ends (true: the micro-op is done); the access of its stage was granted. */
void futexq_walk_start(struct task *t);
bool futexq_walk_run(struct tasks *ts, struct task *t);
void futexq_walk_access_done(struct tasks *ts, struct task *t);

#endif
