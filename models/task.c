/* SPDX-License-Identifier: MIT */
#include "models/task.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/futex_queue.h"
#include "models/futex_table.h"
#include "models/task_access.h"
#include "models/task_cpu.h"
#include "models/task_lock.h"
#include "sim/core/bytes.h"

static void on_resume(void *ctx, uint32_t task);
static void prefetch_resume(void *ctx, uint32_t task);
static void on_handoff(void *ctx, uint32_t task);
static void on_wake(void *ctx, uint32_t task);
static void on_timer(void *ctx, uint32_t task);

int tasks_init(struct tasks *ts, struct engine *eng, const struct machine *m, uint32_t n)
{
	memset(ts, 0, sizeof(*ts));
	ts->eng = eng;
	ts->m = m;
	ts->n = n;
	/* line-aligned like the struct (calloc promises 16 bytes) */
	ts->v = aligned_alloc(_Alignof(struct task), (n ? n : 1) * sizeof(*ts->v));
	if (ts->v)
		memset(ts->v, 0, (n ? n : 1) * sizeof(*ts->v));
	ts->core_busy = calloc(m->ncores, sizeof(*ts->core_busy));
	ts->cpu_current = malloc(m->ncpus * sizeof(*ts->cpu_current));
	ts->runq_head = malloc(m->ncpus * sizeof(*ts->runq_head));
	ts->runq_tail = malloc(m->ncpus * sizeof(*ts->runq_tail));
	ts->runq_len = calloc(m->ncpus, sizeof(*ts->runq_len));
	ts->idle_since = calloc(m->ncpus, sizeof(*ts->idle_since));
	ts->rq = calloc(m->ncpus, sizeof(*ts->rq));
	ts->idle_hist = calloc(m->ncpus, sizeof(*ts->idle_hist));
	ts->resched_at = malloc(m->ncpus * sizeof(*ts->resched_at));
	ts->hint = malloc((n ? n : 1) * sizeof(*ts->hint));
	if (!ts->v || !ts->core_busy || !ts->cpu_current || !ts->runq_head || !ts->runq_tail || !ts->runq_len ||
	    !ts->idle_since || !ts->rq || !ts->idle_hist || !ts->resched_at || !ts->hint) {
		tasks_free(ts);
		return -1;
	}
	for (uint32_t c = 0; c < m->ncpus; c++) {
		ts->cpu_current[c] = ts->runq_head[c] = ts->runq_tail[c] = TASK_NONE;
		ts->resched_at[c] = SIMTIME_MAX;
	}
	for (uint32_t i = 0; i < n; i++) {
		ts->v[i].id = i;
		ts->v[i].sched.runq_next = TASK_NONE;
		ts->v[i].walk.wake_q = ts->v[i].walk.wake_q_tail = TASK_NONE;
		ts->v[i].sched.wakee = (struct wakee_record){ .last_wakee = TASK_NONE, .recent_used_cpu = UINT32_MAX };
		ts->v[i].acct_from = SIMTIME_MAX; /* until it starts: no time to count */
		ts->hint[i] = (struct resume_hint){ COH_NONE, SPIN_NONE };
	}
	/* until tasks_configure: no slice ends, the machine's wake-up costs */
	ts->fair = (struct fair_params){ .policy = FAIR_FIFO, .slice = SIMTIME_MAX, .tick = PS_PER_MS };
	ts->msched = &m->sched;
	ts->window_end = SIMTIME_MAX;
	ts->resume_kind = engine_register(eng, on_resume, ts);
	engine_set_prefetch(eng, ts->resume_kind, prefetch_resume);
	ts->handoff_kind = engine_register(eng, on_handoff, ts);
	ts->wake_kind = engine_register(eng, on_wake, ts);
	ts->timer_kind = engine_register(eng, on_timer, ts);
	return 0;
}

void tasks_attach(struct tasks *ts, struct coherence *coh, struct spinlocks *locks, struct rwsems *rwsems,
		  const uint32_t *qnode_lines)
{
	ts->coh = coh;
	ts->locks = locks;
	ts->rwsems = rwsems;
	ts->qnode_lines = qnode_lines;
}

