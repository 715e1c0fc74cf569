/* SPDX-License-Identifier: MIT */
#include "models/task_lock.h"

#include "models/rtlock.h"
#include "models/task_access.h"
#include "models/task_cpu.h"

static enum lock_result rtlock_access_done(struct tasks *ts, struct task *t);

/* --- queued spinlock (models/spinlock.h) --- */

static void lock_held(struct task *t)
{
	t->locks_held++;
	t->lock_stage = LS_CMPXCHG;
	t->pc++;
	task_set_state(t, TS_RUN);
}

static void spin(struct tasks *ts, struct task *t)
{
	t->burst_line = COH_NONE;
	task_set_state(t, TS_LOCK_SPIN);
	coh_watch(ts->coh, t->lock_line, t->id, t->cpu);
}

void lock_taken(struct tasks *ts, struct task *t, uint32_t lock)
{
	uint32_t next = spinlock_take(ts->locks, lock, t->id, ts->eng->now);

	if (next != SPIN_NONE) {
		/* the store to the next waiter's MCS node makes it the head */
		uint32_t to = ts->v[next].cpu;
		simtime_t arrives = coh_posted_store(ts->coh, ts->qnode_lines[to], t->cpu, to);

		engine_schedule(ts->eng, ts->eng->now + arrives, ts->handoff_kind, next);
	}
	lock_held(t);
}

