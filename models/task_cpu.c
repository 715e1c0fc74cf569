/* SPDX-License-Identifier: MIT */
#include "models/task_cpu.h"

#include "models/task_lock.h"

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
}

/* Task `t` gets its CPU at `at` (or at its own clock, if later) and runs from there. */
static void cpu_dispatch(struct tasks *ts, struct task *t, simtime_t at)
{
	ts->cpu_current[t->cpu] = t->id;
	if (t->clock < at)
		t->clock = at;
	t->sched.slice_start = t->clock;
	t->burst_line = COH_NONE;
	ts->hint[t->id].line = COH_NONE;
	task_set_state(t, TS_RUN);
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
	ts->runq_head[cpu] = n->sched.runq_next;
	if (ts->runq_head[cpu] == TASK_NONE)
		ts->runq_tail[cpu] = TASK_NONE;
	n->sched.runq_next = TASK_NONE;
	n->stats.switches_in++;
	cpu_dispatch(ts, n, at + ts->context_switch_ps);
}

/* A runnable task (started or woken) takes its idle CPU or queues for it. */
void cpu_enter(struct tasks *ts, struct task *t, simtime_t at)
{
	t->clock = at;
	if (t->background) {
		task_set_state(t, TS_RUN);
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
	t->lock_stage = LS_CMPXCHG; /* no lock micro-op under way */
	task_account_start(ts, t, at); /* its time counts from its start (models/task.h: time_ps) */
	cpu_enter(ts, t, at);
}

void task_stop(struct tasks *ts, struct task *t)
{
	if (!t->background && ts->cpu_current[t->cpu] == t->id)
		cpu_release(ts, t->cpu, t->clock);
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
		cpu_release(ts, t->cpu, t->clock);
	if (ts->slept)
		ts->slept(ts->slept_ctx, t);
}

/* At the end of an op: a task that has used its slice lets the next runnable one run. */
bool task_preempted(struct tasks *ts, struct task *t)
{
	if (t->background || ts->runq_head[t->cpu] == TASK_NONE || t->clock - t->sched.slice_start < ts->timeslice_ps)
		return false;
	cpu_release(ts, t->cpu, t->clock);
	runq_push(ts, t);
	return true;
}

void task_wake(struct tasks *ts, struct task *t)
{
	engine_schedule(ts->eng, ts->eng->now + ts->wakeup_latency_ps, ts->wake_kind, t->id);
}