void tasks_configure(struct tasks *ts, const struct kernel_design *k, gsl_rng *rng, simtime_t window_start,
		     simtime_t window_end, task_hook_fn op_counted, void *op_counted_ctx)
{
	ts->fair = kernel_scheduler(k, ts->m->ncpus);
	ts->msched = &ts->m->sched;
	ts->preempt_rt = k->preempt_rt;
	ts->rng = rng;
	ts->window_start = window_start;
	ts->window_end = window_end;
	ts->op_counted = op_counted;
	ts->op_counted_ctx = op_counted_ctx;
}

void tasks_set_slept(struct tasks *ts, task_hook_fn slept, void *ctx)
{
	ts->slept = slept;
	ts->slept_ctx = ctx;
}

void tasks_set_program_done(struct tasks *ts, task_hook_fn program_done, void *ctx)
{
	ts->program_done = program_done;
	ts->program_done_ctx = ctx;
}

void tasks_free(struct tasks *ts)
{
	work_parts_free(&ts->parts);
	free(ts->v);
	free(ts->core_busy);
	free(ts->cpu_current);
	free(ts->runq_head);
	free(ts->runq_tail);
	free(ts->runq_len);
	free(ts->rq);
	free(ts->idle_hist);
	free(ts->resched_at);
	free(ts->idle_since);
	free(ts->hint);
	memset(ts, 0, sizeof(*ts));
}

/* --- the state machine (models/task.h: TASK_TRANSITIONS) --- */

const char *const task_state_names[] = {
	[TS_IDLE] = "TS_IDLE", [TS_RUN] = "TS_RUN", [TS_ACCESS] = "TS_ACCESS", [TS_LOCK_ACCESS] = "TS_LOCK_ACCESS",
	[TS_LOCK_MCS] = "TS_LOCK_MCS", [TS_LOCK_SPIN] = "TS_LOCK_SPIN", [TS_LOCK_TAKE] = "TS_LOCK_TAKE",
	[TS_UNLOCK] = "TS_UNLOCK", [TS_RWSEM_ACCESS] = "TS_RWSEM_ACCESS", [TS_USER_ACCESS] = "TS_USER_ACCESS",
	[TS_WAITERS_ACCESS] = "TS_WAITERS_ACCESS", [TS_WALK_ACCESS] = "TS_WALK_ACCESS", [TS_PI_ACCESS] = "TS_PI_ACCESS",
	[TS_RT_SPIN] = "TS_RT_SPIN", [TS_SLEEP] = "TS_SLEEP", [TS_READY] = "TS_READY",
};

const struct task_transition task_transitions[] = {
#define TRANSITION_ROW(from, to, when) { from, to, when },
	TASK_TRANSITIONS(TRANSITION_ROW)
#undef TRANSITION_ROW
};
const uint32_t task_ntransitions = sizeof(task_transitions) / sizeof(task_transitions[0]);

bool task_transition_valid(enum task_state from, enum task_state to)
{
	/* the same rows as a matrix: the debug check's lookup is one load */
	static const bool valid[TS_NSTATES][TS_NSTATES] = {
#define TRANSITION_CELL(from, to, when) [from][to] = true,
		TASK_TRANSITIONS(TRANSITION_CELL)
#undef TRANSITION_CELL
	};

	return (unsigned)from < TS_NSTATES && (unsigned)to < TS_NSTATES && valid[from][to];
}

#ifdef FUTEXSIM_DEBUG
static bool transition_seen[TS_NSTATES][TS_NSTATES];

void task_check_transition(const struct task *t, enum task_state next)
{
	if (!task_transition_valid((enum task_state)t->state, next)) {
		fprintf(stderr, "futexsim: task %u at pc %u: invalid state change %s -> %s (models/task.h: TASK_TRANSITIONS)\n",
			t->id, t->pc, t->state < TS_NSTATES ? task_state_names[t->state] : "?",
			(unsigned)next < TS_NSTATES ? task_state_names[next] : "?");
		abort();
	}
	transition_seen[t->state][next] = true;
}

bool task_transition_seen(enum task_state from, enum task_state to)
{
	return (unsigned)from < TS_NSTATES && (unsigned)to < TS_NSTATES && transition_seen[from][to];
}
#endif

/* --- the interpreter --- */

/* The next op's bucket line and lock are random in tables of up to 2^16 buckets;
 * ask the host to fetch them while other tasks' events run, and note the lock for
 * the resume's prefetch hook. */
