#include "models/task.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/futex_table.h"

/* The accesses a lock micro-op makes to the lock's line, in order: the fast-path
 * cmpxchg; on the MCS slow path, after local work, the trylock read and the xchg
 * of the queue tail. */
enum lock_stage { LS_CMPXCHG, LS_TRYREAD, LS_XCHG };

static void on_resume(void *ctx, uint32_t task);
static void on_handoff(void *ctx, uint32_t task);
static void on_wake(void *ctx, uint32_t task);

int tasks_init(struct tasks *ts, struct engine *eng, const struct machine *m, uint32_t n)
{
	memset(ts, 0, sizeof(*ts));
	ts->eng = eng;
	ts->m = m;
	ts->n = n;
	ts->v = calloc(n ? n : 1, sizeof(*ts->v));
	ts->core_busy = calloc(m->ncores, sizeof(*ts->core_busy));
	if (!ts->v || !ts->core_busy) {
		tasks_free(ts);
		return -1;
	}
	for (uint32_t i = 0; i < n; i++)
		ts->v[i].id = i;
	ts->window_end = SIMTIME_MAX;
	ts->resume_kind = engine_register(eng, on_resume, ts);
	ts->handoff_kind = engine_register(eng, on_handoff, ts);
	ts->wake_kind = engine_register(eng, on_wake, ts);
	return 0;
}

void tasks_attach(struct tasks *ts, struct coherence *coh, struct spinlocks *locks, const uint32_t *qnode_lines,
		  task_op_done_fn op_done, void *ctx)
{
	ts->coh = coh;
	ts->locks = locks;
	ts->qnode_lines = qnode_lines;
	ts->op_done = op_done;
	ts->op_done_ctx = ctx;
}

void tasks_free(struct tasks *ts)
{
	free(ts->v);
	free(ts->core_busy);
	memset(ts, 0, sizeof(*ts));
}

void task_start(struct tasks *ts, struct task *t, simtime_t at)
{
	t->t = at;
	t->started = at;
	t->burst_line = COH_NONE;
	t->lock_stage = LS_CMPXCHG;
	t->state = TS_RUN;
	if (!t->background)
		ts->core_busy[t->core]++;
	engine_schedule(ts->eng, at, ts->resume_kind, t->id);
}

void task_stop(struct tasks *ts, struct task *t)
{
	if (t->state != TS_IDLE && t->state != TS_SLEEP && !t->background)
		ts->core_busy[t->core]--;
	t->state = TS_IDLE;
}

/* A sleeping task leaves its CPU (its sibling runs alone) until woken. */
static void task_sleep(struct tasks *ts, struct task *t)
{
	t->burst_line = COH_NONE;
	t->state = TS_SLEEP;
	if (!t->background)
		ts->core_busy[t->core]--;
}

static void task_wake(struct tasks *ts, struct task *t)
{
	engine_schedule(ts->eng, ts->eng->now + ts->wakeup_latency_ps, ts->wake_kind, t->id);
}

/* --- operands --- */

static inline uint32_t resolve_line(const struct task *t, const struct uop *u)
{
	switch (u->operand) {
	case OPND_BUCKET_FIELD:
		return futex_table_line(t->target.table, t->target.bucket, (enum bucket_field)u->arg);
	case OPND_WORD_LINE:
		return t->target.word_line;
	case OPND_PAGE_LINE:
		return t->target.page_line;
	default:
		return u->arg;
	}
}

static inline uint32_t current_lock(const struct task *t)
{
	return t->target.table->lock0 + t->target.bucket;
}

/* The line of the current bucket's lock, computed without touching the lock
 * (the lock and its line are then fetched by the host in parallel). */
static inline uint32_t current_lock_line(const struct task *t)
{
	return futex_table_line(t->target.table, t->target.bucket, BF_LOCK);
}

static inline simtime_t work_time(const struct tasks *ts, const struct task *t, simtime_t ps)
{
	/* the task itself counts as one busy thread of its core */
	if (ts->core_busy[t->core] > 1)
		return simtime_scale_milli(ps, ts->m->smt_slowdown_milli);
	return ps;
}

/* Brings the engine clock to the task's clock, or hands over to the engine. */
static bool catch_up(struct tasks *ts, struct task *t)
{
	if (t->t == ts->eng->now)
		return true;
	if (t->t >= ts->window_end) {
		task_stop(ts, t);
		return false;
	}
	if (engine_try_advance(ts->eng, t->t))
		return true;
	t->state = TS_RUN;
	engine_schedule(ts->eng, t->t, ts->resume_kind, t->id);
	return false;
}

