/* SPDX-License-Identifier: MIT */
/* PREEMPT_RT's spinlock_t (kernel/locking/spinlock_rt.c on rtmutex.c): the
 * bucket lock as a sleeping lock, the bookkeeping part; the task executor
 * drives it (models/task_lock.h) when the kernel design has preempt_rt.
 *
 * The lock word is the rt_mutex's owner. A free lock nobody waits for is taken
 * by one cmpxchg (the fast path). Otherwise the locker takes the wait_lock and
 * tries again (try_to_take_rt_mutex): a lock without an owner goes to it even
 * when others wait, since tasks of equal priority may steal it from the top
 * waiter (rt_mutex_steal(): lateral steals are allowed to non-real-time tasks
 * on spinlock_t). Failing that it queues as a waiter (equal priorities: in
 * arrival order) and, if it is the top waiter and the owner runs on a CPU, spins
 * on the owner; otherwise it sleeps. An unlock with waiters wakes the top waiter
 * only; the woken waiter stays queued (still the top) until it takes the lock.
 * Sources: rtlock_slowlock_locked(), try_to_take_rt_mutex(), rt_mutex_steal(),
 * rtmutex_spin_on_owner() and rt_mutex_slowunlock() in kernel/locking/rtmutex.c
 * (docs/sources.md: kernel-rtmutex).
 *
 * The locks live in struct spinlocks (models/spinlock.h): holder, and qhead..qtail
 * as the waiters in order. The counters count as for the queued spinlock.
 */
#ifndef FUTEXSIM_RTLOCK_H
#define FUTEXSIM_RTLOCK_H

#include <stdbool.h>
#include <stdint.h>

#include "models/spinlock.h"

/* The fast path's cmpxchg succeeds: nobody holds it and nobody waits. Takes it. */
bool rtlock_try_fast(struct spinlocks *s, uint32_t lock, uint32_t r);

/* try_to_take_rt_mutex() under the wait_lock: nobody holds it. Takes it; a
 * `queued` r (a waiter, which must be the top one) leaves the waiters. */
bool rtlock_try_take(struct spinlocks *s, uint32_t lock, uint32_t r, bool queued, simtime_t now);

/* r becomes a waiter (at the end: equal priorities), waiting since `now`. */
void rtlock_enqueue(struct spinlocks *s, uint32_t lock, uint32_t r, simtime_t now);

/* The top waiter, SPIN_NONE when nobody waits. */
static inline uint32_t rtlock_top(const struct spinlocks *s, uint32_t lock)
{
	return s->locks[lock].qhead;
}

/* r's unlock: the lock is free; returns the top waiter to wake, or SPIN_NONE. */
uint32_t rtlock_release(struct spinlocks *s, uint32_t lock, uint32_t r);

#endif
