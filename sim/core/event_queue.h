/* SPDX-License-Identifier: MIT */
/* The engine's queue of pending events, as data (struct event_queue) and a small
 * table of functions (struct event_queue_type) chosen by name (the scenario's
 * run.event_queue), so that another queue can be measured beside the default.
 *
 * The contract every queue keeps, which is what makes the results the same
 * whichever one runs:
 *  - events leave in (time, tie) order (event_before); two events equal in both
 *    are the same event (kind and target too: engine_tie_order is a bijection of
 *    them for a given time), so the order is total and a queue has no tie of its
 *    own to break;
 *  - the least pending event sits at ev[0] whenever len > 0: the engine reads it
 *    there before every event, and models read its time on every access
 *    (engine_next_time), without a call;
 *  - second_time is exact: the earliest time among the events after ev[0].
 * How the other events are kept is the queue's own.
 */
#ifndef FUTEXSIM_EVENT_QUEUE_H
#define FUTEXSIM_EVENT_QUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/core/simtime.h"

struct event {
	simtime_t time;
	uint64_t tie;      /* the order among simultaneous events (engine_tie_order); equal
			      in time and tie, two events are the same event, in either order */
	uint32_t kind;
	uint32_t target;
};

/* Whether a runs before b. */
static inline bool event_before(const struct event *a, const struct event *b)
{
	return a->time < b->time || (a->time == b->time && a->tie < b->tie);
}

struct event_queue {
	struct event *ev; /* [cap]: ev[0] the least of the len pending events */
	size_t len, cap;
};

struct event_queue_type {
	const char *name;
	const char *description;
	/* Adds ev; -1 when out of memory (the queue unchanged). */
	int (*push)(struct event_queue *q, const struct event *ev);
	/* Removes the least (len > 0) and adds ev in one step: the engine's handled
	 * event replaced by its handler's first schedule. */
	void (*replace_least)(struct event_queue *q, const struct event *ev);
	/* Removes the least (len > 0). */
	void (*pop_least)(struct event_queue *q);
	/* An event with the earliest time after ev[0] (len > 1; among equal times any):
	 * a hint for the engine's prefetch hook. */
	const struct event *(*second)(const struct event_queue *q);
	/* The earliest time after ev[0], SIMTIME_MAX when len <= 1: engine_next_time
	 * while ev[0] is being handled. */
	simtime_t (*second_time)(const struct event_queue *q);
};

/* The queues, by name: the default (a 4-ary heap) first. */
extern const struct event_queue_type event_queue_heap4, event_queue_heap2;
#define EVENT_QUEUE_DEFAULT (&event_queue_heap4)
#define EVENT_QUEUE_NTYPES 2u
/* The queue named `name`, NULL when none is. */
const struct event_queue_type *event_queue_find(const char *name);
/* The i-th queue (0: the default), NULL past the end. */
const struct event_queue_type *event_queue_at(size_t i);
/* Their names in order into out (room for EVENT_QUEUE_NTYPES + 1), NULL-terminated. */
const char *const *event_queue_names(const char **out);

/* The storage every queue type here shares: an array that doubles as it fills. */
int event_queue_init(struct event_queue *q); /* -1 when out of memory */
void event_queue_free(struct event_queue *q);
/* Room for one more event (len < cap after it); -1 when out of memory. */
int event_queue_reserve(struct event_queue *q);

#endif
