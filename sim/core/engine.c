/* SPDX-License-Identifier: MIT */
#include "sim/core/engine.h"

#include <stdlib.h>
#include <string.h>

int engine_init_queue(struct engine *e, const struct event_queue_type *queue)
{
	memset(e, 0, sizeof(*e));
	e->queue = queue;
	return event_queue_init(&e->q);
}

int engine_init(struct engine *e)
{
	return engine_init_queue(e, EVENT_QUEUE_DEFAULT);
}

void engine_free(struct engine *e)
{
	event_queue_free(&e->q);
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

void engine_set_prefetch(struct engine *e, uint32_t kind, event_fn prefetch)
{
	e->handlers[kind].prefetch = prefetch;
}

/* Runs the prefetch hook of the event after the one being handled (a hint: on a
 * tie in time it may be another one). */
static void prefetch_second(const struct engine *e)
{
	const struct event *ev = e->queue->second(&e->q);

	if (e->handlers[ev->kind].prefetch)
		e->handlers[ev->kind].prefetch(e->handlers[ev->kind].ctx, ev->target);
}

void engine_schedule(struct engine *e, simtime_t at, uint32_t kind, uint32_t target)
{
	struct event ev = { at, engine_tie_order(at, kind, target), kind, target };

	if (e->handling_top) {
		/* the handled event is still least: the new one takes its place */
		e->handling_top = false;
		e->queue->replace_least(&e->q, &ev);
	} else if (e->queue->push(&e->q, &ev) < 0) {
		engine_out_of_memory(e);
	}
}

/* The loop of engine_run, built twice: with and without the prefetch hooks. */
static inline __attribute__((always_inline)) void run_events(struct engine *e, simtime_t until, bool prefetch)
{
	while (!e->stop && e->q.len && e->q.ev[0].time < until && !(e->interrupt && *e->interrupt)) {
		const struct event ev = e->q.ev[0];

		e->now = ev.time;
		e->now_tie = ev.tie;
		e->events++;
		if (prefetch && e->q.len > 1)
			prefetch_second(e);
		e->handling_top = true;
		e->handlers[ev.kind].fn(e->handlers[ev.kind].ctx, ev.target);
		if (e->handling_top) {
			/* nothing replaced it: remove it */
			e->handling_top = false;
			e->queue->pop_least(&e->q);
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
