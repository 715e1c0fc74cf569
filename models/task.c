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
	ts->cpu_current = malloc(m->ncpus * sizeof(*ts->cpu_current));
	ts->runq_head = malloc(m->ncpus * sizeof(*ts->runq_head));
	ts->runq_tail = malloc(m->ncpus * sizeof(*ts->runq_tail));
	ts->idle_since = calloc(m->ncpus, sizeof(*ts->idle_since));
	if (!ts->v || !ts->core_busy || !ts->cpu_current || !ts->runq_head || !ts->runq_tail || !ts->idle_since) {
		tasks_free(ts);
		return -1;
	}
	for (uint32_t c = 0; c < m->ncpus; c++)
		ts->cpu_current[c] = ts->runq_head[c] = ts->runq_tail[c] = TASK_NONE;
	for (uint32_t i = 0; i < n; i++) {
		ts->v[i].id = i;
		ts->v[i].runq_next = TASK_NONE;
	}
	ts->timeslice_ps = SIMTIME_MAX;
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
	free(ts->cpu_current);
	free(ts->runq_head);
	free(ts->runq_tail);
	free(ts->idle_since);
	memset(ts, 0, sizeof(*ts));
}

/* --- CPUs and their run queues --- */

static void runq_push(struct tasks *ts, struct task *t)
{
	uint32_t c = t->cpu;

	t->state = TS_READY;
	t->runq_next = TASK_NONE;
	if (ts->runq_tail[c] == TASK_NONE)
		ts->runq_head[c] = t->id;
	else
		ts->v[ts->runq_tail[c]].runq_next = t->id;
	ts->runq_tail[c] = t->id;
}

/* Task `t` gets its CPU at `at` (or at its own clock, if later) and runs from there. */
static void cpu_dispatch(struct tasks *ts, struct task *t, simtime_t at)
{
	ts->cpu_current[t->cpu] = t->id;
	if (t->clock < at)
		t->clock = at;
	t->slice_start = t->clock;
	t->burst_line = COH_NONE;
	t->state = TS_RUN;
	engine_schedule(ts->eng, t->clock, ts->resume_kind, t->id);
}

/* The CPU's task gives it up at `at`: the next runnable task gets it after a
 * context switch, or the CPU idles. */
static void cpu_release(struct tasks *ts, uint32_t cpu, simtime_t at)
{
	uint32_t next = ts->runq_head[cpu];
	struct task *n;

	if (next == TASK_NONE) {
		ts->cpu_current[cpu] = TASK_NONE;
		ts->idle_since[cpu] = at;
		ts->core_busy[ts->m->cpu_core[cpu]]--;
		return;
	}
	n = &ts->v[next];
	ts->runq_head[cpu] = n->runq_next;
	if (ts->runq_head[cpu] == TASK_NONE)
		ts->runq_tail[cpu] = TASK_NONE;
	n->runq_next = TASK_NONE;
	n->switches_in++;
	cpu_dispatch(ts, n, at + ts->context_switch_ps);
}

/* A runnable task (started or woken) takes its idle CPU or queues for it. */
static void cpu_enter(struct tasks *ts, struct task *t, simtime_t at)
{
	t->clock = at;
	if (t->background) {
		t->state = TS_RUN;
		engine_schedule(ts->eng, at, ts->resume_kind, t->id);
		return;
	}
	if (ts->cpu_current[t->cpu] != TASK_NONE) {
		runq_push(ts, t);
		return;
	}
	ts->core_busy[t->core]++;
	cpu_dispatch(ts, t, ts->idle_since[t->cpu]);
}

void task_start(struct tasks *ts, struct task *t, simtime_t at)
{
	t->lock_stage = LS_CMPXCHG;
	cpu_enter(ts, t, at);
}

void task_stop(struct tasks *ts, struct task *t)
{
	if (!t->background && ts->cpu_current[t->cpu] == t->id)
		cpu_release(ts, t->cpu, t->clock);
	t->state = TS_IDLE;
}

/* A sleeping task leaves its CPU (its sibling runs alone, or another task runs) until woken. */
static void task_sleep(struct tasks *ts, struct task *t)
{
	t->burst_line = COH_NONE;
	t->state = TS_SLEEP;
	t->slept_at = t->clock;
	if (!t->background)
		cpu_release(ts, t->cpu, t->clock);
}