static void prefetch_target(struct tasks *ts, const struct task *t)
{
	const struct futex_table *tab = t->target.table;
	uint32_t lock = SPIN_NONE;

	if (tab && tab->lock0 != SPIN_NONE) {
		const struct line *l = &ts->coh->lines[futex_table_line(tab, t->target.bucket, BF_LOCK)];

		lock = tab->lock0 + t->target.bucket;
		__builtin_prefetch(&ts->locks->locks[lock]);
		__builtin_prefetch(l);
		__builtin_prefetch(&l->stats); /* the second half, written when the line moves */
	}
	ts->hint[t->id].lock = lock; /* last: the store may alias what is read above */
}

const char *const time_class_names[] = {
	"kernel_work", "user_work", "bucket_lines", "other_lines", "waiters", "lock", "unlock",
	"user_access", "mmap_lock", "chain", "asleep", NULL,
};

/* Each micro-op kind's class (enum time_class); local work and accesses then by operand. */
static const uint8_t kind_class[UOP_NKINDS] = {
	[UOP_WORK] = TC_KERNEL_WORK, [UOP_ACCESS] = TC_OTHER_LINES, [UOP_LOCK] = TC_LOCK, [UOP_UNLOCK] = TC_UNLOCK,
	[UOP_RWSEM] = TC_MMAP_LOCK, [UOP_USER] = TC_USER_ACCESS, [UOP_BRANCH] = TC_CHAIN, [UOP_JUMP] = TC_CHAIN,
	[UOP_WAITERS] = TC_WAITERS, [UOP_QUEUE] = TC_CHAIN, [UOP_SLEEP] = TC_ASLEEP, [UOP_WALK] = TC_CHAIN,
	[UOP_PI] = TC_USER_ACCESS, [UOP_NAP] = TC_USER_WORK,
};

static inline uint8_t time_class_of(const struct uop *u)
{
	if (u->kind == UOP_WORK && u->operand != OPND_NONE)
		return TC_USER_WORK;
	if (u->kind == UOP_ACCESS && (u->operand == OPND_BUCKET_FIELD || u->operand == OPND_BUCKET2_FIELD))
		return TC_BUCKET_LINES;
	return kind_class[u->kind];
}

/* Accounting by window edge: a task counts its micro-ops' time by its own clock,
 * only the part inside the measuring window. Until its clock passes the window's
 * start (acct_started unset), what it counts is dropped there; after that its edge
 * (task_acct_edge) is the window's end, past which nothing more counts. The hot
 * path only compares the clock with the edge. Whether the task got anywhere
 * through an event or by running ahead of the engine makes no difference. */
static void acct_cross_start(const struct tasks *ts, struct task *t)
{
	memset(t->acct.time_ps, 0, sizeof(t->acct.time_ps));
	memset(t->acct.step_ps, 0, sizeof(t->acct.step_ps));
	memset(t->acct.comp_ps, 0, sizeof(t->acct.comp_ps));
	if (t->acct_from < ts->window_start)
		t->acct_from = ts->window_start;
	t->acct_started = true;
}

/* The interval to t's clock reaches past its edge. */
static __attribute__((noinline)) void account_edge(const struct tasks *ts, struct task *t)
{
	if (!t->acct_started)
		acct_cross_start(ts, t);
	if (t->clock > ts->window_end) {
		t->acct.time_ps[t->acct_class] += task_window_part(ts, t->acct_from, t->clock);
		t->acct_from = t->clock;
	}
}

/* The time since the current micro-op began to its class; the next one begins now. */
static inline void account(const struct tasks *ts, struct task *t)
{
	if (__builtin_expect(t->clock > task_acct_edge(ts, t), 0))
		account_edge(ts, t);
	t->acct.time_ps[t->acct_class] += t->clock - t->acct_from;
	t->acct_from = t->clock;
}

/* A work micro-op from t's clock for `d` is about to be counted by composition or
 * split at once: past the window's start, what came before goes first. */
static inline void account_work_edge(const struct tasks *ts, struct task *t, simtime_t d)
{
	if (!t->acct_started && t->clock + d > ts->window_start)
		acct_cross_start(ts, t);
}

void task_account_start(const struct tasks *ts, struct task *t, simtime_t at)
{
	t->acct_from = at;
	t->acct_started = at >= ts->window_start;
}

