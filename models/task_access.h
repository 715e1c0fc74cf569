/* SPDX-License-Identifier: MIT */
/* The hot helpers of the task executor, inline so that the interpreter
 * (models/task.c) and the protocols (task_lock.c, futex_queue.c) lose no speed:
 * resolving a micro-op's line or lock from the task's op target, local work
 * with the SMT slowdown, catching the engine up to the task's clock, one line
 * access (at the engine's time, ahead of it on a line nobody else uses, or a
 * wait for the coherence model's grant), and user-space atomics on a futex word.
 */
#ifndef FUTEXSIM_TASK_ACCESS_H
#define FUTEXSIM_TASK_ACCESS_H

#include <stdbool.h>
#include <stdint.h>

#include "models/futex_table.h"
#include "models/task.h"

static inline uint32_t resolve_line(const struct task *t, const struct uop *u)
{
	switch (u->operand) {
	case OPND_BUCKET_FIELD:
		return futex_table_line(t->target.table, t->target.bucket, (enum bucket_field)u->field);
	case OPND_WORD_LINE:
		return t->target.word_line;
	case OPND_PAGE_LINE:
		return t->target.page_line;
	case OPND_BUCKET2_FIELD:
		return futex_table_line(t->call.target2.table, t->call.target2.bucket, (enum bucket_field)u->field);
	case OPND_PI_STATE:
		return t->target.pi_line;
	case OPND_PI_STATE2:
		return t->call.target2.pi_line;
	case OPND_WORD2_LINE:
		return t->call.target2.word_line;
	default:
		return u->line; /* OPND_LINE */
	}
}

/* Whether the line micro-op `u` touches moves with the op's target: the cases of
 * resolve_line above other than its default, and the bucket lock (uop_lock);
 * keep the three together (task_note_lines relies on this to skip the others). */
static inline bool uop_line_of_target(const struct uop *u)
{
	switch (u->operand) {
	case OPND_BUCKET_FIELD:
	case OPND_WORD_LINE:
	case OPND_PAGE_LINE:
	case OPND_BUCKET2_FIELD:
	case OPND_PI_STATE:
	case OPND_PI_STATE2:
	case OPND_WORD2_LINE:
		return u->kind == UOP_ACCESS;
	case OPND_BUCKET_LOCK:
		return u->kind == UOP_LOCK || u->kind == UOP_UNLOCK;
	default:
		return false;
	}
}

static inline uint64_t bucket_addr(const struct op_target *t)
{
	return t->table->base + (uint64_t)t->bucket * t->table->bucket_size;
}

/* The spinlock a lock/unlock micro-op works on, and its line (computed without
 * touching the lock, so that the host fetches both in parallel). False when there
 * is none: the second of two locks that are the same bucket's. */
static inline bool uop_lock(const struct task *t, const struct uop *u, uint32_t *lock, uint32_t *line)
{
	const struct op_target *which = u->operand == OPND_BUCKET2_LOCK ? &t->call.target2 : &t->target;

	if (u->operand == OPND_LOCK_FIRST || u->operand == OPND_LOCK_SECOND) {
		bool same = t->call.target2.table == t->target.table && t->call.target2.bucket == t->target.bucket;
		bool second_is_lower = bucket_addr(&t->call.target2) < bucket_addr(&t->target);

		if (u->operand == OPND_LOCK_SECOND && same)
			return false;
		which = (u->operand == OPND_LOCK_FIRST) == second_is_lower ? &t->call.target2 : &t->target;
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
static inline bool catch_up(struct tasks *ts, struct task *t)
{
	if (t->clock == ts->eng->now)
		return true;
	if (t->clock >= ts->window_end) {
		task_stop_at_window_end(t);
		return false;
	}
	if (engine_try_advance(ts->eng, t->clock, ts->resume_kind, t->id))
		return true;
	task_set_state(t, TS_RUN);
	engine_schedule(ts->eng, t->clock, ts->resume_kind, t->id);
	return false;
}

/* Whether the access ran: either at the engine's time or ahead of it (cost added
 * to the task's clock), or else the task now waits in `wait_state` or for a resume.
 * Always inlined: left to itself the compiler stopped inlining it into the
 * interpreter, whose hottest step it is. */
static inline __attribute__((always_inline)) bool line_access(struct tasks *ts, struct task *t, uint32_t line,
							      enum access_kind kind, enum task_state wait_state)
{
	simtime_t cost;

	if (t->clock != ts->eng->now) {
		bool burst = line == t->burst_line;

		if ((burst || coh_solo_to(ts->coh, line, t->id)) &&
		    coh_access_ahead(ts->coh, line, t->id, t->cpu, kind, t->clock, burst, &cost))
			goto done;
		ts->hint[t->id].line = line;
		if (!catch_up(ts, t))
			return false;
	}
	if (coh_access(ts->coh, line, t->id, t->cpu, kind, &cost) == COH_WAIT) {
		task_set_state(t, wait_state);
		return false;
	}
done:
	t->clock += cost;
	t->burst_line = line;
	return true;
}

static inline enum access_kind user_access_kind(uint8_t op)
{
	return op == USER_LOAD ? ACCESS_READ : op == USER_STORE ? ACCESS_WRITE : ACCESS_RMW;
}

/* The user-space atomic on the task's futex word took effect. */
static inline void user_done(struct task *t)
{
	const struct uop *u = &t->prog[t->pc];
	struct futex_word *w = t->call.word;

	t->call.old_value = w->value;
	switch (u->user_op) {
	case USER_STORE:
	case USER_XCHG:
		w->value = t->call.newval;
		break;
	case USER_CAS:
		if (w->value == t->call.expected)
			w->value = t->call.newval;
		break;
	default:
		break;
	}
	t->pc++;
	task_set_state(t, TS_RUN);
}

#endif