/* At the end of an op: a task that has used its slice lets the next runnable one run. */
static bool task_preempted(struct tasks *ts, struct task *t)
{
	if (t->background || ts->runq_head[t->cpu] == TASK_NONE || t->clock - t->slice_start < ts->timeslice_ps)
		return false;
	cpu_release(ts, t->cpu, t->clock);
	runq_push(ts, t);
	return true;
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
	case OPND_BUCKET2_FIELD:
		return futex_table_line(t->target2.table, t->target2.bucket, (enum bucket_field)u->arg);
	default:
		return u->arg;
	}
}

static inline uint64_t bucket_addr(const struct op_target *t)
{
	return t->table->base + (uint64_t)t->bucket * t->table->bucket_size;
}

/* The spinlock a lock/unlock micro-op works on, and its line (computed without
 * touching the lock, so that the host fetches both in parallel). False when there
 * is none: the second of two locks that are the same bucket's. */
static bool uop_lock(const struct task *t, const struct uop *u, uint32_t *lock, uint32_t *line)
{
	const struct op_target *which = &t->target;

	if (u->operand == OPND_LOCK_FIRST || u->operand == OPND_LOCK_SECOND) {
		bool same = t->target2.table == t->target.table && t->target2.bucket == t->target.bucket;
		bool second_is_lower = bucket_addr(&t->target2) < bucket_addr(&t->target);

		if (u->operand == OPND_LOCK_SECOND && same)
			return false;
		which = (u->operand == OPND_LOCK_FIRST) == second_is_lower ? &t->target2 : &t->target;
	}
	*lock = which->table->lock0 + which->bucket;
	*line = futex_table_line(which->table, which->bucket, BF_LOCK);
	return true;
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
	if (t->clock == ts->eng->now)
		return true;
	if (t->clock >= ts->window_end) {
		task_stop(ts, t);
		return false;
	}
	if (engine_try_advance(ts->eng, t->clock))
		return true;
	t->state = TS_RUN;
	engine_schedule(ts->eng, t->clock, ts->resume_kind, t->id);
	return false;
}

/* --- line accesses --- */

/* Whether the access ran: either at the engine's time or ahead of it (cost added
 * to the task's clock), or else the task now waits in `wait_state` or for a resume. */
static bool line_access(struct tasks *ts, struct task *t, uint32_t line, enum access_kind kind,
			enum task_state wait_state)
{
	simtime_t cost;

	if (t->clock != ts->eng->now) {
		bool burst = line == t->burst_line;

		if ((burst || ts->coh->lines[line].solo == t->id) &&
		    coh_access_ahead(ts->coh, line, t->id, t->cpu, kind, t->clock, burst, &cost))
			goto done;
		if (!catch_up(ts, t))
			return false;
	}
	if (coh_access(ts->coh, line, t->id, t->cpu, kind, &cost) == COH_WAIT) {
		t->state = wait_state;
		return false;
	}
done:
	t->clock += cost;
	t->burst_line = line;
	return true;
}

/* --- spinlock protocol (models/spinlock.h) --- */

enum lock_result { LOCK_NEXT, LOCK_HELD, LOCK_WAITING };

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

static void lock_taken(struct tasks *ts, struct task *t, uint32_t lock)
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

/* The head saw the lock free: take it with a write. Returns true when done at once. */
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
static bool lock_run(struct tasks *ts, struct task *t)
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

/* --- user atomics, waiters counts, chains (futex ops) --- */

static enum access_kind user_access_kind(uint8_t op)
{
	return op == USER_LOAD ? ACCESS_READ : op == USER_STORE ? ACCESS_WRITE : ACCESS_RMW;
}

/* The user-space atomic on the task's futex word took effect. */
static void user_done(struct task *t)
{
	const struct uop *u = &t->prog[t->pc];
	struct futex_word *w = t->word;

	t->result = w->value;
	switch (u->access) {
	case USER_STORE:
	case USER_XCHG:
		w->value = t->newval;
		break;
	case USER_CAS:
		if (w->value == t->expected)
			w->value = t->newval;
		break;
	default:
		break;
	}
	t->pc++;
	t->state = TS_RUN;
}

static bool branch_taken(const struct task *t, const struct uop *u)
{
	if (u->access == BR_VALUE_NE)
		return t->word->value != t->expected;
	return t->target.table->waiters[t->target.bucket] == 0;
}

static void waiters_done(struct task *t)
{
	const struct uop *u = &t->prog[t->pc];
	const struct op_target *which = u->operand == OPND_BUCKET2_FIELD ? &t->target2 : &t->target;
	uint32_t *count = &which->table->waiters[which->bucket];

	if (u->arg)
		(*count)++;
	else if (*count)
		(*count)--;
	t->pc++;
	t->state = TS_RUN;
}

