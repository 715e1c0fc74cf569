/* SPDX-License-Identifier: MIT */
/* A plain binary min-heap in one array: the textbook queue, measured beside the
 * default 4-ary heap (make bench QUEUES=...). Twice as deep, one comparison a level
 * instead of three. */
#include "sim/core/event_heap.h"

#define ARITY 2u

static inline size_t least_of_two(const struct event *h)
{
	return event_before(&h[1], &h[0]);
}

EVENT_HEAP_OPERATIONS(ARITY, least_of_two)

/* The root's children hold the earliest after it (len > 1; the first of equal times). */
static const struct event *second(const struct event_queue *q)
{
	return q->len > 2 && q->ev[2].time < q->ev[1].time ? &q->ev[2] : &q->ev[1];
}

static simtime_t second_time(const struct event_queue *q)
{
	return q->len > 1 ? second(q)->time : SIMTIME_MAX;
}

const struct event_queue_type event_queue_heap2 = {
	.name = "binary-heap",
	.description = "a binary min-heap in one array (for comparison)",
	.push = push,
	.replace_least = replace_least,
	.pop_least = pop_least,
	.second = second,
	.second_time = second_time,
};
