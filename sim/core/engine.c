/* SPDX-License-Identifier: MIT */
#include "sim/core/engine.h"

#include <stdlib.h>
#include <string.h>

/* 4-ary heap: children of i are 4i+1..4i+4. Shallower than a binary heap, and the
 * four children share a cache line or two. */
#define ARITY 4u

static inline bool before(const struct event *a, const struct event *b)
{
	return a->time < b->time || (a->time == b->time && a->tie < b->tie);
}

/* The least of four consecutive events (the first of equals, as before() scans):
 * which one it is is a coin toss for the host's branch predictor, so it is chosen
 * by time with conditional moves, and by the full order only when times are equal
 * (rare, and then predictably so). */
static inline size_t least_of_four(const struct event *h)
{
	simtime_t t0 = h[0].time, t1 = h[1].time, t2 = h[2].time, t3 = h[3].time;
	size_t a = t1 < t0, b = 2 + (t3 < t2);
	simtime_t ta = t1 < t0 ? t1 : t0, tb = t3 < t2 ? t3 : t2;

	if (__builtin_expect((t0 == t1) | (t2 == t3) | (ta == tb), 0)) {
		size_t m = 0;

		for (size_t c = 1; c < 4; c++)
			if (before(&h[c], &h[m]))
				m = c;
		return m;
	}
	/* a mask, not a ternary, or the compiler may branch */
	return a ^ ((a ^ b) & ((size_t)0 - (size_t)(tb < ta)));
}

int engine_init(struct engine *e)
{
	memset(e, 0, sizeof(*e));
	e->cap = 256;
	e->heap = malloc(e->cap * sizeof(*e->heap));
	return e->heap ? 0 : -1;
}

void engine_free(struct engine *e)
{
	free(e->heap);
	memset(e, 0, sizeof(*e));
}

uint32_t engine_register(struct engine *e, event_fn fn, void *ctx)
{
	uint32_t kind = e->nkinds++;

	/* a programming error, not an input error: the set of kinds is fixed in code */
	if (kind >= ENGINE_MAX_KINDS)
		abort();
	e->handlers[kind].fn = fn;
	e->handlers[kind].ctx = ctx;
	return kind;
}

/* Puts `ev` at hole `i` (whose subtree is a heap without it) and moves it down. */
static void sift_down(struct engine *e, size_t i, struct event ev)
{
	for (;;) {
		size_t first = i * ARITY + 1, best, c, end;

		if (first >= e->len)
			break;
		best = first;
		if (first + ARITY <= e->len) {
			best = first + least_of_four(&e->heap[first]);
		} else {
			end = e->len;
			for (c = first + 1; c < end; c++)
				if (before(&e->heap[c], &e->heap[best]))
					best = c;
		}
		if (!before(&e->heap[best], &ev))
			break;
		e->heap[i] = e->heap[best];
		i = best;
	}
	e->heap[i] = ev;
}

void engine_set_prefetch(struct engine *e, uint32_t kind, event_fn prefetch)
{
	e->handlers[kind].prefetch = prefetch;
}

/* The earliest of the root's children (len > 1; by time alone, the first of equals):
 * the next event to run unless the root's handler schedules an earlier one. */
static inline const struct event *second(const struct engine *e)
{
	const struct event *best = &e->heap[1];

	for (size_t c = 2; c <= ARITY && c < e->len; c++)
		if (e->heap[c].time < best->time)
			best = &e->heap[c];
	return best;
}

/* Runs the prefetch hook of the event after the root (a hint: on a tie in time it
 * may be the other one). */
static void prefetch_second(const struct engine *e)
{
	const struct event *ev = second(e);

	if (e->handlers[ev->kind].prefetch)
		e->handlers[ev->kind].prefetch(e->handlers[ev->kind].ctx, ev->target);
}

void engine_schedule(struct engine *e, simtime_t at, uint32_t kind, uint32_t target)
{
	struct event ev = { at, engine_tie_order(at, kind, target), kind, target };
	size_t i;

	if (e->handling_top) {
		/* the handled event is still at the root: the new one takes its place (one
		 * sift down instead of a pop and a push; the order of events is the same) */
		e->handling_top = false;
		sift_down(e, 0, ev);
		return;
	}
	if (e->len == e->cap) {
		size_t cap = e->cap * 2;
		struct event *heap = realloc(e->heap, cap * sizeof(*heap));

		if (!heap) {
			engine_out_of_memory(e);
			return;
		}
		e->heap = heap;
		e->cap = cap;
	}
	i = e->len++;
	while (i > 0) {
		size_t parent = (i - 1) / ARITY;

		if (!before(&ev, &e->heap[parent]))
			break;
		e->heap[i] = e->heap[parent];
		i = parent;
	}
	e->heap[i] = ev;
}

simtime_t engine_next_time_handling(const struct engine *e)
{
	if (e->len > ARITY) {
		/* all four children: a minimum of times, no branch to mispredict */
		simtime_t a = e->heap[1].time < e->heap[2].time ? e->heap[1].time : e->heap[2].time;
		simtime_t b = e->heap[3].time < e->heap[4].time ? e->heap[3].time : e->heap[4].time;

		return a < b ? a : b;
	}
	return e->len > 1 ? second(e)->time : SIMTIME_MAX;
}

/* The loop of engine_run, built twice: with and without the prefetch hooks. */
static inline __attribute__((always_inline)) void run_events(struct engine *e, simtime_t until, bool prefetch)
{
	while (!e->stop && e->len && e->heap[0].time < until && !(e->interrupt && *e->interrupt)) {
		const struct event ev = e->heap[0];

		e->now = ev.time;
		e->now_tie = ev.tie;
		e->events++;
		if (prefetch && e->len > 1)
			prefetch_second(e);
		e->handling_top = true;
		e->handlers[ev.kind].fn(e->handlers[ev.kind].ctx, ev.target);
		if (e->handling_top) {
			/* nothing replaced it: remove it */
			struct event last = e->heap[--e->len];

			e->handling_top = false;
			if (e->len)
				sift_down(e, 0, last);
		}
	}
}

void engine_run(struct engine *e, simtime_t until)
{
	if (e->prefetch_next)
		run_events(e, until, true);
	else
		run_events(e, until, false);
}
