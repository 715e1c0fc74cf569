/* SPDX-License-Identifier: MIT */
/* Queued spinlocks (the kernel's qspinlock, kernel/locking/qspinlock.c), as
 * state the task executor drives.
 *
 * Taking a free lock is one atomic RMW (cmpxchg) on the lock's line. If the lock
 * is held and nobody else waits (no pending waiter, no queue), the task sets the
 * pending bit and spins on the lock's line; when the holder's unlock reaches it,
 * it takes the lock with one write (clear pending, set locked), no queue
 * involved. Otherwise it takes the MCS slow path: local work to set up its
 * per-CPU node, a read of the lock word (trylock), an xchg of the queue tail
 * (another RMW on the line), and a store linking it behind the previous tail.
 * The MCS queue's head spins on the lock's line too, beside the pending waiter,
 * until both the locked byte and the pending bit are clear; the others spin on
 * their own per-CPU MCS node. Spinning is a read that stays valid until someone
 * writes the line (models/coherence.h watches), so every unlock and every take
 * sends both spinners back for the line. The head takes a free lock with one
 * write and hands the head role to the next waiter by a store to that waiter's
 * MCS node. Newcomers cannot overtake (the pending bit or the queue tail in the
 * lock word makes their fast path fail), so hand-off is FIFO: the pending
 * waiter first, then the queue in order.
 *
 * Variants (struct spin_variant, by name from the kernel's `spinlock` key) differ
 * only in which waiter the queue's head hands the head role to when it takes
 * the lock: `qspinlock`, the next in arrival order; `cna`, the compact NUMA-aware
 * lock of Dice and Kogan (EuroSys 2019; the LKML series "Add NUMA-awareness to
 * qspinlock", Alex Kogan, v1-v15 2019-2021, never merged): the first waiter on the
 * taker's node, the waiters skipped on the way moved in order to a secondary
 * queue, which goes back in front of the main queue when no waiter of the node is
 * left there, or after CNA_LOCAL_HANDOFFS hand-offs in a row stayed on the node
 * while it held waiters (the series' fairness threshold). The head's scan of
 * the queue for a waiter of its node is done while it spins for the lock, off
 * the hand-off's path, and costs nothing here [A].
 *
 * The line traffic (RMW, re-reads, unlock, take) is done by the caller through
 * models/coherence.h; this module keeps who holds and who waits, and counts.
 */
#ifndef FUTEXSIM_SPINLOCK_H
#define FUTEXSIM_SPINLOCK_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/core/simtime.h"

#define SPIN_NONE UINT32_MAX

/* The lock word's cache line is the caller's (models/futex_table.h: BF_LOCK). */
struct spinlock {
	uint32_t holder;       /* requester holding it, or SPIN_NONE */
	uint32_t pending;      /* the waiter with the pending bit set, or SPIN_NONE */
	uint32_t qhead, qtail; /* the MCS queue in arrival order; qhead spins on the lock word */
	uint64_t acquisitions;
	uint64_t contended;    /* acquisitions that had to queue */
	simtime_t wait_ps;     /* total time from queueing to taking the lock */
};

/* CNA's secondary queue of a lock, and its hand-offs in a row within one node. */
struct cna_queue {
	uint32_t head, tail;
	uint32_t local_handoffs;
};

/* The series' intra_node_handoff_threshold, 1 << 16 (v15: kernel/locking/qspinlock_cna.h). */
#define CNA_LOCAL_HANDOFFS (1u << 16)

struct spinlocks;

struct spin_variant {
	const char *name;
	const char *description;
	bool secondary; /* keeps a cna_queue per lock */
	/* The queue's next head when its head r takes lock l; s->next[r] is r's
	 * successor in arrival order. May reorder the queue. */
	uint32_t (*successor)(struct spinlocks *s, uint32_t lock, uint32_t r);
};

/* The variants (at most SPIN_MAX_VARIANTS), ended by a NULL name; the first is the
 * default; spin_variant_find returns NULL for an unknown name. */
