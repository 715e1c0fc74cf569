/* SPDX-License-Identifier: MIT */
/* The d-ary min-heap both array queues are (sim/core/event_queue_heap4.c, _heap2.c):
 * children of i at d*i+1..d*i+d, the least at ev[0]. Inline, so that each queue's
 * arity and its own least-of-d-children are compiled in. Private to those files.
 */
#ifndef FUTEXSIM_EVENT_HEAP_H
#define FUTEXSIM_EVENT_HEAP_H

#include "sim/core/event_queue.h"

/* The least of a full set of `arity` children starting at h (the first of equals). */
typedef size_t (*heap_least_fn)(const struct event *h);

/* Puts `ev` at hole `i` (whose subtree is a heap without it) and moves it down:
 * through the nodes that have all their children with one test a level (the
 * depth, log(len) levels, is what a big machine's queue adds), then through the
 * one node that may have fewer. */
static inline __attribute__((always_inline)) void heap_sift_down(struct event_queue *q, size_t i, struct event ev,
								  size_t arity, heap_least_fn least)
{
	struct event *h = q->ev;
	size_t len = q->len;
	/* the nodes before `full` have `arity` children: i * arity + arity < len */
	size_t full = len > arity ? (len - 1 - arity) / arity + 1 : 0, first;

	while (i < full) {
		size_t best = i * arity + 1 + least(&h[i * arity + 1]);

		if (!event_before(&h[best], &ev)) {
			h[i] = ev;
			return;
		}
		h[i] = h[best];
		i = best;
	}
	first = i * arity + 1;
	if (first < len) {
		/* the last parent: its children are leaves */
		size_t best = first;

		for (size_t c = first + 1; c < len; c++)
			if (event_before(&h[c], &h[best]))
				best = c;
		if (event_before(&h[best], &ev)) {
			h[i] = h[best];
			i = best;
		}
	}
	h[i] = ev;
}

/* Adds ev at the end and moves it up; -1 when out of memory. */
static inline __attribute__((always_inline)) int heap_push(struct event_queue *q, const struct event *ev, size_t arity)
{
	size_t i;

	if (event_queue_reserve(q) < 0)
		return -1;
	i = q->len++;
	while (i > 0) {
		size_t parent = (i - 1) / arity;

		if (!event_before(ev, &q->ev[parent]))
			break;
		q->ev[i] = q->ev[parent];
		i = parent;
	}
	q->ev[i] = *ev;
	return 0;
}

/* Removes the least (len > 0): the last event fills its hole. */
static inline __attribute__((always_inline)) void heap_pop(struct event_queue *q, size_t arity, heap_least_fn least)
{
	struct event last = q->ev[--q->len];

	if (q->len)
		heap_sift_down(q, 0, last, arity, least);
}

/* The push, replace_least and pop_least of struct event_queue_type for a heap of
 * ARITY children with LEAST the least of a full set of them, as static functions of
 * the file that expands it. */
#define EVENT_HEAP_OPERATIONS(arity, least)                                                  \
	static int push(struct event_queue *q, const struct event *ev)                       \
	{                                                                                    \
		return heap_push(q, ev, (arity));                                            \
	}                                                                                    \
	/* one sift down instead of a pop and a push; the order of events is the same */    \
	static void replace_least(struct event_queue *q, const struct event *ev)             \
	{                                                                                    \
		heap_sift_down(q, 0, *ev, (arity), (least));                                  \
	}                                                                                    \
	static void pop_least(struct event_queue *q)                                         \
	{                                                                                    \
		heap_pop(q, (arity), (least));                                               \
	}

#endif
