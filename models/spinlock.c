/* SPDX-License-Identifier: MIT */
#include "models/spinlock.h"

#include "sim/core/bytes.h"
#include "sim/core/hugemem.h"

#include <stdlib.h>
#include <string.h>

int spinlocks_init(struct spinlocks *s, uint32_t nrequesters)
{
	memset(s, 0, sizeof(*s));
	s->next = calloc(nrequesters ? nrequesters : 1, sizeof(*s->next));
	s->queued_at = calloc(nrequesters ? nrequesters : 1, sizeof(*s->queued_at));
	if (!s->next || !s->queued_at) {
		spinlocks_free(s);
		return -1;
	}
	return 0;
}

void spinlocks_free(struct spinlocks *s)
{
	free(s->locks);
	free(s->next);
	free(s->queued_at);
	memset(s, 0, sizeof(*s));
}

uint32_t spinlock_add(struct spinlocks *s)
{
	if (s->n == s->cap) {
		uint32_t cap = s->cap ? s->cap * 2 : 1024;
		struct spinlock *l;

		if (cap < s->cap || cap >= SPIN_NONE)
			return SPIN_NONE;
		/* huge pages: the hot path reads locks at random across big tables */
		l = huge_realloc(s->locks, (size_t)s->n * sizeof(*l), _Alignof(struct spinlock),
				 (size_t)cap * sizeof(*l));
		if (!l)
			return SPIN_NONE;
		s->locks = l;
		s->cap = cap;
	}
	s->locks[s->n] = (struct spinlock){
		.holder = SPIN_NONE, .pending = SPIN_NONE, .qhead = SPIN_NONE, .qtail = SPIN_NONE
	};
	return s->n++;
}

void spinlock_enqueue(struct spinlocks *s, struct spinlock *l, uint32_t r, simtime_t now)
{
	s->next[r] = SPIN_NONE;
	s->queued_at[r] = now;
	if (l->qtail == SPIN_NONE)
		l->qhead = r;
	else
		s->next[l->qtail] = r;
	l->qtail = r;
}

/* Takes the lock for r if it is free with nobody waiting. */
static bool take_if_free(struct spinlock *l, uint32_t r)
{
	if (l->holder != SPIN_NONE || l->pending != SPIN_NONE || l->qhead != SPIN_NONE)
		return false;
	l->holder = r;
	l->acquisitions++;
	return true;
}

enum spin_try spinlock_try(struct spinlocks *s, uint32_t lock, uint32_t r, simtime_t now)
{
	struct spinlock *l = &s->locks[lock];

	if (take_if_free(l, r))
		return SPIN_ACQUIRED;
	if (l->pending != SPIN_NONE || l->qhead != SPIN_NONE)
		return SPIN_QUEUE;
	/* held, nobody waiting: set the pending bit */
	l->pending = r;
	s->queued_at[r] = now;
	return SPIN_HEAD;
}

enum spin_try spinlock_join(struct spinlocks *s, uint32_t lock, uint32_t r, simtime_t now, uint32_t *prev)
{
	struct spinlock *l = &s->locks[lock];

	*prev = l->qtail;
	if (take_if_free(l, r))
		return SPIN_ACQUIRED;
	spinlock_enqueue(s, l, r, now);
	return *prev == SPIN_NONE ? SPIN_HEAD : SPIN_QUEUE;
}

uint32_t spinlock_take(struct spinlocks *s, uint32_t lock, uint32_t r, simtime_t now)
{
	struct spinlock *l = &s->locks[lock];

	/* only a spinner takes a lock it saw free; anything else is a model bug */
	if (!spinlock_free_for(s, lock, r) || (l->pending != r && l->qhead != r))
		abort();
	l->holder = r;
	l->acquisitions++;
	l->contended++;
	l->wait_ps += now - s->queued_at[r];
	if (l->pending == r) {
		/* clear pending, set locked: the queue, if any, waits on */
		l->pending = SPIN_NONE;
		return SPIN_NONE;
	}
	l->qhead = s->next[r];
	if (l->qhead == SPIN_NONE)
		l->qtail = SPIN_NONE;
	return l->qhead;
}

void spinlock_release(struct spinlocks *s, uint32_t lock, uint32_t r)
{
	struct spinlock *l = &s->locks[lock];

	if (l->holder != r)
		abort();
	l->holder = SPIN_NONE;
}

void spinlocks_reset_stats(struct spinlocks *s)
{
	for (uint32_t i = 0; i < s->n; i++) {
		s->locks[i].acquisitions = 0;
		s->locks[i].contended = 0;
		s->locks[i].wait_ps = 0;
	}
}

uint64_t spinlocks_bytes(uint64_t nlocks)
{
	return bytes_mul(bytes_doubled(nlocks, 1024), sizeof(struct spinlock));
}
