/* SPDX-License-Identifier: MIT */
/* The default event queue: a 4-ary min-heap in one array (hundreds to thousands of
 * pending events). Shallower than a binary heap, and the four children share a
 * cache line or two. */
#include "sim/core/event_heap.h"

#define ARITY 4u

/* The least of four consecutive events (the first of equals, as event_before()
 * scans): which one it is is a coin toss for the host's branch predictor, so it is
 * chosen by time with conditional moves, and by the full order only when times are
 * equal (rare, and then predictably so). */
static inline size_t least_of_four(const struct event *h)
{
	simtime_t t0 = h[0].time, t1 = h[1].time, t2 = h[2].time, t3 = h[3].time;
	size_t a = t1 < t0, b = 2 + (t3 < t2);
	simtime_t ta = t1 < t0 ? t1 : t0, tb = t3 < t2 ? t3 : t2;

	if (__builtin_expect((t0 == t1) | (t2 == t3) | (ta == tb), 0)) {
		size_t m = 0;

		for (size_t c = 1; c < 4; c++)
			if (event_before(&h[c], &h[m]))
				m = c;
		return m;
	}
	/* a mask, not a ternary, or the compiler may branch */
	return a ^ ((a ^ b) & ((size_t)0 - (size_t)(tb < ta)));
}

EVENT_HEAP_OPERATIONS(ARITY, least_of_four)

/* The earliest of the root's children (len > 1; by time alone, the first of equals). */
static const struct event *second(const struct event_queue *q)
{
	const struct event *best = &q->ev[1];

	for (size_t c = 2; c <= ARITY && c < q->len; c++)
		if (q->ev[c].time < best->time)
			best = &q->ev[c];
	return best;
}

static simtime_t second_time(const struct event_queue *q)
{
	if (q->len > ARITY) {
		/* all four children: a minimum of times, no branch to mispredict */
		simtime_t a = q->ev[1].time < q->ev[2].time ? q->ev[1].time : q->ev[2].time;
		simtime_t b = q->ev[3].time < q->ev[4].time ? q->ev[3].time : q->ev[4].time;

		return a < b ? a : b;
	}
	return q->len > 1 ? second(q)->time : SIMTIME_MAX;
}

const struct event_queue_type event_queue_heap4 = {
	.name = "4-ary-heap",
	.description = "a 4-ary min-heap in one array, the least of four children by conditional moves (the default)",
	.push = push,
	.replace_least = replace_least,
	.pop_least = pop_least,
	.second = second,
	.second_time = second_time,
};
