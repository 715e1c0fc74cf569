/* SPDX-License-Identifier: MIT */
#include "models/sched/idle.h"

void idle_record(struct idle_history *h, simtime_t slept)
{
	h->interval[h->next] = slept;
	h->next = (h->next + 1) % IDLE_HISTORY;
	if (h->n < IDLE_HISTORY)
		h->n++;
}

/* An interval in ns, at most 1 s (the kernel keeps them in us as unsigned ints;
 * the cap keeps the variance's squares inside 64 bits, and no state's residency
 * is near it). */
static uint64_t interval_ns(const struct idle_history *h, uint32_t i)
{
	uint64_t v = h->interval[i] / 1000u;

	return v < 1000000000ull ? v : 1000000000ull;
}

/* menu's get_typical_interval: the mean and variance of the recorded intervals
 * below a threshold (initially none excluded); the mean is the prediction when
 * the spread is small (variance <= 400 us^2, or mean^2 > 36 x variance with at
 * least 3/4 of them counted), else the largest (all equal to it) are dropped and
 * it tries again while more than 3/4 remain.
 * Integer arithmetic in ns, as the kernel's in us. */
simtime_t idle_typical_interval(const struct idle_history *h)
{
	uint64_t threshold = UINT64_MAX;

	/* the history starts as 8 intervals of 0 (the governor's per-CPU data is zeroed
	 * when the device is enabled): a CPU predicts short idles until it has idled */
	for (;;) {
		uint64_t sum = 0, max = 0, variance = 0, avg;
		uint32_t divisor = 0;

		for (uint32_t i = 0; i < IDLE_HISTORY; i++) {
			uint64_t v = interval_ns(h, i);

			if (v <= threshold) {
				sum += v;
				divisor++;
				if (v > max)
					max = v;
			}
		}
		if (divisor == 0)
			return SIMTIME_MAX;
		avg = sum / divisor;
		for (uint32_t i = 0; i < IDLE_HISTORY; i++) {
			uint64_t v = interval_ns(h, i);

			if (v <= threshold) {
				int64_t d = (int64_t)v - (int64_t)avg;

				variance += (uint64_t)(d * d);
			}
		}
		variance /= divisor;
		/* 400 us^2 = 4e8 ns^2 */
		if (variance <= 400000000ull ||
		    (avg <= UINT32_MAX && avg * avg > 36ull * variance && divisor * 4 >= IDLE_HISTORY * 3))
			return (simtime_t)avg * 1000u;
		if (divisor * 4 <= IDLE_HISTORY * 3)
			return SIMTIME_MAX;
		threshold = max - 1;
	}
}

uint32_t idle_deepest_fitting(const struct machine_sched *s, simtime_t predicted)
{
	uint32_t pick = 0;

	for (uint32_t i = 1; i < s->nidle; i++)
		if (s->idle[i].target_residency_ps <= predicted)
			pick = i;
	return pick;
}

simtime_t idle_wake_cost(const struct machine_sched *s, uint32_t state, bool remote)
{
	const struct idle_state *st = &s->idle[state];

	return (remote && !st->polls ? s->ipi_ps : 0) + st->exit_latency_ps;
}

static uint32_t menu_state_at_wake(const struct machine_sched *s, const struct idle_history *h, simtime_t idle_for)
{
	(void)idle_for; /* chosen when the CPU went idle */
	return idle_deepest_fitting(s, idle_typical_interval(h));
}

static uint32_t haltpoll_state_at_wake(const struct machine_sched *s, const struct idle_history *h, simtime_t idle_for)
{
	(void)h;
	return idle_for < s->halt_poll_ps ? 0 : s->nidle - 1;
}

const struct idle_governor idle_governors[IDLE_GOV_NKINDS] = {
	[IDLE_GOV_MENU] = { "menu", menu_state_at_wake },
	[IDLE_GOV_HALTPOLL] = { "haltpoll", haltpoll_state_at_wake },
};
