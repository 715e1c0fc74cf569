/* SPDX-License-Identifier: MIT */
#include "models/task_lock.h"

#include "models/task_access.h"
#include "models/task_cpu.h"

/* --- queued spinlock (models/spinlock.h) --- */

static void lock_held(struct task *t)
{
	t->locks_held++;
	t->lock_stage = LS_CMPXCHG;
	t->pc++;
	t->state = TS_RUN;
}

static void spin(struct tasks *ts, struct task *t)
{
	t->burst_line = COH_NONE;
	t->state = TS_LOCK_SPIN;
	coh_watch(ts->coh, t->lock_line, t->id, t->cpu);
}

void lock_taken(struct tasks *ts, struct task *t, uint32_t lock)
{
	uint32_t next = spinlock_take(ts->locks, lock, t->id, ts->eng->now);

	if (next != SPIN_NONE) {
		/* the store to the next waiter's MCS node makes it the head */
		uint32_t to = ts->v[next].cpu;

		coh_count_transfer(ts->coh, ts->qnode_lines[to], t->cpu, to);
		engine_schedule(ts->eng, ts->eng->now + machine_xfer_ps(ts->m, t->cpu, to), ts->handoff_kind, next);
	}
	lock_held(t);
}

/* A spinner saw the lock free for it: take it with a write. Returns true when done at once. */
static bool take(struct tasks *ts, struct task *t, uint32_t lock)
{
	simtime_t cost;

	if (coh_access(ts->coh, t->lock_line, t->id, t->cpu, ACCESS_WRITE, &cost) == COH_WAIT) {
		t->state = TS_LOCK_TAKE;
		return false;
	}
	lock_taken(ts, t, lock);
	t->clock += cost;
	return true;
}

/* A spinner's (the pending waiter's or the queue head's) read of the lock line completed. */
bool lock_spin_saw(struct tasks *ts, struct task *t, uint32_t lock)
{
	if (spinlock_free_for(ts->locks, lock, t->id))
		return take(ts, t, lock);
	spin(ts, t);
	return false;
}

/* The access of the current lock stage has completed. */
enum lock_result lock_access_done(struct tasks *ts, struct task *t, uint32_t lock)
{
	uint32_t prev;

	switch (t->lock_stage) {
	case LS_CMPXCHG:
		switch (spinlock_try(ts->locks, lock, t->id, ts->eng->now)) {
		case SPIN_ACQUIRED:
			lock_held(t);
			return LOCK_HELD;
		case SPIN_HEAD: /* the pending waiter */
			spin(ts, t);
			return LOCK_WAITING;
		default: /* MCS slow path: set up the per-CPU node, then trylock and xchg */
			t->clock += work_time(ts, t, t->prog[t->pc].work_ps);
			t->burst_line = COH_NONE;
			t->lock_stage = LS_TRYREAD;
			return LOCK_NEXT;
		}
	case LS_TRYREAD:
		t->lock_stage = LS_XCHG;
		return LOCK_NEXT;
	default:
		switch (spinlock_join(ts->locks, lock, t->id, ts->eng->now, &prev)) {
		case SPIN_ACQUIRED:
			lock_held(t);
			return LOCK_HELD;
		case SPIN_HEAD:
			spin(ts, t);
			return LOCK_WAITING;
		default:
			/* link behind the previous tail: a store to its MCS node */
			coh_count_transfer(ts->coh, ts->qnode_lines[ts->v[prev].cpu], ts->v[prev].cpu, t->cpu);
			t->burst_line = COH_NONE;
			t->state = TS_LOCK_MCS;
			return LOCK_WAITING;
		}
	}
}

/* Runs the lock micro-op from its current stage; true once the lock is held. */
bool lock_run(struct tasks *ts, struct task *t)
{
	uint32_t lock = t->lock;
	uint32_t line = t->lock_line;

	for (;;) {
		enum access_kind kind = t->lock_stage == LS_TRYREAD ? ACCESS_READ : ACCESS_RMW;
		enum lock_result r;

		if (!line_access(ts, t, line, kind, TS_LOCK_ACCESS))
			return false;
		r = lock_access_done(ts, t, lock);
		if (r != LOCK_NEXT)
			return r == LOCK_HELD;
	}
}

/* --- rw semaphores (models/rwsem.h) --- */

/* Wakes every waiter the semaphore can now go to. */
static void rwsem_hand_over(struct tasks *ts, uint32_t sem)
{
	uint32_t w;

	while ((w = rwsem_grant_next(ts->rwsems, sem, ts->eng->now)) != RWSEM_NONE)
		task_wake(ts, &ts->v[w]);
}

/* The atomic of an rwsem op completed: take, queue (sleep) or release. */
bool rwsem_access_done(struct tasks *ts, struct task *t)
{
	const struct uop *u = &t->prog[t->pc];
	bool write = u->access == RWSEM_DOWN_WRITE || u->access == RWSEM_UP_WRITE;

	if (u->access == RWSEM_DOWN_READ || u->access == RWSEM_DOWN_WRITE) {
		if (!rwsem_down(ts->rwsems, u->arg, t->id, write, ts->eng->now)) {
			task_sleep(ts, t);
			return false;
		}
	} else {
		rwsem_up(ts->rwsems, u->arg, t->id, write);
		rwsem_hand_over(ts, u->arg);
	}
	t->pc++;
	t->state = TS_RUN;
	return true;
}

void lock_handed_over(struct tasks *ts, struct task *t)
{
	t->clock = ts->eng->now;
	spin(ts, t);
}

bool task_in_bucket_lock(const struct task *t)
{
	return t->locks_held || t->state == TS_LOCK_ACCESS || t->state == TS_LOCK_MCS || t->state == TS_LOCK_SPIN ||
	       t->state == TS_LOCK_TAKE;
}
