/* SPDX-License-Identifier: MIT */
/* CPUs and their run queues: which task runs on each CPU, who waits for it.
 *
 * A CPU runs one task at a time; the others wait in its FIFO run queue. The
 * running task gives the CPU up when it sleeps or, at the end of an op, when it
 * has run for timeslice_ps and others wait; the next one gets it after
 * context_switch_ps, or the CPU idles. A woken task runs wakeup_latency_ps after
 * its waker. Background tasks run beside the CPU's tasks and never queue.
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
/* Wakes a sleeping task wakeup_latency_ps from now (the engine's wake event). */
void task_wake(struct tasks *ts, struct task *t);

#endif