#define SPIN_MAX_VARIANTS 8
extern const struct spin_variant spin_variants[];
const struct spin_variant *spin_variant_find(const char *name);
/* The variants' names into `out`, NULL-terminated (for cfg_get_enum); returns out. */
const char *const *spin_variant_names(const char *out[SPIN_MAX_VARIANTS + 1]);

struct spinlocks {
	const struct spin_variant *variant;
	struct spinlock *locks;
	struct cna_queue *secondary; /* per lock, when the variant keeps one */
	uint32_t n, cap;
	uint32_t *next;        /* per requester: next in its lock's queue */
	simtime_t *queued_at;  /* per requester: when it joined the queue */
	uint16_t *node;        /* per requester: the NUMA node it queued from */
};

/* NULL `variant`: qspinlock. -1 when out of memory. */
int spinlocks_init(struct spinlocks *s, uint32_t nrequesters, const struct spin_variant *variant);
void spinlocks_free(struct spinlocks *s);

/* A new unlocked lock; returns its id, SPIN_NONE when out of memory. */
uint32_t spinlock_add(struct spinlocks *s);

/* Outcome of an attempt on the lock word. */
enum spin_try {
	SPIN_ACQUIRED, /* the caller holds the lock */
	SPIN_HEAD,     /* the caller spins on the lock's line: the pending waiter, or the MCS head */
	SPIN_QUEUE     /* others wait: the caller must take the slow path (spinlock_join), or
			  (from spinlock_join) is queued behind another and spins on its MCS node */
};

/* r's cmpxchg on the lock word has completed at `now`. A free lock with nobody
 * waiting is taken; a held lock with nobody waiting makes r the pending waiter;
 * otherwise r is not queued yet and goes through the MCS slow path. */
enum spin_try spinlock_try(struct spinlocks *s, uint32_t lock, uint32_t r, simtime_t now);

/* r's xchg of the queue tail has completed at `now` (the slow path), r running
 * on NUMA node `node`. Returns SPIN_ACQUIRED if the lock became free with nobody
 * waiting meanwhile, SPIN_HEAD if r is first in the queue, else SPIN_QUEUE with
 * *prev = the waiter r queued behind (whose MCS node r writes). */
enum spin_try spinlock_join(struct spinlocks *s, uint32_t lock, uint32_t r, simtime_t now, uint32_t node,
			    uint32_t *prev);

/* Nobody holds the lock. */
static inline bool spinlock_is_free(const struct spinlocks *s, uint32_t lock)
{
	return s->locks[lock].holder == SPIN_NONE;
}

/* What spinner r sees when its read of the line completes: the pending waiter
 * may take a lock nobody holds; the queue head only one without a pending waiter. */
static inline bool spinlock_free_for(const struct spinlocks *s, uint32_t lock, uint32_t r)
{
	const struct spinlock *l = &s->locks[lock];

	return l->holder == SPIN_NONE && (l->pending == SPIN_NONE || l->pending == r);
}

/* Spinner r (the pending waiter or the queue head) has taken the lock at `now`,
 * having seen it free. Returns the new queue head when the head took it (it
 * starts spinning once the MCS hand-off reaches it), else SPIN_NONE. */
uint32_t spinlock_take(struct spinlocks *s, uint32_t lock, uint32_t r, simtime_t now);

/* r's unlock store has completed. */
void spinlock_release(struct spinlocks *s, uint32_t lock, uint32_t r);

void spinlocks_reset_stats(struct spinlocks *s);

/* Appends r to l's queue (qhead..qtail in arrival order), waiting since `now`;
 * for the lock variants that share this storage (models/rtlock.h). */
void spinlock_enqueue(struct spinlocks *s, struct spinlock *l, uint32_t r, simtime_t now);

/* Bytes that `nlocks` spinlocks take (an array doubling from 1024), with CNA's
 * secondary queues. */
uint64_t spinlocks_bytes(uint64_t nlocks);

#endif