void task_account_stop(const struct tasks *ts, struct task *t)
{
	/* (one that never reached the window keeps its edge there: nothing it counted is reported) */
	if (!t->acct_started && t->clock > ts->window_start)
		acct_cross_start(ts, t);
	t->acct.time_ps[t->acct_class] += task_window_part(ts, t->acct_from, t->clock);
	t->acct_from = SIMTIME_MAX;
}

void tasks_reset_stats(struct tasks *ts)
{
	for (uint32_t i = 0; i < ts->n; i++) {
		struct task *t = &ts->v[i];

		t->stats.wakeups = t->stats.chain_walked = t->stats.requeued = t->stats.switches_in = t->stats.futex_calls = 0;
		t->stats.slept_ps = 0;
		/* its time by class counts inside the window only (account), by its clock */
	}
}

void task_count_op(struct tasks *ts, struct task *t)
{
	if (task_in_window(ts, t))
		t->ops++;
	if (ts->op_counted)
		ts->op_counted(ts->op_counted_ctx, t);
}

/* The time `d` of a work micro-op the hot path does not count by composition (a
 * workload's draw merged with fixed work, or a composition beyond WORK_COMPS), to its
 * parts in proportion to their work at once (the draw to user_work); the next
 * micro-op's account() then adds nothing for it. */
static void credit_work(struct tasks *ts, struct task *t, const struct uop *u, simtime_t d)
{
	const struct work_parts *p = &ts->parts.v[u->parts - 1];
	bool task_work = u->operand == OPND_TASK_WORK;
	double total = (double)u->work_ps + (task_work ? (double)t->call.work_ps : 0);
	simtime_t given = 0, whole = d;

	account_work_edge(ts, t, whole);
	d = task_window_part(ts, t->clock, t->clock + whole);
	for (uint8_t i = 0; i < p->n && total > 0; i++) {
		simtime_t share = (simtime_t)((double)d * (double)p->ps[i] / total);

		if (p->step[i] == WORK_STEP_USER) {
			t->acct.time_ps[TC_USER_WORK] += share;
		} else {
			t->acct.step_ps[p->step[i]] += share;
			t->acct.time_ps[TC_KERNEL_WORK] += share;
		}
		given += share;
	}
	/* the rest: the workload's draw, and what rounding left */
	t->acct.time_ps[task_work ? TC_USER_WORK : TC_KERNEL_WORK] += d - given;
	t->acct_from = t->clock + whole;
}

void tasks_split_work(const struct tasks *ts, const struct task *t, simtime_t stop, simtime_t time_ps[TC_NCLASSES],
		      simtime_t step_ps[STEP_NSTEPS])
{
	/* the micro-op under way (a wait, most often) runs on to the run's end */
	simtime_t under_way = task_window_part(ts, t->acct_from, stop);

	if (!t->acct_started) {
		/* its clock never passed the window's start: it counted nothing of it */
		memset(time_ps, 0, sizeof(t->acct.time_ps));
		memset(step_ps, 0, sizeof(t->acct.step_ps));
		time_ps[t->acct_class] += under_way;
		return;
	}
	memcpy(time_ps, t->acct.time_ps, sizeof(t->acct.time_ps));
	memcpy(step_ps, t->acct.step_ps, sizeof(t->acct.step_ps));
	time_ps[t->acct_class] += under_way;
	for (uint32_t c = 1; c < WORK_COMPS && c <= ts->parts.n; c++) {
		const struct work_parts *p = &ts->parts.v[c - 1];
		double total = 0;

		if (!t->acct.comp_ps[c])
			continue;
		for (uint8_t i = 0; i < p->n; i++)
			total += (double)p->ps[i];
		for (uint8_t i = 0; i < p->n && total > 0; i++) {
			simtime_t share = (simtime_t)((double)t->acct.comp_ps[c] * (double)p->ps[i] / total);

			if (p->step[i] != WORK_STEP_USER) {
				step_ps[p->step[i]] += share;
			} else if (time_ps[TC_KERNEL_WORK] >= share) { /* the library's: user work */
				time_ps[TC_KERNEL_WORK] -= share;
				time_ps[TC_USER_WORK] += share;
			}
		}
	}
}

