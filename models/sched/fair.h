/* SPDX-License-Identifier: MIT */
/* The fair class's decisions on one CPU's run queue: where a woken or new task is
 * placed, which queued task runs next, whether a woken task preempts the running
 * one, and when a running task's slice is over. Policies by kernel version,
 * selected by name from the kernel design's `scheduler.policy`:
 *
 *  - eevdf (6.6 and later; kernel/sched/fair.c, commits 147f3efaa241 and
 *    5e963f2bd465): every task has a virtual runtime v (nice 0 only: v advances
 *    with the time run) and a virtual deadline d = v + slice set when it is picked
 *    or its slice runs out. The queue's average V counts the running task. A task
 *    is eligible when v <= V (its lag V - v >= 0). The pick is the eligible task
 *    with the earliest deadline; with RUN_TO_PARITY (tip 63304558ba5d) the running
 *    task keeps the CPU while it is eligible and inside the slice it was picked
 *    with. A woken task preempts iff it is the pick (wakeup_preempt). A sleeper
 *    keeps its lag, clamped to +-max(2 slices, a tick), and is placed at
 *    V - lag x (n + 1) / n (PLACE_LAG); a new task at V with half a slice to its
 *    deadline (PLACE_DEADLINE_INITIAL). With DELAY_DEQUEUE (6.12, DELAY_ZERO) a
 *    sleeper's negative lag is worked off before it leaves the queue: it wakes
 *    with lag max(lag, 0) [the time it spends delayed on the queue is not
 *    modelled]. A slice's end is seen only at a tick (HZ): update_curr runs then.
 *    PREEMPT_SHORT (6.12) and the 6.17 clamp of the protected run act only on
 *    tasks with different slices: every modelled task has the default one.
 *  - fifo (the model before it knew EEVDF; for the pre-CFS and CFS presets, whose
 *    wake-up rules are not modelled [A]): a woken task queues at the tail and
 *    never preempts; a task gives up its CPU at an op's end once it has run a
 *    slice with others queued.
 *
 * Pure functions of the entities and the queue's sums (struct fair_rq), so a
 * hand-worked sequence tests each rule.
 */
#ifndef FUTEXSIM_SCHED_FAIR_H
#define FUTEXSIM_SCHED_FAIR_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/core/simtime.h"

enum fair_policy_kind { FAIR_FIFO, FAIR_EEVDF, FAIR_NPOLICIES };
extern const char *const fair_policy_names[]; /* "fifo", "eevdf" */

/* A kernel's scheduler (its `scheduler:` block, docs/kernel.md). */
struct fair_params {
	enum fair_policy_kind policy;
	simtime_t slice;       /* the base slice, already scaled by the CPUs (fair_base_slice) */
	simtime_t tick;        /* 1 / HZ */
	bool run_to_parity;
	bool delay_dequeue;
};

/* A task's place in its CPU's fair queue (signed: lags are). */
struct fair_entity {
	int64_t vruntime, deadline;
	int64_t vlag;          /* V - v when it left the queue (slept) */
	bool protect;          /* RUN_TO_PARITY: picked, its slice not yet over */
	simtime_t picked_at;   /* when it last got the CPU (fifo's slice) */
};

/* A CPU's queue, its running task included: sum of v and count (nice 0: weights equal). */
struct fair_rq {
	int64_t sum;
	uint32_t nr;
};

/* 0.75 ms x (1 + ilog2(min(ncpus, 8))): sysctl_sched_base_slice under the default
 * logarithmic tunable scaling (e4ec3318a17f); `base` the unscaled 0.75 ms. */
simtime_t fair_base_slice(simtime_t base, uint32_t ncpus);

/* Whether e is eligible on rq (v <= V, exact: v x n <= sum). */
bool fair_eligible(const struct fair_rq *rq, const struct fair_entity *e);
/* V, rounded down (0 for an empty queue). */
int64_t fair_avg(const struct fair_rq *rq);

/* The running task ran `ran` more: its v (and the queue's sum) advance. */
void fair_account(struct fair_rq *rq, struct fair_entity *curr, simtime_t ran);
/* A task joins the queue: woken (initial false) or new (true). */
void fair_enqueue(const struct fair_params *p, struct fair_rq *rq, struct fair_entity *e, bool initial);
/* A task leaves it to sleep (its lag kept, as the policy keeps it). */
void fair_dequeue(const struct fair_params *p, struct fair_rq *rq, struct fair_entity *e);
/* A task gets the CPU at `now` (set_next_entity): RUN_TO_PARITY protects its slice. */
void fair_picked(struct fair_entity *e, simtime_t now);
/* At an op's end at time `now`, the running task (its v accounted to now): whether
 * its slice was seen to end. eevdf: at the first tick at or after the moment v
 * passed its deadline, `now` past that tick; then its deadline moves on a slice
 * (update_deadline) and its protection ends. fifo: it has run a slice since picked. */
bool fair_slice_over(const struct fair_params *p, struct fair_entity *curr, simtime_t now);
/* The queued tasks, in queue order: the first (prev NULL) or the one after prev; NULL at the end. */
typedef const struct fair_entity *(*fair_next_fn)(const void *ctx, const struct fair_entity *prev);
/* The next to run (pick_next_entity) among the running task `curr` (NULL: none,
 * or it is leaving) and the queued ones: eevdf's pick, above; fifo's the first
 * queued, or curr when none is. NULL when there is nothing to run. */
const struct fair_entity *fair_pick(const struct fair_params *p, const struct fair_rq *rq,
				    const struct fair_entity *curr, fair_next_fn next, const void *ctx);
/* Whether a woken task `w`, just enqueued, preempts `curr` (wakeup_preempt):
 * eevdf: w is the pick; fifo: never. */
bool fair_wakeup_preempts(const struct fair_params *p, const struct fair_rq *rq, const struct fair_entity *curr,
			  const struct fair_entity *w, fair_next_fn next, const void *ctx);

#endif
