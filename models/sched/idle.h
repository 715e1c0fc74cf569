/* SPDX-License-Identifier: MIT */
/* A CPU's idle: which cpuidle state it rests in, and what leaving it costs.
 *
 * When a CPU runs out of tasks the idle governor picks one of the machine's
 * states (machine.sched.idle_states, shallowest first); a wake-up of the CPU pays
 * that state's exit latency, and an IPI unless the state polls its need-resched
 * flag. Two governors, selected by the machine's `sched.governor`:
 *  - menu (drivers/cpuidle/governors/menu.c): predicts the idle time from the CPU's
 *    last 8 idle intervals (get_typical_interval: their mean when they agree, the
 *    largest dropped as outliers until they do), and picks the deepest state whose
 *    target residency fits the prediction; with no such pattern, the deepest state
 *    (no timer is modelled: a tickless idle CPU's next event is far away). The
 *    history starts as 8 intervals of 0, so a CPU predicts short idles at first.
 *  - haltpoll (drivers/cpuidle/governors/haltpoll.c, a KVM guest's): polls for
 *    `sched.halt_poll` after the CPU goes idle, then halts in the deepest state.
 *    Its adaptive window (grown and shrunk by guest_halt_poll_grow/shrink) is held
 *    at its maximum [A].
 * Pure functions over a small per-CPU record, so hand-worked sequences test them.
 */
#ifndef FUTEXSIM_SCHED_IDLE_H
#define FUTEXSIM_SCHED_IDLE_H

#include <stdint.h>

#include "models/machine.h"

#define IDLE_HISTORY 8u /* menu's INTERVALS */

/* What a CPU's governor remembers of its idle periods; zeroed at the start, as the
 * kernel's: 8 intervals of 0. */
struct idle_history {
	simtime_t interval[IDLE_HISTORY]; /* the last idle periods, oldest overwritten */
	uint32_t n, next;                 /* how many are recorded; where the next goes */
};

struct idle_governor {
	const char *name;
	/* The state (index into s->idle) a CPU idle since `idle_for` ago is in when a
	 * wake-up reaches it, given its history of earlier idle periods. */
	uint32_t (*state_at_wake)(const struct machine_sched *s, const struct idle_history *h, simtime_t idle_for);
};

/* Indexed by enum idle_governor_kind (the machine's sched.governor, by name). */
extern const struct idle_governor idle_governors[IDLE_GOV_NKINDS];

/* menu's prediction from the history: SIMTIME_MAX when there is no pattern. */
simtime_t idle_typical_interval(const struct idle_history *h);
/* The deepest state whose target residency is at most `predicted` (state 0 if none). */
uint32_t idle_deepest_fitting(const struct machine_sched *s, simtime_t predicted);
/* Records an idle period that a wake-up ended. */
void idle_record(struct idle_history *h, simtime_t slept);
/* What a wake-up of a CPU in state `state` costs before the CPU runs again:
 * the IPI unless the state polls (and the waker is another CPU), plus its exit. */
simtime_t idle_wake_cost(const struct machine_sched *s, uint32_t state, bool remote);

#endif
