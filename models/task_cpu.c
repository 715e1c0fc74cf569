/* SPDX-License-Identifier: MIT */
#include "models/task_cpu.h"

#include "models/task_lock.h"

#include <stddef.h>

/* One CPU's queue as the fair class walks it (fair_next_fn). */
struct runq_walk {
	const struct tasks *ts;
	uint32_t head;
};

static struct task *task_of_entity(const struct fair_entity *e)
{
	return (struct task *)((char *)e - offsetof(struct task, sched.fair));
}

static const struct fair_entity *runq_walk_next(const void *ctx, const struct fair_entity *prev)
{
	const struct runq_walk *w = ctx;
	uint32_t id = prev ? task_of_entity(prev)->sched.runq_next : w->head;

	return id == TASK_NONE ? NULL : &w->ts->v[id].sched.fair;
}

/* The pick among the running task `curr` (or none) and cpu's queue. */
static const struct fair_entity *cpu_pick(const struct tasks *ts, uint32_t cpu, const struct task *curr)
{
	struct runq_walk w = { ts, ts->runq_head[cpu] };

	return fair_pick(&ts->fair, &ts->rq[cpu], curr ? &curr->sched.fair : NULL, runq_walk_next, &w);
}

static void runq_push(struct tasks *ts, struct task *t)
{
	uint32_t c = t->cpu;

	task_set_state(t, TS_READY);
	t->sched.runq_next = TASK_NONE;
	if (ts->runq_tail[c] == TASK_NONE)
		ts->runq_head[c] = t->id;
	else
		ts->v[ts->runq_tail[c]].sched.runq_next = t->id;
	ts->runq_tail[c] = t->id;
	ts->runq_len[c]++;
}

static void runq_remove(struct tasks *ts, uint32_t cpu, struct task *t)
{
	uint32_t prev = TASK_NONE;

	for (uint32_t id = ts->runq_head[cpu]; id != t->id; id = ts->v[id].sched.runq_next)
		prev = id;
	if (prev == TASK_NONE)
		ts->runq_head[cpu] = t->sched.runq_next;
	else
		ts->v[prev].sched.runq_next = t->sched.runq_next;
	if (ts->runq_tail[cpu] == t->id)
		ts->runq_tail[cpu] = prev;
	t->sched.runq_next = TASK_NONE;
	ts->runq_len[cpu]--;
}

/* The running task's time since it was last accounted goes to its virtual runtime. */
static void account_curr(struct tasks *ts, struct task *t)
{
	if (t->clock > t->sched.exec_start) {
		fair_account(&ts->rq[t->cpu], &t->sched.fair, t->clock - t->sched.exec_start);
		t->sched.exec_start = t->clock;
	}
}

/* Task `t` gets its CPU at `at` (or at its own clock, if later) and runs from there. */
static void cpu_dispatch(struct tasks *ts, struct task *t, simtime_t at)
{
	ts->cpu_current[t->cpu] = t->id;
	if (t->clock < at)
		t->clock = at;
	t->sched.exec_start = t->clock;
	fair_picked(&t->sched.fair, t->clock);
	t->burst_line = COH_NONE;
	ts->hint[t->id].line = COH_NONE;
	task_set_state(t, TS_RUN);
	engine_schedule(ts->eng, t->clock, ts->resume_kind, t->id);
}

/* The CPU's task gives it up at `at`: the pick among the queued tasks gets it
 * after a context switch, or the CPU idles. */
static void cpu_release(struct tasks *ts, uint32_t cpu, simtime_t at)
{
	const struct fair_entity *e = cpu_pick(ts, cpu, NULL);
	struct task *n;

	ts->resched_at[cpu] = SIMTIME_MAX;
	if (!e) {
		ts->cpu_current[cpu] = TASK_NONE;
		ts->idle_since[cpu] = at;
		ts->core_busy[ts->m->cpu_core[cpu]]--;
		return;
	}
	n = task_of_entity(e);
	runq_remove(ts, cpu, n);
	n->stats.switches_in++;
	cpu_dispatch(ts, n, at + ts->msched->context_switch_ps);
}

/* A started task takes its idle CPU or queues for it. */
void cpu_enter(struct tasks *ts, struct task *t, simtime_t at)
{
	t->clock = at;
	if (t->background) {
		task_set_state(t, TS_RUN);
		engine_schedule(ts->eng, at, ts->resume_kind, t->id);
		return;
	}
	fair_enqueue(&ts->fair, &ts->rq[t->cpu], &t->sched.fair, true);
	if (ts->cpu_current[t->cpu] != TASK_NONE) {
		runq_push(ts, t);
		return;
	}
	ts->core_busy[t->core]++;
	cpu_dispatch(ts, t, ts->idle_since[t->cpu]);
}

void task_start(struct tasks *ts, struct task *t, simtime_t at)
{
	t->lock_stage = LS_CMPXCHG; /* no lock micro-op under way */
	task_account_start(ts, t, at); /* its time counts from its start (models/task.h: time_ps) */
	cpu_enter(ts, t, at);
}