static void program_complete(struct tasks *ts, struct task *t)
{
	/* a loop of programs that take no time would never let simulated time pass
	 * (and never return to the engine): stop the run instead */
	if (t->clock != t->last_program_clock) {
		t->last_program_clock = t->clock;
		t->programs_same_time = 0;
	} else if (++t->programs_same_time > TASK_MAX_PROGRAMS_SAME_TIME) {
		ts->stalled = true;
		engine_stop(ts->eng);
		task_stop(ts, t);
		return;
	}
	t->programs_run++;
	if (!t->uncounted)
		task_count_op(ts, t);
	t->pc = 0;
	if (t->clock >= ts->window_end) {
		task_stop_at_window_end(t);
		return;
	}
	ts->program_done(ts->program_done_ctx, t);
	if (t->state == TS_RUN && task_preempted(ts, t))
		return;
	prefetch_target(ts, t);
}

/* --- the micro-ops: a handler per kind (enum uop_kind) ---
 *
 * Each runs micro-op `u` (t's current one) from where the task is: true when the
 * task runs on (the micro-op is done, or a jump taken: t->pc says where next),
 * false when it waits (a grant, a hand-off, a wake-up or a resume at its clock
 * will run it on) or stopped. */
typedef bool (*uop_handler)(struct tasks *ts, struct task *t, const struct uop *u);

static bool run_work(struct tasks *ts, struct task *t, const struct uop *u)
{
	simtime_t d;

	if (u->operand == OPND_RANDOM_EXP)
		d = (simtime_t)((double)u->work_ps * -log1p(-gsl_rng_uniform(ts->rng)));
	else if (u->operand == OPND_TASK_WORK)
		/* the workload's draw, and fixed work merged into this micro-op */
		d = work_time(ts, t, t->call.work_ps + u->work_ps);
	else
		d = work_time(ts, t, u->work_ps);
	if (u->parts && u->operand != OPND_TASK_WORK && u->parts < WORK_COMPS) {
		/* split when reported (tasks_split_work) */
		if (__builtin_expect(t->clock + d > task_acct_edge(ts, t), 0)) {
			account_work_edge(ts, t, d);
			t->acct.comp_ps[u->parts] += task_window_part(ts, t->clock, t->clock + d);
		} else {
			t->acct.comp_ps[u->parts] += d;
		}
	} else if (u->parts)
		credit_work(ts, t, u, d);
	t->clock += d;
	t->burst_line = COH_NONE;
	t->pc++;
	return true;
}

static bool run_access(struct tasks *ts, struct task *t, const struct uop *u)
{
	if (!line_access(ts, t, resolve_line(t, u), (enum access_kind)u->access, TS_ACCESS))
		return false;
	t->pc++;
	return true;
}

static bool run_lock(struct tasks *ts, struct task *t, const struct uop *u)
{
	/* (the second of two locks that are one bucket's: nothing to take) */
	if (t->lock_stage == LS_CMPXCHG && !uop_lock(t, u, &t->lock, &t->lock_line)) {
		t->pc++;
		return true;
	}
	return lock_run(ts, t);
}

static bool run_unlock(struct tasks *ts, struct task *t, const struct uop *u)
{
	if (!uop_lock(t, u, &t->lock, &t->lock_line)) {
		t->pc++;
		return true;
	}
	if (ts->preempt_rt)
		return rtunlock_run(ts, t);
	if (!line_access(ts, t, t->lock_line, ACCESS_WRITE, TS_UNLOCK))
		return false;
	lock_release_done(ts, t);
	return true;
}

static bool run_rwsem(struct tasks *ts, struct task *t, const struct uop *u)
{
	return line_access(ts, t, ts->rwsems->v[u->sem].line, ACCESS_RMW, TS_RWSEM_ACCESS) && rwsem_access_done(ts, t);
}

static bool run_user(struct tasks *ts, struct task *t, const struct uop *u)
{
	if (!line_access(ts, t, t->target.word_line, user_access_kind(u->user_op), TS_USER_ACCESS))
		return false;
	user_done(t);
	return true;
}

static bool run_branch(struct tasks *ts, struct task *t, const struct uop *u)
{
	t->pc = futexq_branch_taken(ts, t, u) ? u->to : t->pc + 1;
	return true;
}

static bool run_jump(struct tasks *ts, struct task *t, const struct uop *u)
{
	(void)ts;
	t->pc = u->to;
	return true;
}