static void chain_append(struct tasks *ts, struct task *t, const struct futex_table *table, uint32_t bucket)
{
	t->chain_next = FUTEX_CHAIN_END;
	if (table->chain_tail[bucket] == FUTEX_CHAIN_END)
		table->chain_head[bucket] = t->id;
	else
		ts->v[table->chain_tail[bucket]].chain_next = t->id;
	table->chain_tail[bucket] = t->id;
	t->wait_table = table;
	t->wait_bucket = bucket;
}

/* Unlinks waiter `w` (whose predecessor in the chain is `prev`, or none). */
static void chain_unlink(struct tasks *ts, struct task *w, uint32_t prev)
{
	const struct futex_table *table = w->wait_table;
	uint32_t b = w->wait_bucket;

	if (prev == FUTEX_CHAIN_END)
		table->chain_head[b] = w->chain_next;
	else
		ts->v[prev].chain_next = w->chain_next;
	if (table->chain_tail[b] == w->id)
		table->chain_tail[b] = prev;
	w->chain_next = FUTEX_CHAIN_END;
}

bool task_in_bucket_lock(const struct task *t)
{
	return t->locks_held || t->state == TS_LOCK_ACCESS || t->state == TS_LOCK_MCS || t->state == TS_LOCK_SPIN ||
	       t->state == TS_LOCK_TAKE;
}

void task_chain_move(struct tasks *ts, struct task *t, const struct futex_table *table, uint32_t bucket)
{
	uint32_t prev = FUTEX_CHAIN_END;

	for (uint32_t c = t->wait_table->chain_head[t->wait_bucket]; c != t->id; c = ts->v[c].chain_next)
		prev = c;
	chain_unlink(ts, t, prev);
	if (t->wait_table->waiters[t->wait_bucket])
		t->wait_table->waiters[t->wait_bucket]--;
	chain_append(ts, t, table, bucket);
	table->waiters[bucket]++;
}

/* Wakes a futex waiter: at once if it has not gone to sleep yet. */
static void futex_wake_task(struct tasks *ts, struct task *w)
{
	w->waiting_on = NULL;
	w->wakeups++;
	if (w->state == TS_SLEEP) {
		task_wake(ts, w);
	} else {
		w->wake_pending = true;
	}
}

/* Stages of a chain walk for each entry: read its futex_q, decide; for a taken
 * entry: unlink it (write our chain's line), waiters-- (RMW), and for a requeue
 * link it into the second chain and waiters++ there. */
enum walk_stage { WS_START, WS_READ, WS_UNLINK, WS_DEC, WS_LINK2, WS_INC2, WS_DONE };

static void walk_start(struct task *t)
{
	t->walk_prev = FUTEX_CHAIN_END;
	t->walk_cur = t->target.table->chain_head[t->target.bucket];
	t->walk_woken = t->walk_moved = 0;
	t->walk_stage = t->walk_cur == FUTEX_CHAIN_END ? WS_DONE : WS_READ;
}

/* The line the current stage accesses and how, or false when the stage has none. */
static bool walk_line(const struct tasks *ts, const struct task *t, uint32_t *line, enum access_kind *kind)
{
	switch (t->walk_stage) {
	case WS_READ:
		*line = ts->v[t->walk_cur].q_line;
		*kind = ACCESS_READ;
		return *line != COH_NONE;
	case WS_UNLINK:
		*line = futex_table_line(t->target.table, t->target.bucket, BF_CHAIN);
		*kind = ACCESS_WRITE;
		return true;
	case WS_DEC:
		*line = futex_table_line(t->target.table, t->target.bucket, BF_WAITERS);
		*kind = ACCESS_RMW;
		return *line != COH_NONE;
	case WS_LINK2:
		*line = futex_table_line(t->target2.table, t->target2.bucket, BF_CHAIN);
		*kind = ACCESS_WRITE;
		return true;
	case WS_INC2:
		*line = futex_table_line(t->target2.table, t->target2.bucket, BF_WAITERS);
		*kind = ACCESS_RMW;
		return *line != COH_NONE;
	default:
		return false;
	}
}

