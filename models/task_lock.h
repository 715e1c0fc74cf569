/* SPDX-License-Identifier: MIT */
/* The lock protocols a task runs: the bucket's queued spinlock and the mm's
 * rw semaphore, as accesses to their lines plus the lock models' bookkeeping
 * (models/spinlock.h, models/rwsem.h).
 *
 * A lock micro-op goes through stages (t->lock_stage): the fast-path cmpxchg;
 * on the slow path, after the local work of setting up the per-CPU MCS node,
 * the trylock read and the xchg of the queue tail. The first waiter of a held
 * lock nobody else waits for is the pending waiter: it spins on the lock's line
 * (TS_LOCK_SPIN) without queueing. Others spin on their MCS node (TS_LOCK_MCS)
 * until handed the queue's head, then on the lock's line beside the pending
 * waiter. A spinner that sees the lock free for it takes it with a write
 * (TS_LOCK_TAKE); the queue head's take (lock_taken) hands the head role to the
 * next in the queue through a store to its MCS node. The owner's release only
 * frees the lock. Part of the task executor (models/task.h).
 */
#ifndef FUTEXSIM_TASK_LOCK_H
#define FUTEXSIM_TASK_LOCK_H

#include <stdbool.h>
#include <stdint.h>

#include "models/task.h"
#include "models/task_cpu.h"

/* The accesses a lock micro-op makes to the lock's line, in order; PREEMPT_RT's
 * lock and unlock: the cmpxchg, then the wait_lock's (LS_RT_SLOW). */
enum lock_stage { LS_CMPXCHG, LS_TRYREAD, LS_XCHG, LS_RT_SLOW };
/* After one access: go on to the next stage, the lock is held, or wait. */
enum lock_result { LOCK_NEXT, LOCK_HELD, LOCK_WAITING };

/* Runs the lock micro-op from its current stage; true once the lock is held
 * (the micro-op done), false while the task waits. */
bool lock_run(struct tasks *ts, struct task *t);
/* The access of the current lock stage was granted. */
enum lock_result lock_access_done(struct tasks *ts, struct task *t, uint32_t lock);
/* A spinner's (the pending waiter's or the queue head's) read of the lock line
 * was granted: takes the lock if free for it
 * (true when taken at once), else spins on. */
bool lock_spin_saw(struct tasks *ts, struct task *t, uint32_t lock);
/* The head's write that takes the free lock was granted. */
void lock_taken(struct tasks *ts, struct task *t, uint32_t lock);
/* Its predecessor's store made waiter `t` the queue head: it spins on the lock's line. */
void lock_handed_over(struct tasks *ts, struct task *t);
/* The unlock store was done: the lock is free; the micro-op is done (inline: every
 * unlock of the interpreter's hot path). */
static inline void lock_release_done(struct tasks *ts, struct task *t)
{
	spinlock_release(ts->locks, t->lock, t->id);
	t->locks_held--;
	t->pc++;
	if (t->locks_held == 0 && t->walk.wake_q != TASK_NONE)
		task_wake_q_flush(ts, t);
}
/* PREEMPT_RT (ts->preempt_rt; its lock micro-op goes through lock_run and
 * lock_access_done too): runs the unlock micro-op from its current stage; true once
 * done. A holder whose time slice ran out while it held the lock is preempted first
 * (false). */
bool rtunlock_run(struct tasks *ts, struct task *t);
/* The unlock's RMW of the current stage was granted; true when the micro-op is done. */
bool rtunlock_access_done(struct tasks *ts, struct task *t);
/* Whether t holds a bucket lock or is on its way to one. */
bool task_in_bucket_lock(const struct task *t);

/* The atomic of an rwsem micro-op was granted: take, queue (sleep) or release
 * and wake whom the semaphore goes to. True when the micro-op is done. */
bool rwsem_access_done(struct tasks *ts, struct task *t);

#endif