/* --- line accesses --- */

/* Whether the access ran: either at the engine's time or ahead of it (cost added
 * to the task's clock), or else the task now waits in `wait_state` or for a resume. */
static bool line_access(struct tasks *ts, struct task *t, uint32_t line, enum access_kind kind,
			enum task_state wait_state)
{
	simtime_t cost;

	if (t->t != ts->eng->now) {
		bool burst = line == t->burst_line;

		if ((burst || ts->coh->lines[line].solo == t->id) &&
		    coh_access_ahead(ts->coh, line, t->id, t->cpu, kind, t->t, burst, &cost))
			goto done;
		if (!catch_up(ts, t))
			return false;
	}
	if (coh_access(ts->coh, line, t->id, t->cpu, kind, &cost) == COH_WAIT) {
		t->state = wait_state;
		return false;
	}
done:
	t->t += cost;
	t->burst_line = line;
	return true;
}

/* --- spinlock protocol (models/spinlock.h) --- */

enum lock_result { LOCK_NEXT, LOCK_HELD, LOCK_WAITING };

static void lock_held(struct task *t)
{
	t->lock_stage = LS_CMPXCHG;
	t->pc++;
	t->state = TS_RUN;
}

static void spin(struct tasks *ts, struct task *t)
{
	t->burst_line = COH_NONE;
	t->state = TS_LOCK_SPIN;
	coh_watch(ts->coh, current_lock_line(t), t->id, t->cpu);
}

static void lock_taken(struct tasks *ts, struct task *t, uint32_t lock)
{
	uint32_t next = spinlock_take(ts->locks, lock, t->id, ts->eng->now);

	if (next != SPIN_NONE) {
		/* the store to the next waiter's MCS node makes it the head */
		uint32_t to = ts->v[next].cpu;

		coh_count_transfer(ts->coh, ts->qnode_lines[to], t->cpu, to);
		engine_schedule(ts->eng, ts->eng->now + (to == t->cpu ? 0 : machine_xfer_ps(ts->m, t->cpu, to)),
				ts->handoff_kind, next);
	}
	lock_held(t);
}

/* The head saw the lock free: take it with a write. Returns true when done at once. */
static bool take(struct tasks *ts, struct task *t, uint32_t lock)
{
	simtime_t cost;

	if (coh_access(ts->coh, current_lock_line(t), t->id, t->cpu, ACCESS_WRITE, &cost) == COH_WAIT) {
		t->state = TS_LOCK_TAKE;
		return false;
	}
	lock_taken(ts, t, lock);
	t->t += cost;
	return true;
}

/* The queue head's read of the lock line completed. */
static bool spin_saw(struct tasks *ts, struct task *t, uint32_t lock)
{
	if (spinlock_is_free(ts->locks, lock))
		return take(ts, t, lock);
	spin(ts, t);
	return false;
}

