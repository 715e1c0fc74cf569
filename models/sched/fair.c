/* SPDX-License-Identifier: MIT */
#include "models/sched/fair.h"

#include <stddef.h>

const char *const fair_policy_names[] = { "fifo", "eevdf", NULL };

simtime_t fair_base_slice(simtime_t base, uint32_t ncpus)
{
	uint32_t n = ncpus < 8 ? ncpus : 8, log = 0;

	while (n > 1) {
		n >>= 1;
		log++;
	}
	return base * (1 + log);
}

int64_t fair_avg(const struct fair_rq *rq)
{
	int64_t q;

	if (rq->nr == 0)
		return 0;
	q = rq->sum / (int64_t)rq->nr;
	return q * (int64_t)rq->nr > rq->sum ? q - 1 : q; /* floor, for negative sums too */
}

bool fair_eligible(const struct fair_rq *rq, const struct fair_entity *e)
{
	return e->vruntime * (int64_t)rq->nr <= rq->sum;
}

void fair_account(struct fair_rq *rq, struct fair_entity *curr, simtime_t ran)
{
	curr->vruntime += (int64_t)ran;
	rq->sum += (int64_t)ran;
}

void fair_enqueue(const struct fair_params *p, struct fair_rq *rq, struct fair_entity *e, bool initial)
{
	int64_t avg = fair_avg(rq), lag = initial ? 0 : e->vlag, vslice = (int64_t)p->slice;

	if (p->policy == FAIR_EEVDF && rq->nr > 0)
		lag = lag * (int64_t)(rq->nr + 1) / (int64_t)rq->nr; /* place_entity: the lag survives its own arrival */
	else if (p->policy != FAIR_EEVDF)
		lag = 0;
	e->vruntime = avg - lag;
	if (initial)
		vslice /= 2; /* PLACE_DEADLINE_INITIAL */
	e->deadline = e->vruntime + vslice;
	e->protect = false;
	rq->sum += e->vruntime;
	rq->nr++;
}

void fair_dequeue(const struct fair_params *p, struct fair_rq *rq, struct fair_entity *e)
{
	int64_t limit = 2 * (int64_t)p->slice > (int64_t)p->tick ? 2 * (int64_t)p->slice : (int64_t)p->tick;
	int64_t lag = fair_avg(rq) - e->vruntime;

	if (lag > limit)
		lag = limit;
	if (lag < -limit)
		lag = -limit;
	if (p->delay_dequeue && lag < 0)
		lag = 0; /* worked off on the queue, then DELAY_ZERO */
	e->vlag = lag;
	rq->sum -= e->vruntime;
	rq->nr--;
}

void fair_picked(struct fair_entity *e, simtime_t now)
{
	e->protect = true;
	e->picked_at = now;
}

bool fair_slice_over(const struct fair_params *p, struct fair_entity *curr, simtime_t now)
{
	simtime_t passed, seen;

	if (p->policy == FAIR_FIFO)
		return now - curr->picked_at >= p->slice;
	if (curr->vruntime < curr->deadline)
		return false;
	/* v passed its deadline (v - deadline) ago, at real time `passed` */
	passed = now - (simtime_t)(curr->vruntime - curr->deadline);
	seen = (passed + p->tick - 1) / p->tick * p->tick;
	if (now < seen)
		return false;
	curr->deadline = curr->vruntime + (int64_t)p->slice;
	curr->protect = false;
	return true;
}

/* eevdf's order: eligible before not, then the earlier deadline (or, when neither
 * is eligible, the smaller v); ties keep the first seen. */
static bool eevdf_before(const struct fair_rq *rq, const struct fair_entity *a, const struct fair_entity *b)
{
	bool ea = fair_eligible(rq, a), eb = fair_eligible(rq, b);

	if (ea != eb)
		return ea;
	return ea ? a->deadline < b->deadline : a->vruntime < b->vruntime;
}

const struct fair_entity *fair_pick(const struct fair_params *p, const struct fair_rq *rq,
				    const struct fair_entity *curr, fair_next_fn next, const void *ctx)
{
	const struct fair_entity *best, *e;

	if (p->policy == FAIR_FIFO) {
		e = next(ctx, NULL);
		return e ? e : curr;
	}
	if (curr && p->run_to_parity && curr->protect && fair_eligible(rq, curr))
		return curr;
	best = curr && fair_eligible(rq, curr) ? curr : NULL;
	for (e = next(ctx, NULL); e; e = next(ctx, e))
		if (!best || eevdf_before(rq, e, best))
			best = e;
	if (!best)
		best = curr;
	return best;
}

bool fair_wakeup_preempts(const struct fair_params *p, const struct fair_rq *rq, const struct fair_entity *curr,
			  const struct fair_entity *w, fair_next_fn next, const void *ctx)
{
	if (p->policy == FAIR_FIFO)
		return false;
	return fair_pick(p, rq, curr, next, ctx) == w;
}
