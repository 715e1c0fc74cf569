/* SPDX-License-Identifier: MIT */
#include "models/futex_queue.h"

#include "models/task_access.h"
#include "models/task_cpu.h"

static void chain_append(struct tasks *ts, struct task *t, const struct futex_table *table, uint32_t bucket)
{
	t->wait.chain_next = FUTEX_CHAIN_END;
	if (table->chain_tail[bucket] == FUTEX_CHAIN_END)
		table->chain_head[bucket] = t->id;
	else
		ts->v[table->chain_tail[bucket]].wait.chain_next = t->id;
	table->chain_tail[bucket] = t->id;
	t->wait.table = table;
	t->wait.bucket = bucket;
}

/* Unlinks waiter `w` (whose predecessor in the chain is `prev`, or none). */
static void chain_unlink(struct tasks *ts, struct task *w, uint32_t prev)
{
	const struct futex_table *table = w->wait.table;
	uint32_t b = w->wait.bucket;

	if (prev == FUTEX_CHAIN_END)
		table->chain_head[b] = w->wait.chain_next;
	else
		ts->v[prev].wait.chain_next = w->wait.chain_next;
	if (table->chain_tail[b] == w->id)
		table->chain_tail[b] = prev;
	w->wait.chain_next = FUTEX_CHAIN_END;
}

/* Unlinks waiter `w` from the chain it waits on, finding its predecessor first. */
static void chain_remove(struct tasks *ts, struct task *w)
{
	uint32_t prev = FUTEX_CHAIN_END;

	for (uint32_t c = w->wait.table->chain_head[w->wait.bucket]; c != w->id; c = ts->v[c].wait.chain_next)
		prev = c;
	chain_unlink(ts, w, prev);
}

void futexq_move(struct tasks *ts, struct task *t, const struct futex_table *table, uint32_t bucket)
{
	chain_remove(ts, t);
	if (t->wait.table->waiters[t->wait.bucket])
		t->wait.table->waiters[t->wait.bucket]--;
	chain_append(ts, t, table, bucket);
	table->waiters[bucket]++;
}

/* Wakes a futex waiter: at once if it has not gone to sleep yet. */
static void futex_wake_task(struct tasks *ts, struct task *w, struct task *waker)
{
	w->wait.word = NULL;
	w->stats.wakeups++;
	if (w->state == TS_SLEEP) {
		task_wake_q_add(ts, waker, w);
	} else {
		w->wait.wake_pending = true;
	}
}

/* The owner's TID in a PI futex word. */
static uint32_t pi_tid(const struct task *t)
{
	return (t->id + 1) & FUTEX_TID_MASK;
}

void futexq_pi_done(struct tasks *ts, struct task *t)
{
	struct futex_word *w = t->call.word;
	uint32_t top;

	switch ((enum pi_op)t->prog[t->pc].pi_op) {
	case PI_LOCK_ATOMIC:
		t->call.old_value = w->value;
		w->value = (w->value & FUTEX_TID_MASK) ? w->value | FUTEX_WAITERS_BIT : pi_tid(t);
		break;
	case PI_HANDOFF:
		/* the rt_mutex goes to the top waiter: it owns the word when it runs */
		top = futexq_pi_top(ts, t);
		w->value = FUTEX_WAITERS_BIT | pi_tid(&ts->v[top]);
		ts->v[top].stats.wakeups++;
		if (ts->v[top].state == TS_SLEEP)
			task_wake(ts, &ts->v[top], t);
		else
			ts->v[top].wait.wake_pending = true;
		break;
	case PI_RELEASE:
		w->value = 0;
		break;
	case PI_UNQUEUE:
		chain_remove(ts, t);
		t->wait.word = NULL;
		break;
	case PI_PROXY_LOCK:
		/* on behalf of the first futex's top waiter, on the second futex's word */
		w = t->call.word2;
		top = futexq_pi_top(ts, t);
		t->call.proxy_woken = 0; /* waiters it woke, for the caller (the walk counts the rest) */
		if (top == FUTEX_CHAIN_END)
			break;
		if (w->value & FUTEX_TID_MASK) {
			w->value |= FUTEX_WAITERS_BIT;
			break;
		}
		w->value = FUTEX_WAITERS_BIT | pi_tid(&ts->v[top]);
		/* the top waiter is queued on t->target's chain: its own wait table and bucket */
		chain_remove(ts, &ts->v[top]);
		if (t->target.table->waiters[t->target.bucket])
			t->target.table->waiters[t->target.bucket]--;
		futex_wake_task(ts, &ts->v[top], t);
		t->call.proxy_woken = 1;
		break;
	}
	t->pc++;
	task_set_state(t, TS_RUN);
}

