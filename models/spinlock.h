/* Queued spinlocks (the kernel's qspinlock), as state the task executor drives.
 *
 * Taking a free lock is one atomic RMW on the lock's line. A task whose RMW finds
 * the lock held (or others already queued) joins a FIFO queue. Only the queue
 * head spins on the lock's line (a read that stays valid until someone writes the
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

#include "sim/simtime.h"

#define SPIN_NONE UINT32_MAX

struct spinlock {
	uint32_t line;         /* the cache line holding the lock word */
	uint32_t holder;       /* requester holding it, or SPIN_NONE */
	uint32_t qhead, qtail; /* waiting requesters in arrival order; qhead spins */
	uint64_t acquisitions;
	uint64_t contended;    /* acquisitions that had to queue */
	simtime_t wait_ps;     /* total time from queueing to taking the lock */
};

struct spinlocks {
	struct spinlock *locks;
	uint32_t n, cap;
	uint32_t nrequesters;
	uint32_t *next;        /* per requester: next in its lock's queue */
	simtime_t *queued_at;  /* per requester: when it joined the queue */
};

int spinlocks_init(struct spinlocks *s, uint32_t nrequesters);
void spinlocks_free(struct spinlocks *s);

/* A new unlocked lock on `line`; returns its id, SPIN_NONE when out of memory. */
uint32_t spinlock_add(struct spinlocks *s, uint32_t line);

/* r's acquiring RMW has completed at `now`. Returns true when r now holds the
 * lock. Otherwise r is queued; *spin tells whether r is the queue head and must
 * spin on the lock's line now (else it waits for the MCS hand-off). */
bool spinlock_try_or_queue(struct spinlocks *s, uint32_t lock, uint32_t r, simtime_t now, bool *spin);

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

#endif