/* The running task leaves its CPU's fair queue (it sleeps or stops). */
static void cpu_leave(struct tasks *ts, struct task *t)
{
	account_curr(ts, t);
	fair_dequeue(&ts->fair, &ts->rq[t->cpu], &t->sched.fair);
	cpu_release(ts, t->cpu, t->clock);
}

void task_stop(struct tasks *ts, struct task *t)
{
	if (!t->background && ts->cpu_current[t->cpu] == t->id)
		cpu_leave(ts, t);
	task_set_state(t, TS_IDLE);
	task_account_stop(ts, t); /* its time ends here */
}

/* Past the window's end a task stops, but keeps its CPU: the measured thread runs on
 * until the benchmark's timer fires, so a sibling still in the window works beside a
 * busy thread, whichever of the two the engine happens to handle first. */
void task_stop_at_window_end(struct task *t)
{
	task_set_state(t, TS_IDLE);
}

/* A sleeping task leaves its CPU (its sibling runs alone, or another task runs) until woken. */
void task_sleep(struct tasks *ts, struct task *t)
{
	t->burst_line = COH_NONE;
	task_set_state(t, TS_SLEEP);
	t->wait.slept_at = t->clock;
	if (!t->background)
		cpu_leave(ts, t);
	if (ts->slept)
		ts->slept(ts->slept_ctx, t);
}

/* At the end of an op: the running task gives its CPU to the pick when its slice
 * was seen to end or a woken task's preemption has reached it. */
bool task_preempted(struct tasks *ts, struct task *t)
{
	uint32_t cpu = t->cpu;
	const struct fair_entity *e;
	bool resched;

	if (t->background || ts->runq_len[cpu] == 0)
		return false;
	account_curr(ts, t);
	resched = ts->resched_at[cpu] <= t->clock;
	if (!fair_slice_over(&ts->fair, &t->sched.fair, t->clock) && !resched)
		return false;
	ts->resched_at[cpu] = SIMTIME_MAX;
	e = cpu_pick(ts, cpu, t);
	if (e == &t->sched.fair)
		return false;
	runq_push(ts, t); /* still on the fair queue: its entity stays counted */
	cpu_release(ts, cpu, t->clock);
	return true;
}

bool task_slice_ended_in_section(const struct tasks *ts, const struct task *t)
{
	simtime_t from = t->sched.fair.picked_at;

	return !t->background && ts->runq_len[t->cpu] != 0 && t->sched.lock_taken_at - from < ts->fair.slice &&
	       t->clock - from >= ts->fair.slice;
}

/* --- waking --- */

static bool cpu_idle(const void *ctx, uint32_t cpu)
{
	const struct tasks *ts = ctx;

	return ts->cpu_current[cpu] == TASK_NONE && ts->runq_len[cpu] == 0;
}

static uint32_t cpu_nr_running(const void *ctx, uint32_t cpu)
{
	const struct tasks *ts = ctx;

	return (ts->cpu_current[cpu] != TASK_NONE) + ts->runq_len[cpu];
}

/* select_task_rq for a task allowed on several CPUs; it moves there. */
static void wake_select_cpu(struct tasks *ts, struct task *t, struct task *waker, uint32_t waker_cpu)
{
	const struct machine *m = ts->m;
	const struct cpu_view view = { cpu_idle, cpu_nr_running, ts };
	struct wake_request r = {
		.allowed = t->sched.allowed, .prev = t->cpu, .waker_cpu = waker_cpu,
		.recent_used_cpu = t->sched.wakee.recent_used_cpu,
	};
	uint32_t cpu;

	r.want_affine = waker && cpu_mask_has(t->sched.allowed, waker_cpu) &&
			!wake_wide(&waker->sched.wakee, &t->sched.wakee, m->cores_per_cluster * m->threads_per_core);
	cpu = select_task_rq(m, &view, &r);
	if (r.want_affine)
		waker->sched.wakee.recent_used_cpu = waker_cpu;
	if (cpu != t->cpu) {
		t->cpu = cpu;
		t->core = m->cpu_core[cpu];
		t->node = m->cpu_node[cpu];
		t->stats.migrations++;
	}
}

void task_wake_q_add(struct tasks *ts, struct task *waker, struct task *t)
{
	if (waker->locks_held == 0) {
		task_wake(ts, t, waker);
		return;
	}
	t->wait.wake_q_next = TASK_NONE;
	if (waker->walk.wake_q == TASK_NONE)
		waker->walk.wake_q = t->id;
	else
		ts->v[waker->walk.wake_q_tail].wait.wake_q_next = t->id;
	waker->walk.wake_q_tail = t->id;
}

void task_wake_q_flush(struct tasks *ts, struct task *waker)
{
	uint32_t id = waker->walk.wake_q;

	waker->walk.wake_q = waker->walk.wake_q_tail = TASK_NONE;
	while (id != TASK_NONE) {
		struct task *t = &ts->v[id];

		id = t->wait.wake_q_next;
		task_wake(ts, t, waker);
	}
}

