/* SPDX-License-Identifier: MIT */
#include "models/rtlock.h"

#include <stdlib.h>

bool rtlock_try_fast(struct spinlocks *s, uint32_t lock, uint32_t r)
{
	struct spinlock *l = &s->locks[lock];

	if (l->holder != SPIN_NONE || l->qhead != SPIN_NONE)
		return false;
	l->holder = r;
	l->acquisitions++;
	return true;
}

bool rtlock_try_take(struct spinlocks *s, uint32_t lock, uint32_t r, bool queued, simtime_t now)
{
	struct spinlock *l = &s->locks[lock];

	if (l->holder != SPIN_NONE)
		return false;
	if (queued && l->qhead != r)
		abort(); /* only the top waiter is woken to retry: anything else is a model bug */
	l->holder = r;
	l->acquisitions++;
	if (queued) {
		l->contended++;
		l->wait_ps += now - s->queued_at[r];
		l->qhead = s->next[r];
		if (l->qhead == SPIN_NONE)
			l->qtail = SPIN_NONE;
	}
	return true;
}

void rtlock_enqueue(struct spinlocks *s, uint32_t lock, uint32_t r, simtime_t now)
{
	spinlock_enqueue(s, &s->locks[lock], r, now);
}

uint32_t rtlock_release(struct spinlocks *s, uint32_t lock, uint32_t r)
{
	struct spinlock *l = &s->locks[lock];

	if (l->holder != r)
		abort(); /* only the owner unlocks; anything else is a model bug */
	l->holder = SPIN_NONE;
	return l->qhead;
}
