/* SPDX-License-Identifier: MIT */
/* Where a woken task runs: select_task_rq_fair (kernel/sched/fair.c) for a task
 * allowed on more than one CPU.
 *
 *  1. wake_wide: a waker that keeps waking different tasks (its wakee_flips, and
 *     the wakee's, against the LLC's size) is not pulled towards: no wake affine.
 *  2. wake_affine (want_affine: not wide, the waker's CPU allowed): wake_affine_idle
 *     (the previous CPU when it is idle; the waker's CPU on a sync wake-up with
 *     only the waker running), else wake_affine_weight, here by the two CPUs' run
 *     queue lengths [A: the kernel compares their loads].
 *  3. select_idle_sibling(prev, target): the target if idle; the previous CPU if
 *     idle and sharing the target's LLC; the task's recent_used_cpu likewise; then
 *     the LLC scanned from target + 1, wrapping: the first CPU of a wholly idle core
 *     when there is one, else the first idle CPU; else the target. SIS_UTIL's bound
 *     on the scan is not modelled (the whole LLC is scanned) [A].
 * The LLC is the CPU's cluster (machine.cores_per_cluster: a node on Intel, a CCX
 * on AMD). "Idle" is the caller's: no task running or queued, none about to run.
 */
#ifndef FUTEXSIM_SCHED_SELECT_H
#define FUTEXSIM_SCHED_SELECT_H

#include <stdbool.h>
#include <stdint.h>

#include "models/machine.h"

/* The CPUs a task may run on, as a bitmap over machine CPU numbers. */
struct cpu_mask {
	uint64_t bits[MACHINE_MAX_CPUS / 64];
};
static inline bool cpu_mask_has(const struct cpu_mask *m, uint32_t cpu)
{
	return (m->bits[cpu / 64] >> (cpu % 64)) & 1u;
}
static inline void cpu_mask_set(struct cpu_mask *m, uint32_t cpu)
{
	m->bits[cpu / 64] |= (uint64_t)1 << (cpu % 64);
}

/* The machine's CPUs as the selection sees them (the executor's run queues). */
struct cpu_view {
	bool (*idle)(const void *ctx, uint32_t cpu);      /* nothing running, queued or waking */
	uint32_t (*nr_running)(const void *ctx, uint32_t cpu); /* running + queued */
	const void *ctx;
};

/* What a waker remembers of whom it woke (record_wakee). */
struct wakee_record {
	uint32_t last_wakee;
	uint32_t flips;
	simtime_t decay_at;      /* flips halve once a second */
	uint32_t recent_used_cpu; /* its CPU when it last woke a task affine (UINT32_MAX: none) */
};

/* The waker `waker` (its record; NULL for a timer) woke task `wakee` (its record).
 * Updates the waker's flips (record_wakee) at `now`. */
void wakee_record_wake(struct wakee_record *waker, uint32_t wakee, simtime_t now);
/* wake_wide: whether the pair is too fan-out to pull the wakee to the waker. */
bool wake_wide(const struct wakee_record *waker, const struct wakee_record *wakee, uint32_t llc_size);

struct wake_request {
	const struct cpu_mask *allowed; /* the wakee's affinity */
	uint32_t prev;                  /* the CPU it last ran on */
	uint32_t waker_cpu;             /* the waking CPU (prev for a timer's wake-up) */
	bool want_affine;               /* !wake_wide and the waker's CPU allowed; false for a timer */
	bool sync;                      /* WF_SYNC: the waker is about to sleep */
	uint32_t recent_used_cpu;       /* the wakee's (UINT32_MAX: none) */
};

/* The CPU the wakee runs on. */
uint32_t select_task_rq(const struct machine *m, const struct cpu_view *v, const struct wake_request *r);

#endif