/* smp_send_reschedule from try_to_wake_up: the send is the waker's time (a write of
 * the APIC's ICR; in a guest without IPI virtualisation a VM exit), the IPI then
 * travels on its own (sched.ipi). The wakee's clock does not wait for the send. */
static void ipi_sent(const struct machine_sched *s, struct task *waker, bool ipi)
{
	if (ipi && waker)
		waker->clock += s->ipi_send_ps;
}

void task_wake(struct tasks *ts, struct task *t, struct task *waker)
{
	const struct machine_sched *s = ts->msched;
	simtime_t now = ts->eng->now, delay;
	uint32_t waker_cpu = waker ? waker->cpu : t->cpu, cpu;

	if (waker) {
		/* try_to_wake_up runs on the waker's CPU: it pays for it, and the wake-up
		 * leaves when it is done */
		if (waker->clock > now)
			now = waker->clock;
		now += s->wake_up_ps;
		waker->clock = now;
		wakee_record_wake(&waker->sched.wakee, t->id, now);
	}
	t->sched.waker_cpu = waker_cpu;
	if (t->background) {
		t->sched.wake_to_idle = false;
		engine_schedule(ts->eng, now + s->wake_to_run_ps, ts->wake_kind, t->id);
		return;
	}
	if (t->sched.allowed)
		wake_select_cpu(ts, t, waker, waker_cpu);
	cpu = t->cpu;
	if (cpu_idle(ts, cpu)) {
		/* the CPU leaves the state its governor chose; it is the wakee's from now */
		/* idle since its last task's clock, which may be ahead of the engine's */
		simtime_t idle_for = now > ts->idle_since[cpu] ? now - ts->idle_since[cpu] : 0;
		uint32_t state = idle_governors[s->governor].state_at_wake(s, &ts->idle_hist[cpu], idle_for);
		bool ipi = cpu != waker_cpu && !s->idle[state].polls;

		idle_record(&ts->idle_hist[cpu], idle_for);
		delay = idle_wake_cost(s, state, cpu != waker_cpu) + s->wake_to_run_ps;
		t->stats.wake_ipis += ipi;
		ipi_sent(s, waker, ipi);
		ts->cpu_current[cpu] = t->id;
		ts->core_busy[t->core]++;
		t->sched.wake_to_idle = true;
	} else {
		/* a busy CPU of another LLC is told by IPI and enqueues the wakee itself
		 * (TTWU_QUEUE); one sharing the waker's LLC is enqueued onto directly */
		bool ipi = cpu != waker_cpu && ts->m->cpu_cluster[cpu] != ts->m->cpu_cluster[waker_cpu];

		delay = ipi ? s->ipi_ps : 0;
		t->stats.wake_ipis += ipi;
		ipi_sent(s, waker, ipi);
		t->sched.wake_to_idle = false;
	}
	t->stats.wake_latency_ps += delay + (now - ts->eng->now);
	engine_schedule(ts->eng, now + delay, ts->wake_kind, t->id);
}

void task_wake_landed(struct tasks *ts, struct task *t)
{
	const struct machine_sched *s = ts->msched;
	uint32_t cpu = t->cpu, curr;
	simtime_t now = ts->eng->now;

	t->clock = now;
	if (t->background) {
		task_set_state(t, TS_RUN);
		engine_schedule(ts->eng, now, ts->resume_kind, t->id);
		return;
	}
	fair_enqueue(&ts->fair, &ts->rq[cpu], &t->sched.fair, false);
	if (t->sched.wake_to_idle) {
		/* not before the CPU's last task left it (its clock may run ahead) */
		cpu_dispatch(ts, t, ts->idle_since[cpu]);
		return;
	}
	curr = ts->cpu_current[cpu];
	if (curr == TASK_NONE) {
		/* the CPU went idle while the wake-up was on its way: it was just running */
		simtime_t at = (ts->idle_since[cpu] > now ? ts->idle_since[cpu] : now) + s->wake_to_run_ps;

		ts->core_busy[t->core]++;
		t->stats.wake_latency_ps += at - now;
		cpu_dispatch(ts, t, at);
		return;
	}
	runq_push(ts, t);
	if (ts->v[curr].state == TS_SLEEP || ts->resched_at[cpu] != SIMTIME_MAX)
		return; /* the CPU is about to run another woken task, or already told to switch */
	account_curr(ts, &ts->v[curr]);
	{
		struct runq_walk w = { ts, ts->runq_head[cpu] };

		if (fair_wakeup_preempts(&ts->fair, &ts->rq[cpu], &ts->v[curr].sched.fair, &t->sched.fair, runq_walk_next,
					 &w)) {
			/* resched_curr: another CPU sharing the LLC sends the IPI now */
			bool ipi = cpu != t->sched.waker_cpu &&
				   ts->m->cpu_cluster[cpu] == ts->m->cpu_cluster[t->sched.waker_cpu];

			ts->resched_at[cpu] = now + (ipi ? s->ipi_ps : 0);
			t->stats.wake_ipis += ipi;
			t->stats.wake_preempts++;
		}
	}
}