void futexq_walk_start(struct task *t)
{
	t->walk.prev = FUTEX_CHAIN_END;
	t->walk.cur = t->target.table->chain_head[t->target.bucket];
	t->walk.woken = t->walk.moved = 0;
	t->walk.stage = t->walk.cur == FUTEX_CHAIN_END ? WS_DONE : WS_READ;
}

/* The line the current stage accesses and how, or false when the stage has none. */
static bool walk_line(const struct tasks *ts, const struct task *t, uint32_t *line, enum access_kind *kind)
{
	switch (t->walk.stage) {
	case WS_READ:
		*line = ts->v[t->walk.cur].wait.q_line;
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
		*line = futex_table_line(t->call.target2.table, t->call.target2.bucket, BF_CHAIN);
		*kind = ACCESS_WRITE;
		return true;
	case WS_INC2:
		*line = futex_table_line(t->call.target2.table, t->call.target2.bucket, BF_WAITERS);
		*kind = ACCESS_RMW;
		return *line != COH_NONE;
	default:
		return false;
	}
}

/* What happens once the current stage's access is done. */
void futexq_walk_access_done(struct tasks *ts, struct task *t)
{
	const struct uop *u = &t->prog[t->pc];
	bool requeue = u->requeue != 0;
	struct task *w;

	task_set_state(t, TS_RUN);
	switch (t->walk.stage) {
	case WS_READ:
		w = &ts->v[t->walk.cur];
		/* futex_match and the list step cost local work for every entry: the
		 * next access is not back-to-back with this read */
		t->clock += work_time(ts, t, u->work_ps);
		t->burst_line = COH_NONE;
		t->stats.chain_walked++;
		if (w->wait.word == t->call.word) {
			t->walk.taken = t->walk.cur;
			t->walk.stage = WS_UNLINK;
		} else {
			t->walk.prev = t->walk.cur;
			t->walk.cur = w->wait.chain_next;
		}
		break;
	case WS_UNLINK:
		w = &ts->v[t->walk.taken];
		t->walk.cur = w->wait.chain_next;
		chain_unlink(ts, w, t->walk.prev);
		t->walk.stage = WS_DEC;
		break;
	case WS_DEC:
		if (t->target.table->waiters[t->target.bucket])
			t->target.table->waiters[t->target.bucket]--;
		if (t->walk.woken < t->call.nwake) {
			futex_wake_task(ts, &ts->v[t->walk.taken], t);
			t->walk.woken++;
			t->walk.stage = WS_READ;
		} else {
			t->walk.stage = WS_LINK2;
		}
		break;
	case WS_LINK2:
		w = &ts->v[t->walk.taken];
		chain_append(ts, w, t->call.target2.table, t->call.target2.bucket);
		w->wait.word = t->call.word2;
		t->walk.stage = WS_INC2;
		break;
	case WS_INC2:
		t->call.target2.table->waiters[t->call.target2.bucket]++;
		t->walk.moved++;
		t->stats.requeued++;
		t->walk.stage = WS_READ;
		break;
	default:
		break;
	}
	/* stop at the chain's end or when there is nothing left to take */
	if (t->walk.stage == WS_READ &&
	    (t->walk.cur == FUTEX_CHAIN_END ||
	     (t->walk.woken >= t->call.nwake && (!requeue || t->walk.moved >= t->call.nrequeue))))
		t->walk.stage = WS_DONE;
}

/* Runs the walk until it waits for a line or ends (then the micro-op is done). */
bool futexq_walk_run(struct tasks *ts, struct task *t)
{
	for (;;) {
		uint32_t line;
		enum access_kind kind;

		if (t->walk.stage == WS_DONE) {
			t->walk.stage = WS_START;
			t->pc++;
			return true;
		}
		if (walk_line(ts, t, &line, &kind) && !line_access(ts, t, line, kind, TS_WALK_ACCESS))
			return false;
		futexq_walk_access_done(ts, t);
	}
}

void futexq_enqueue(struct tasks *ts, struct task *t)
{
	chain_append(ts, t, t->target.table, t->target.bucket);
	t->wait.word = t->call.word;
}