/* A spinner saw the lock free for it: take it with a write. Returns true when done at once. */
static bool take(struct tasks *ts, struct task *t, uint32_t lock)
{
	simtime_t cost;

	if (coh_access(ts->coh, t->lock_line, t->id, t->cpu, ACCESS_WRITE, &cost) == COH_WAIT) {
		task_set_state(t, TS_LOCK_TAKE);
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

	if (ts->preempt_rt)
		return rtlock_access_done(ts, t);
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
		switch (spinlock_join(ts->locks, lock, t->id, ts->eng->now, ts->m->cpu_node[t->cpu], &prev)) {
		case SPIN_ACQUIRED:
			lock_held(t);
			return LOCK_HELD;
		case SPIN_HEAD:
			spin(ts, t);
			return LOCK_WAITING;
		default:
			/* link behind the previous tail: a store to its MCS node */
			(void)coh_posted_store(ts->coh, ts->qnode_lines[ts->v[prev].cpu], ts->v[prev].cpu, t->cpu);
			t->burst_line = COH_NONE;
			task_set_state(t, TS_LOCK_MCS);
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

/* --- PREEMPT_RT's sleeping spinlock_t (models/rtlock.h) --- */

static bool on_cpu(const struct tasks *ts, const struct task *t)
{
	return ts->cpu_current[t->cpu] == t->id;
}

/* The lock micro-op's RMW of the current stage was granted: take the lock, go on to
 * the slow path, or wait (spin on the running owner, or sleep). */
static enum lock_result rtlock_access_done(struct tasks *ts, struct task *t)
{
	uint32_t lock = t->lock, owner;
	bool taken;

	if (t->lock_stage == LS_CMPXCHG) {
		taken = rtlock_try_fast(ts->locks, lock, t->id);
		if (!taken) {
			/* rtlock_slowlock(): the wait_lock (an RMW of the same line) and,
			 * around it, the waiter's setup: local work */
			t->clock += work_time(ts, t, t->prog[t->pc].work_ps);
			t->burst_line = COH_NONE;
			t->lock_stage = LS_RT_SLOW;
			return LOCK_NEXT;
		}
	} else {
		taken = rtlock_try_take(ts->locks, lock, t->id, t->sched.rt_queued, ts->eng->now);
	}
	if (taken) {
		t->sched.rt_queued = false;
		t->sched.lock_taken_at = t->clock;
		lock_held(t);
		return LOCK_HELD;
	}
	if (!t->sched.rt_queued) {
		rtlock_enqueue(ts->locks, lock, t->id, ts->eng->now);
		t->sched.rt_queued = true;
	}
	t->burst_line = COH_NONE;
	owner = ts->locks->locks[lock].holder;
	if (rtlock_top(ts->locks, lock) == t->id && on_cpu(ts, &ts->v[owner])) {
		/* rtmutex_spin_on_owner(): until the owner lets go or leaves its CPU */
		task_set_state(t, TS_RT_SPIN);
		return LOCK_WAITING;
	}
	/* schedule_rtlock(); woken by an unlock (as the top waiter), it retries */
	task_sleep(ts, t);
	return LOCK_WAITING;
}

/* A top waiter spinning on the owner (TS_RT_SPIN) sees the owner let go: it retries. */
static void rtlock_spin_ended(struct tasks *ts, struct task *t)
{
	t->clock = ts->eng->now;
	task_set_state(t, TS_RUN);
	engine_schedule(ts->eng, t->clock, ts->resume_kind, t->id);
}

/* The owner left its CPU holding `lock`: a top waiter spinning on it sleeps. */
static void rtlock_owner_off_cpu(struct tasks *ts, uint32_t lock)
{
	uint32_t top = rtlock_top(ts->locks, lock);

	if (top != SPIN_NONE && ts->v[top].state == TS_RT_SPIN) {
		ts->v[top].clock = ts->eng->now;
		task_sleep(ts, &ts->v[top]);
	}
}

bool rtunlock_access_done(struct tasks *ts, struct task *t)
{
	uint32_t top;

	if (t->lock_stage == LS_CMPXCHG && rtlock_top(ts->locks, t->lock) != SPIN_NONE) {
		/* waiters: the cmpxchg fails; rt_mutex_slowunlock() takes the wait_lock,
		 * at the engine's time since it wakes the top waiter */
		t->lock_stage = LS_RT_SLOW;
		t->burst_line = COH_NONE;
		return false;
	}
	top = rtlock_release(ts->locks, t->lock, t->id);
	t->locks_held--;
	t->lock_stage = LS_CMPXCHG;
	t->pc++;
	if (top != SPIN_NONE) {
		struct task *w = &ts->v[top];

		if (w->state == TS_RT_SPIN) {
			rtlock_spin_ended(ts, w);
		} else if (w->state == TS_SLEEP && !w->sched.rt_woken) {
			w->sched.rt_woken = true;
			task_wake(ts, w, t);
		}
	}
	if (t->locks_held == 0 && t->walk.wake_q != TASK_NONE)
		task_wake_q_flush(ts, t);
	return true;
}

bool rtunlock_run(struct tasks *ts, struct task *t)
{
	if (t->lock_stage == LS_CMPXCHG && task_slice_ended_in_section(ts, t)) {
		if (!catch_up(ts, t))
			return false;
		if (task_preempted(ts, t)) {
			rtlock_owner_off_cpu(ts, t->lock);
			return false;
		}
	}
	for (;;) {
		if (!line_access(ts, t, t->lock_line, ACCESS_RMW, TS_UNLOCK))
			return false;
		if (rtunlock_access_done(ts, t))
			return true;
	}
}

/* --- rw semaphores (models/rwsem.h) --- */

/* Wakes every waiter the semaphore can now go to. */
static void rwsem_hand_over(struct tasks *ts, struct task *t, uint32_t sem)
{
	uint32_t w;

	while ((w = rwsem_grant_next(ts->rwsems, sem, ts->eng->now)) != RWSEM_NONE)
		task_wake(ts, &ts->v[w], t);
}

/* The atomic of an rwsem op completed: take, queue (sleep) or release. */
bool rwsem_access_done(struct tasks *ts, struct task *t)
{
	const struct uop *u = &t->prog[t->pc];
	bool write = u->rwsem_op == RWSEM_DOWN_WRITE || u->rwsem_op == RWSEM_UP_WRITE;

	if (u->rwsem_op == RWSEM_DOWN_READ || u->rwsem_op == RWSEM_DOWN_WRITE) {
		if (!rwsem_down(ts->rwsems, u->sem, t->id, write, ts->eng->now)) {
			task_sleep(ts, t);
			return false;
		}
	} else {
		rwsem_up(ts->rwsems, u->sem, t->id, write);
		rwsem_hand_over(ts, t, u->sem);
	}
	t->pc++;
	task_set_state(t, TS_RUN);
	return true;
}

void lock_handed_over(struct tasks *ts, struct task *t)
{
	t->clock = ts->eng->now;
	spin(ts, t);
}

bool task_in_bucket_lock(const struct task *t)
{
	return t->locks_held || t->sched.rt_queued || t->state == TS_LOCK_ACCESS || t->state == TS_LOCK_MCS ||
	       t->state == TS_LOCK_SPIN || t->state == TS_LOCK_TAKE || t->state == TS_RT_SPIN;
}