/* The access of the current lock stage has completed. */
static enum lock_result lock_access_done(struct tasks *ts, struct task *t, uint32_t lock)
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
			t->t += work_time(ts, t, t->prog[t->pc].work_ps);
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
static bool lock_run(struct tasks *ts, struct task *t)
{
	uint32_t lock = current_lock(t);
	uint32_t line = current_lock_line(t);

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
static bool rwsem_after_access(struct tasks *ts, struct task *t)
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

/* --- the interpreter --- */

/* The next op's bucket line and lock are random in tables of up to 2^16 buckets;
 * ask the host to fetch them while other tasks' events run. */
static void prefetch_target(const struct tasks *ts, const struct task *t)
{
	const struct futex_table *tab = t->target.table;

	if (!tab || tab->lock0 == SPIN_NONE)
		return;
	const struct line *l = &ts->coh->lines[futex_table_line(tab, t->target.bucket, BF_LOCK)];

	__builtin_prefetch(l);
	__builtin_prefetch(&l->stats); /* the second half, written when the line moves */
	__builtin_prefetch(&ts->locks->locks[tab->lock0 + t->target.bucket]);
}

static void op_complete(struct tasks *ts, struct task *t)
{
	t->ops_total++;
	if (t->t >= ts->window_start && t->t < ts->window_end)
		t->ops++;
	t->pc = 0;
	if (t->t >= ts->window_end) {
		task_stop(ts, t);
		return;
	}
	ts->op_done(ts->op_done_ctx, t);
	prefetch_target(ts, t);
}

static void run(struct tasks *ts, struct task *t)
{
	for (;;) {
		const struct uop *u;
		uint32_t lock;

		if (t->pc == t->nuops) {
			t->burst_line = COH_NONE;
			op_complete(ts, t);
			if (t->state == TS_IDLE)
				return;
			continue;
		}
		u = &t->prog[t->pc];
		switch (u->kind) {
		case UOP_WORK:
			if (u->operand == OPND_RANDOM_EXP)
				t->t += (simtime_t)((double)u->work_ps * -log1p(-gsl_rng_uniform(ts->rng)));
			else
				t->t += work_time(ts, t, u->work_ps);
			t->burst_line = COH_NONE;
			t->pc++;
			break;
		case UOP_ACCESS:
			if (!line_access(ts, t, resolve_line(t, u), (enum access_kind)u->access, TS_ACCESS))
				return;
			t->pc++;
			break;
		case UOP_LOCK:
			if (!lock_run(ts, t))
				return;
			break;
		case UOP_UNLOCK:
			lock = current_lock(t);
			if (!line_access(ts, t, current_lock_line(t), ACCESS_WRITE, TS_UNLOCK))
				return;
			spinlock_release(ts->locks, lock, t->id);
			t->pc++;
			break;
		case UOP_RWSEM:
			if (!line_access(ts, t, ts->rwsems->v[u->arg].line, ACCESS_RMW, TS_RWSEM_ACCESS) ||
			    !rwsem_after_access(ts, t))
				return;
			break;
		default:
			abort(); /* programs are built by futex_path.c only */
		}
	}
}

void task_note_lines(struct tasks *ts, const struct task *t, const struct op_target *targets, uint32_t ntargets)
{
	struct task probe = *t;

	for (uint32_t j = 0; j < ntargets; j++) {
		probe.target = targets[j];
		for (uint32_t pc = 0; pc < t->nuops; pc++) {
			const struct uop *u = &t->prog[pc];
			uint32_t line = COH_NONE;

			if (u->kind == UOP_ACCESS)
				line = resolve_line(&probe, u);
			else if (u->kind == UOP_RWSEM)
				line = ts->rwsems->v[u->arg].line;
			else if (u->kind == UOP_LOCK || u->kind == UOP_UNLOCK)
				line = current_lock_line(&probe);
			if (line != COH_NONE)
				coh_note_user(ts->coh, line, t->id);
		}
	}
}

void tasks_on_grant(void *ctx, uint32_t task, uint32_t line)
{
	struct tasks *ts = ctx;
	struct task *t = &ts->v[task];

	(void)line;
	t->t = ts->eng->now;
	switch (t->state) {
	case TS_ACCESS:
		t->pc++;
		break;
	case TS_LOCK_ACCESS:
		if (lock_access_done(ts, t, current_lock(t)) == LOCK_WAITING)
			return;
		break;
	case TS_LOCK_SPIN:
		if (!spin_saw(ts, t, current_lock(t)))
			return;
		break;
	case TS_LOCK_TAKE:
		lock_taken(ts, t, current_lock(t));
		break;
	case TS_UNLOCK:
		spinlock_release(ts->locks, current_lock(t), t->id);
		t->pc++;
		break;
	case TS_RWSEM_ACCESS:
		if (!rwsem_after_access(ts, t))
			return;
		break;
	default:
		abort(); /* a grant for a task that asked for nothing is a model bug */
	}
	t->state = TS_RUN;
	run(ts, t);
}

static void on_resume(void *ctx, uint32_t task)
{
	struct tasks *ts = ctx;
	struct task *t = &ts->v[task];

	if (t->state == TS_RUN)
		run(ts, t);
}

/* A sleeper was handed its semaphore and now runs again, past its down. */
static void on_wake(void *ctx, uint32_t task)
{
	struct tasks *ts = ctx;
	struct task *t = &ts->v[task];

	t->t = ts->eng->now;
	if (!t->background)
		ts->core_busy[t->core]++;
	t->pc++;
	t->state = TS_RUN;
	run(ts, t);
}

static void on_handoff(void *ctx, uint32_t task)
{
	struct tasks *ts = ctx;
	struct task *t = &ts->v[task];

	t->t = ts->eng->now;
	spin(ts, t);
}