static bool run_waiters(struct tasks *ts, struct task *t, const struct uop *u)
{
	if (!line_access(ts, t, resolve_line(t, &(struct uop){ .operand = u->operand, .field = BF_WAITERS }), ACCESS_RMW,
			 TS_WAITERS_ACCESS)) {
		/* the count changes when the line comes: fetch it meanwhile (on
		 * machines whose bucket state misses the host's caches) */
		if (ts->eng->prefetch_next && t->state == TS_WAITERS_ACCESS)
			__builtin_prefetch(futexq_waiters_of(t, u), 1);
		return false;
	}
	futexq_waiters_done(t);
	return true;
}

static bool run_queue(struct tasks *ts, struct task *t, const struct uop *u)
{
	(void)u;
	futexq_enqueue(ts, t);
	t->pc++;
	return true;
}

static bool run_sleep(struct tasks *ts, struct task *t, const struct uop *u)
{
	(void)u;
	if (t->wait.wake_pending) {
		/* woken between queueing and schedule(): schedule() returns at once */
		t->wait.wake_pending = false;
		t->pc++;
		return true;
	}
	task_sleep(ts, t);
	return false;
}

static bool run_walk(struct tasks *ts, struct task *t, const struct uop *u)
{
	(void)u;
	if (t->walk.stage == WS_START)
		futexq_walk_start(t);
	return futexq_walk_run(ts, t);
}

static bool run_pi(struct tasks *ts, struct task *t, const struct uop *u)
{
	if (u->operand != OPND_NONE && !line_access(ts, t, resolve_line(t, u), ACCESS_RMW, TS_PI_ACCESS))
		return false;
	futexq_pi_done(ts, t);
	return true;
}

static bool run_nap(struct tasks *ts, struct task *t, const struct uop *u)
{
	/* asleep until a timer (the workload's draw plus the uop's own) fires */
	task_sleep(ts, t);
	engine_schedule(ts->eng, t->clock + t->call.work_ps + u->work_ps, ts->timer_kind, t->id);
	return false;
}

static const uop_handler uop_handlers[UOP_NKINDS] = {
	[UOP_WORK] = run_work,       [UOP_ACCESS] = run_access, [UOP_LOCK] = run_lock,   [UOP_UNLOCK] = run_unlock,
	[UOP_RWSEM] = run_rwsem,     [UOP_USER] = run_user,     [UOP_BRANCH] = run_branch, [UOP_JUMP] = run_jump,
	[UOP_WAITERS] = run_waiters, [UOP_QUEUE] = run_queue,   [UOP_SLEEP] = run_sleep, [UOP_WALK] = run_walk,
	[UOP_PI] = run_pi,           [UOP_NAP] = run_nap,
};

/* The interpreter: runs t's program from its pc until it waits or stops, each
 * program's end going to the workload (program_complete). */
static void run(struct tasks *ts, struct task *t)
{
	for (;;) {
		const struct uop *u;

		account(ts, t);
		if (t->pc == t->nuops) {
			t->burst_line = COH_NONE;
			program_complete(ts, t);
			if (t->state != TS_RUN)
				return;
			continue;
		}
		u = &t->prog[t->pc];
		if (__builtin_expect(u->kind >= UOP_NKINDS, 0))
			abort(); /* programs are built by futex_path.c only */
		t->acct_class = time_class_of(u);
		if (!uop_handlers[u->kind](ts, t, u))
			return;
	}
}

/* Notes the user of the line micro-op `u` of `probe`'s program touches, if any. */
static void note_uop_line(struct tasks *ts, struct task *probe, const struct uop *u)
{
	uint32_t line = COH_NONE;

	if (u->kind == UOP_ACCESS)
		line = resolve_line(probe, u);
	else if (u->kind == UOP_RWSEM)
		line = ts->rwsems->v[u->sem].line;
	else if ((u->kind == UOP_LOCK || u->kind == UOP_UNLOCK) && u->operand == OPND_BUCKET_LOCK)
		uop_lock(probe, u, &probe->lock, &line);
	if (line != COH_NONE)
		coh_note_user(ts->coh, line, probe->id);
}