/* What happens once the current stage's access is done. */
static void walk_after_access(struct tasks *ts, struct task *t)
{
	const struct uop *u = &t->prog[t->pc];
	bool requeue = u->arg != 0;
	struct task *w;

	t->state = TS_RUN;
	switch (t->walk_stage) {
	case WS_READ:
		w = &ts->v[t->walk_cur];
		/* futex_match and the list step cost local work for every entry */
		t->clock += work_time(ts, t, u->work_ps);
		t->chain_walked++;
		if (w->waiting_on == t->word) {
			t->walk_taken = t->walk_cur;
			t->walk_stage = WS_UNLINK;
		} else {
			t->walk_prev = t->walk_cur;
			t->walk_cur = w->chain_next;
		}
		break;
	case WS_UNLINK:
		w = &ts->v[t->walk_taken];
		t->walk_cur = w->chain_next;
		chain_unlink(ts, w, t->walk_prev);
		t->walk_stage = WS_DEC;
		break;
	case WS_DEC:
		if (t->target.table->waiters[t->target.bucket])
			t->target.table->waiters[t->target.bucket]--;
		if (t->walk_woken < t->nwake) {
			futex_wake_task(ts, &ts->v[t->walk_taken]);
			t->walk_woken++;
			t->walk_stage = WS_READ;
		} else {
			t->walk_stage = WS_LINK2;
		}
		break;
	case WS_LINK2:
		w = &ts->v[t->walk_taken];
		chain_append(ts, w, t->target2.table, t->target2.bucket);
		w->waiting_on = t->word2;
		t->walk_stage = WS_INC2;
		break;
	case WS_INC2:
		t->target2.table->waiters[t->target2.bucket]++;
		t->walk_moved++;
		t->requeued++;
		t->walk_stage = WS_READ;
		break;
	default:
		break;
	}
	/* stop at the chain's end or when there is nothing left to take */
	if (t->walk_stage == WS_READ &&
	    (t->walk_cur == FUTEX_CHAIN_END ||
	     (t->walk_woken >= t->nwake && (!requeue || t->walk_moved >= t->nrequeue))))
		t->walk_stage = WS_DONE;
}

