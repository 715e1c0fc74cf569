/* Queued spinlocks (the kernel's qspinlock), as state the task executor drives.
 *
 * Taking a free lock is one atomic RMW (cmpxchg) on the lock's line. If the lock
 * is held but nobody waits, the task becomes the pending waiter and spins at once.
 * If others wait, it takes the MCS slow path: local work to set up its per-CPU
 * node, a read of the lock word (trylock), an xchg of the queue tail (another
 * RMW on the line), and a store linking it behind the previous tail. Only the
 * queue head spins on the lock's line (a read that stays valid until someone writes the
 * line: models/coherence.h watches); the others spin on their own per-CPU MCS
 * node. When the holder's unlock store reaches the head's re-read, the head takes
 * the lock with one more write, and hands the head role to the next waiter by a
 * store to that waiter's MCS node. Newcomers cannot overtake queued waiters (the
 * queue tail in the lock word makes their fast path fail), so hand-off is FIFO.
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
	uint32_t qhead, qtail; /* waiting requesters in arrival order; qhead spins */
	uint64_t acquisitions;
	uint64_t contended;    /* acquisitions that had to queue */
	simtime_t wait_ps;     /* total time from queueing to taking the lock */
};

struct spinlocks {
	struct spinlock *locks;
	uint32_t n, cap;
	uint32_t *next;        /* per requester: next in its lock's queue */
	simtime_t *queued_at;  /* per requester: when it joined the queue */
};

int spinlocks_init(struct spinlocks *s, uint32_t nrequesters);
void spinlocks_free(struct spinlocks *s);

/* A new unlocked lock; returns its id, SPIN_NONE when out of memory. */
uint32_t spinlock_add(struct spinlocks *s);

/* Outcome of an attempt on the lock word. */
enum spin_try {
	SPIN_ACQUIRED, /* the caller holds the lock */
	SPIN_HEAD,     /* the caller is queued first: it spins on the lock's line */
	SPIN_QUEUE     /* others are queued: the caller must take the slow path (spinlock_join) */
};

/* r's cmpxchg on the lock word has completed at `now`. A free lock with nobody
 * queued is taken; a held lock with nobody queued makes r the (pending) head;
 * otherwise r is not queued yet and goes through the MCS slow path. */
enum spin_try spinlock_try(struct spinlocks *s, uint32_t lock, uint32_t r, simtime_t now);

/* r's xchg of the queue tail has completed at `now` (the slow path). Returns
 * SPIN_ACQUIRED if the lock became free with nobody queued meanwhile, SPIN_HEAD
 * if r is first in the queue, else SPIN_QUEUE with *prev = the waiter r queued
 * behind (whose MCS node r writes). */
enum spin_try spinlock_join(struct spinlocks *s, uint32_t lock, uint32_t r, simtime_t now, uint32_t *prev);

/* What the spinning head sees when its read of the line completes. */
static inline bool spinlock_is_free(const struct spinlocks *s, uint32_t lock)
{
	return s->locks[lock].holder == SPIN_NONE;
}

/* The queue head r has taken the lock at `now`. Returns the new head (which starts
 * spinning once the MCS hand-off reaches it) or SPIN_NONE. */
uint32_t spinlock_take(struct spinlocks *s, uint32_t lock, uint32_t r, simtime_t now);

/* r's unlock store has completed. */
void spinlock_release(struct spinlocks *s, uint32_t lock, uint32_t r);

void spinlocks_reset_stats(struct spinlocks *s);

/* Bytes that `nlocks` spinlocks take (an array doubling from 1024). */
uint64_t spinlocks_bytes(uint64_t nlocks);

#endif