void task_note_lines(struct tasks *ts, const struct task *t, const struct op_target *targets, uint32_t ntargets)
{
	struct task probe = *t;
	/* noting a user twice changes nothing: every line of the first target, then
	 * only the micro-ops whose line moves with the target (all of them again if
	 * there are too many to list) */
	uint32_t moving[256], nmoving = 0;
	bool listed = true;

	for (uint32_t j = 0; j < ntargets; j++) {
		/* a requeue's second futex is one of the targets too */
		probe.target = probe.call.target2 = targets[j];
		if (j > 0 && listed) {
			for (uint32_t k = 0; k < nmoving; k++)
				note_uop_line(ts, &probe, &t->prog[moving[k]]);
			continue;
		}
		for (uint32_t pc = 0; pc < t->nuops; pc++) {
			note_uop_line(ts, &probe, &t->prog[pc]);
			if (j == 0 && uop_line_of_target(&t->prog[pc])) {
				if (nmoving < 256)
					moving[nmoving++] = pc;
				else
					listed = false;
			}
		}
	}
}

void tasks_on_grant(void *ctx, uint32_t task, uint32_t line)
{
	struct tasks *ts = ctx;
	struct task *t = &ts->v[task];

	t->clock = ts->eng->now;
	/* the task now holds `line`: only a next access to it with nothing in between
	 * is back-to-back (line_access) */
	t->burst_line = line;
	switch (t->state) {
	case TS_ACCESS:
		t->pc++;
		break;
	case TS_LOCK_ACCESS:
		if (lock_access_done(ts, t, t->lock) == LOCK_WAITING)
			return;
		break;
	case TS_LOCK_SPIN:
		if (!lock_spin_saw(ts, t, t->lock))
			return;
		break;
	case TS_LOCK_TAKE:
		lock_taken(ts, t, t->lock);
		break;
	case TS_UNLOCK:
		if (ts->preempt_rt)
			rtunlock_access_done(ts, t); /* done, or on to its next stage */
		else
			lock_release_done(ts, t);
		break;
	case TS_RWSEM_ACCESS:
		if (!rwsem_access_done(ts, t))
			return;
		break;
	case TS_USER_ACCESS:
		user_done(t);
		break;
	case TS_WAITERS_ACCESS:
		futexq_waiters_done(t);
		break;
	case TS_PI_ACCESS:
		futexq_pi_done(ts, t);
		break;
	case TS_WALK_ACCESS:
		futexq_walk_access_done(ts, t);
		if (!futexq_walk_run(ts, t))
			return;
		break;
	default:
		abort(); /* a grant for a task that asked for nothing is a model bug */
	}
	task_set_state(t, TS_RUN);
	run(ts, t);
}

/* The engine's prefetch hook for a resume: the state of the line the task will
 * access first, and of its bucket's lock, while the event before it runs. */
static void prefetch_resume(void *ctx, uint32_t task)
{
	const struct tasks *ts = ctx;
	const struct resume_hint h = ts->hint[task];

	if (h.line < ts->coh->nlines) {
		__builtin_prefetch(&ts->coh->lines[h.line]);
		/* a miss there asks the spatial prefetcher for the pair line, whose state it reads */
		if (ts->coh->buddy && ts->coh->buddy[h.line] != COH_NONE)
			__builtin_prefetch(&ts->coh->lines[ts->coh->buddy[h.line]]);
	}
	if (h.lock != SPIN_NONE)
		__builtin_prefetch(&ts->locks->locks[h.lock]);
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
	simtime_t from = t->wait.slept_at > ts->window_start ? t->wait.slept_at : ts->window_start;

	if (ts->eng->now > from)
		t->stats.slept_ps += ts->eng->now - from;
	t->sched.rt_woken = false;
	if (!t->sched.rt_queued) /* an rtlock's waiter retries its lock micro-op */
		t->pc++;
	task_wake_landed(ts, t);
}

/* A sleeping task's timer fired (a nap's end): it wakes as its own waker would. */
static void on_timer(void *ctx, uint32_t task)
{
	struct tasks *ts = ctx;

	task_wake(ts, &ts->v[task], NULL);
}

static void on_handoff(void *ctx, uint32_t task)
{
	struct tasks *ts = ctx;
	struct task *t = &ts->v[task];

	lock_handed_over(ts, t);
}

uint64_t tasks_bytes(uint64_t ntasks)
{
	return bytes_mul(ntasks, 4096u);
}
