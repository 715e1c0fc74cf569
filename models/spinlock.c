/* SPDX-License-Identifier: MIT */
#include "models/spinlock.h"

#include "sim/core/bytes.h"
#include "sim/core/hugemem.h"
#include "sim/core/registry.h"

#include <stdlib.h>
#include <string.h>

static uint32_t fifo_successor(struct spinlocks *s, uint32_t lock, uint32_t r);
static uint32_t cna_successor(struct spinlocks *s, uint32_t lock, uint32_t r);

const struct spin_variant spin_variants[] = {
	{ "qspinlock", "the kernel's queued spinlock: hand-offs in arrival order", false, fifo_successor },
	{ "cna", "compact NUMA-aware qspinlock (Dice and Kogan 2019; LKML v1-v15 2019-2021, not merged): "
		 "hand-offs stay on the holder's node, the others wait in a secondary queue",
	  true, cna_successor },
	{ NULL, NULL, false, NULL },
};

/* the variants without their NULL sentinel */
static const struct registry registry =
	REGISTRY(spin_variants, sizeof(spin_variants) / sizeof(spin_variants[0]) - 1, struct spin_variant, name);

const struct spin_variant *spin_variant_find(const char *name)
{
	return registry_find(&registry, name);
}

const char *const *spin_variant_names(const char *out[SPIN_MAX_VARIANTS + 1])
{
	return registry_names(&registry, out);
}

int spinlocks_init(struct spinlocks *s, uint32_t nrequesters, const struct spin_variant *variant)
{
	memset(s, 0, sizeof(*s));
	s->variant = variant ? variant : &spin_variants[0];
	s->next = calloc(nrequesters ? nrequesters : 1, sizeof(*s->next));
	s->queued_at = calloc(nrequesters ? nrequesters : 1, sizeof(*s->queued_at));
	s->node = calloc(nrequesters ? nrequesters : 1, sizeof(*s->node));
	if (!s->next || !s->queued_at || !s->node) {
		spinlocks_free(s);
		return -1;
	}
	return 0;
}

void spinlocks_free(struct spinlocks *s)
{
	free(s->locks);
	free(s->secondary);
	free(s->next);
	free(s->queued_at);
	free(s->node);
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
		if (s->variant->secondary) {
			struct cna_queue *q = realloc(s->secondary, (size_t)cap * sizeof(*q));

			if (!q)
				return SPIN_NONE;
			s->secondary = q;
		}
		s->cap = cap;
	}
	s->locks[s->n] = (struct spinlock){
		.holder = SPIN_NONE, .pending = SPIN_NONE, .qhead = SPIN_NONE, .qtail = SPIN_NONE
	};
	if (s->variant->secondary)
		s->secondary[s->n] = (struct cna_queue){ SPIN_NONE, SPIN_NONE, 0 };
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

enum spin_try spinlock_join(struct spinlocks *s, uint32_t lock, uint32_t r, simtime_t now, uint32_t node,
			    uint32_t *prev)
{
	struct spinlock *l = &s->locks[lock];

	s->node[r] = (uint16_t)node;
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
	l->qhead = s->variant->successor(s, lock, r);
	if (l->qhead == SPIN_NONE)
		l->qtail = SPIN_NONE;
	return l->qhead;
}

static uint32_t fifo_successor(struct spinlocks *s, uint32_t lock, uint32_t r)
{
	(void)lock;
	return s->next[r];
}

/* The secondary queue back in front of `next` (the rest of the main queue). */
static uint32_t cna_splice(struct spinlocks *s, uint32_t lock, uint32_t next)
{
	struct spinlock *l = &s->locks[lock];
	struct cna_queue *q = &s->secondary[lock];
	uint32_t head = q->head;

	s->next[q->tail] = next;
	if (next == SPIN_NONE)
		l->qtail = q->tail;
	q->head = q->tail = SPIN_NONE;
	q->local_handoffs = 0;
	return head;
}

static uint32_t cna_successor(struct spinlocks *s, uint32_t lock, uint32_t r)
{
	struct cna_queue *q = &s->secondary[lock];
	uint32_t next = s->next[r], w, before = SPIN_NONE;

	if (q->head != SPIN_NONE && q->local_handoffs >= CNA_LOCAL_HANDOFFS)
		return cna_splice(s, lock, next); /* fairness: the other nodes' turn */
	for (w = next; w != SPIN_NONE && s->node[w] != s->node[r]; w = s->next[w])
		before = w;
	if (w == SPIN_NONE) {
		/* no waiter of r's node in the main queue */
		if (q->head != SPIN_NONE)
			return cna_splice(s, lock, next);
		q->local_handoffs = 0;
		return next;
	}
	if (before != SPIN_NONE) {
		/* next..before, all of other nodes, wait in the secondary queue */
		if (q->head == SPIN_NONE)
			q->head = next;
		else
			s->next[q->tail] = next;
		q->tail = before;
		s->next[before] = SPIN_NONE;
	}
	/* hand-offs in a row that kept others waiting [A: the series counts them
	 * along the queue; we count them per lock] */
	q->local_handoffs = q->head != SPIN_NONE ? q->local_handoffs + 1 : 0;
	return w;
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
	return bytes_mul(bytes_doubled(nlocks, 1024), sizeof(struct spinlock) + sizeof(struct cna_queue));
}
