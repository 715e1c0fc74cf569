/* SPDX-License-Identifier: MIT */
/* Reader-writer semaphores (the mm's mmap_sem), as state the task executor drives.
 *
 * Every down/up is an atomic on the semaphore's count, so on its cache line (the
 * caller does that access through models/coherence.h). Readers share the
 * semaphore unless a writer holds it or waits for it; writers are exclusive.
 * Contended callers sleep in one FIFO queue and are handed the semaphore when it
 * is released: a writer at the head gets it alone, readers at the head get it
 * together (up to the next waiting writer), as the kernel's rwsem hands over.
 */
#ifndef FUTEXSIM_RWSEM_H
#define FUTEXSIM_RWSEM_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/core/simtime.h"

#define RWSEM_NONE UINT32_MAX

enum rwsem_op { RWSEM_DOWN_READ, RWSEM_UP_READ, RWSEM_DOWN_WRITE, RWSEM_UP_WRITE };

struct rwsem {
	uint32_t line;
	uint32_t readers;      /* holding for read */
	uint32_t writer;       /* holding for write, or RWSEM_NONE */
	uint32_t qhead, qtail; /* sleeping waiters in arrival order */
	uint64_t reads, writes, contended;
	simtime_t wait_ps;
};

struct rwsems {
	struct rwsem *v;
	uint32_t n, cap;
	uint32_t *next;        /* per requester: next waiter */
	bool *wants_write;     /* per requester */
	simtime_t *queued_at;  /* per requester */
};

int rwsems_init(struct rwsems *s, uint32_t nrequesters);
void rwsems_free(struct rwsems *s);
uint32_t rwsem_add(struct rwsems *s, uint32_t line); /* RWSEM_NONE when out of memory */

/* After the down's atomic on the count: true when r now holds the semaphore,
 * false when r is queued (it sleeps until granted). */
bool rwsem_down(struct rwsems *s, uint32_t sem, uint32_t r, bool write, simtime_t now);

/* After the up's atomic: r releases its hold. */
void rwsem_up(struct rwsems *s, uint32_t sem, uint32_t r, bool write);

/* Hands the semaphore to the next waiter it can go to, if any: returns that
 * waiter (now holding it, to be woken) or RWSEM_NONE. Call until RWSEM_NONE. */
uint32_t rwsem_grant_next(struct rwsems *s, uint32_t sem, simtime_t now);

void rwsems_reset_stats(struct rwsems *s);

#endif