/* Runs the walk until it waits for a line or ends (then the micro-op is done). */
static bool walk_run(struct tasks *ts, struct task *t)
{
	for (;;) {
		uint32_t line;
		enum access_kind kind;

		if (t->walk_stage == WS_DONE) {
			t->walk_stage = WS_START;
			t->pc++;
			return true;
		}
		if (walk_line(ts, t, &line, &kind) && !line_access(ts, t, line, kind, TS_WALK_ACCESS))
			return false;
		walk_after_access(ts, t);
	}
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

void tasks_reset_stats(struct tasks *ts)
{
	for (uint32_t i = 0; i < ts->n; i++) {
		struct task *t = &ts->v[i];

		t->wakeups = t->chain_walked = t->requeued = t->switches_in = t->futex_calls = 0;
		t->slept_ps = 0;
	}
}

void task_count_op(struct tasks *ts, struct task *t)
{
	if (task_in_window(ts, t))
		t->ops++;
	if (ts->op_counted)
		ts->op_counted(ts->op_counted_ctx, t);
}

static void op_complete(struct tasks *ts, struct task *t)
{
	/* a loop of programs that take no time would never let simulated time pass
	 * (and never return to the engine): stop the run instead */
	if (t->clock != t->last_op_t) {
		t->last_op_t = t->clock;
		t->ops_same_time = 0;
	} else if (++t->ops_same_time > TASK_MAX_OPS_SAME_TIME) {
		ts->stalled = true;
		ts->eng->stop = true;
		task_stop(ts, t);
		return;
	}
	t->ops_total++;
	if (!t->uncounted)
		task_count_op(ts, t);
	t->pc = 0;
	if (t->clock >= ts->window_end) {
		task_stop(ts, t);
		return;
	}
	ts->op_done(ts->op_done_ctx, t);
	if (t->state == TS_RUN && task_preempted(ts, t))
		return;
	prefetch_target(ts, t);
}

static void run(struct tasks *ts, struct task *t)
{
	for (;;) {
		const struct uop *u;
		if (t->pc == t->nuops) {
			t->burst_line = COH_NONE;
			op_complete(ts, t);
			if (t->state != TS_RUN)
				return;
			continue;
		}
		u = &t->prog[t->pc];
		switch (u->kind) {
		case UOP_WORK:
			if (u->operand == OPND_RANDOM_EXP)
				t->clock += (simtime_t)((double)u->work_ps * -log1p(-gsl_rng_uniform(ts->rng)));
			else if (u->operand == OPND_TASK_WORK)
				/* the workload's draw, and fixed work merged into this micro-op */
				t->clock += work_time(ts, t, t->work_ps + u->work_ps);
			else
				t->clock += work_time(ts, t, u->work_ps);
			t->burst_line = COH_NONE;
			t->pc++;
			break;
		case UOP_ACCESS:
			if (!line_access(ts, t, resolve_line(t, u), (enum access_kind)u->access, TS_ACCESS))
				return;
			t->pc++;
			break;
		case UOP_LOCK:
			if (t->lock_stage == LS_CMPXCHG && !uop_lock(t, u, &t->lock, &t->lock_line)) {
				t->pc++;
				break;
			}
			if (!lock_run(ts, t))
				return;
			break;
		case UOP_UNLOCK:
			if (!uop_lock(t, u, &t->lock, &t->lock_line)) {
				t->pc++;
				break;
			}
			if (!line_access(ts, t, t->lock_line, ACCESS_WRITE, TS_UNLOCK))
				return;
			spinlock_release(ts->locks, t->lock, t->id);
			t->locks_held--;
			t->pc++;
			break;
		case UOP_USER:
			if (!line_access(ts, t, t->target.word_line, user_access_kind(u->access), TS_USER_ACCESS))
				return;
			user_done(t);
			break;
		case UOP_BRANCH:
			t->pc = branch_taken(t, u) ? u->arg : t->pc + 1;
			break;
		case UOP_JUMP:
			t->pc = u->arg;
			break;
		case UOP_WAITERS:
			if (!line_access(ts, t, resolve_line(t, &(struct uop){ .operand = u->operand, .arg = BF_WAITERS }),
					 ACCESS_RMW, TS_WAITERS_ACCESS))
				return;
			waiters_done(t);
			break;
		case UOP_QUEUE:
			chain_append(ts, t, t->target.table, t->target.bucket);
			t->waiting_on = t->word;
			t->pc++;
			break;
		case UOP_SLEEP:
			if (t->wake_pending) {
				/* woken between queueing and schedule(): schedule() returns at once */
				t->wake_pending = false;
				t->pc++;
				break;
			}
			task_sleep(ts, t);
			return;
		case UOP_WALK:
			if (t->walk_stage == WS_START)
				walk_start(t);
			if (!walk_run(ts, t))
				return;
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
		/* a requeue's second futex is one of the targets too */
		probe.target = probe.target2 = targets[j];
		for (uint32_t pc = 0; pc < t->nuops; pc++) {
			const struct uop *u = &t->prog[pc];
			uint32_t line = COH_NONE;

			if (u->kind == UOP_ACCESS)
				line = resolve_line(&probe, u);
			else if (u->kind == UOP_RWSEM)
				line = ts->rwsems->v[u->arg].line;
			else if ((u->kind == UOP_LOCK || u->kind == UOP_UNLOCK) && u->operand == OPND_BUCKET_LOCK)
				uop_lock(&probe, u, &probe.lock, &line);
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
	t->clock = ts->eng->now;
	switch (t->state) {
	case TS_ACCESS:
		t->pc++;
		break;
	case TS_LOCK_ACCESS:
		if (lock_access_done(ts, t, t->lock) == LOCK_WAITING)
			return;
		break;
	case TS_LOCK_SPIN:
		if (!spin_saw(ts, t, t->lock))
			return;
		break;
	case TS_LOCK_TAKE:
		lock_taken(ts, t, t->lock);
		break;
	case TS_UNLOCK:
		spinlock_release(ts->locks, t->lock, t->id);
		t->locks_held--;
		t->pc++;
		break;
	case TS_RWSEM_ACCESS:
		if (!rwsem_after_access(ts, t))
			return;
		break;
	case TS_USER_ACCESS:
		user_done(t);
		break;
	case TS_WAITERS_ACCESS:
		waiters_done(t);
		break;
	case TS_WALK_ACCESS:
		walk_after_access(ts, t);
		if (!walk_run(ts, t))
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

/* A sleeper was woken (handed its semaphore, or by a futex wake) and runs again
 * past the micro-op it slept in, once it has its CPU. */
static void on_wake(void *ctx, uint32_t task)
{
	struct tasks *ts = ctx;
	struct task *t = &ts->v[task];
	/* blocked from going to sleep until now (wake-up latency included), in the window */
	simtime_t from = t->slept_at > ts->window_start ? t->slept_at : ts->window_start;

	if (ts->eng->now > from)
		t->slept_ps += ts->eng->now - from;
	t->pc++;
	cpu_enter(ts, t, ts->eng->now);
}

static void on_handoff(void *ctx, uint32_t task)
{
	struct tasks *ts = ctx;
	struct task *t = &ts->v[task];

	t->clock = ts->eng->now;
	spin(ts, t);
}
