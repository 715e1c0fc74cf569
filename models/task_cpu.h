/* SPDX-License-Identifier: MIT */
/* CPUs and their run queues: which task runs on each CPU, who waits for it.
 *
 * A CPU runs one task at a time; the others wait in its run queue, and the kernel's
 * fair class (models/sched/fair.h) decides who runs next. The running task gives
 * the CPU up when it sleeps or, at the end of an op, when its slice was seen to
 * end or a woken task preempted it; the pick gets the CPU after the machine's
 * sched.context_switch, or the CPU idles (models/sched/idle.h).
 *
 * A wake-up (try_to_wake_up) goes in two steps. task_wake, at the waker's time:
 * a task allowed on several CPUs gets one (models/sched/select.h); an idle CPU is
 * reserved for it and pays its idle state's exit (and an IPI unless it polls) and
 * sched.wake_to_run; a busy CPU of another LLC is told by IPI. task_wake_landed,
 * when that is done: the task runs on its reserved CPU, or joins the busy CPU's
 * queue, where the fair class decides whether it preempts the running task (which
 * then switches at its next op's end, an IPI later if the waker shares its LLC).
 * Background tasks run beside the CPU's tasks and never queue.
 * Part of the task executor (models/task.h); used by its other parts only.
 */
#ifndef FUTEXSIM_TASK_CPU_H
#define FUTEXSIM_TASK_CPU_H

#include <stdbool.h>

#include "models/task.h"

/* A runnable task (started or woken) takes its idle CPU at `at` or queues for it. */
void cpu_enter(struct tasks *ts, struct task *t, simtime_t at);
/* A task leaves its CPU until woken (TS_SLEEP, asleep since its clock). */
void task_sleep(struct tasks *ts, struct task *t);
/* At the end of an op: a task that has used its slice queues behind the next
 * runnable one, which gets the CPU. True when it was preempted so. */
bool task_preempted(struct tasks *ts, struct task *t);
/* Wakes a sleeping task: `waker` is the task waking it (NULL: its own timer).
 * The engine's wake event follows when the wake-up has reached its CPU. */
void task_wake(struct tasks *ts, struct task *t, struct task *waker);
/* A sleeper a futex walk woke under its bucket lock goes on the waker's wake_q;
 * task_wake_q_flush wakes them in order once the waker holds no bucket lock, each
 * costing the waker the machine's sched.wake_up. */
void task_wake_q_add(struct tasks *ts, struct task *waker, struct task *t);
void task_wake_q_flush(struct tasks *ts, struct task *waker);
/* The wake event: the woken task runs on its reserved CPU or queues (on_wake's). */
void task_wake_landed(struct tasks *ts, struct task *t);
/* PREEMPT_RT: whether a holder's slice ended inside its spinlock_t section, with
 * another task waiting for its CPU (it is preempted before the unlock). */
bool task_slice_ended_in_section(const struct tasks *ts, const struct task *t);

#endif
