/* SPDX-License-Identifier: MIT */
/* The discrete-event engine: integer time, events ordered by (time, tie order).
 *
 * Events are small value records {time, tie, kind, target}; `kind` selects a
 * handler registered by a model (coherence, tasks, the run controller) and
 * `target` is an index that handler understands (a line, a task). Ties in time
 * run in an order fixed by the events themselves (their kind, target and time,
 * mixed), not by when they were scheduled, so a run is a pure function of its
 * inputs, and the same whether a model schedules an event early or late.
 * The pending events are in a queue behind a table of operations
 * (sim/core/event_queue.h: a 4-ary heap by default, another chosen at
 * engine_init_queue), whose least event is at q.ev[0]. The event being handled
 * stays there until its handler's first schedule replaces it (most handlers
 * schedule their task's next event) or the handler returns.
 */
#ifndef FUTEXSIM_ENGINE_H
#define FUTEXSIM_ENGINE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/core/event_queue.h"
#include "sim/core/simtime.h"

typedef void (*event_fn)(void *ctx, uint32_t target);

#define ENGINE_MAX_KINDS 16u

struct engine {
	simtime_t now;
	uint64_t now_tie;      /* the tie order of the event being handled, or of the place a
				  model acts at (engine_try_advance) */
	uint64_t events;       /* handled so far */
	bool stop;             /* engine_run ends early (engine_stop, engine_out_of_memory) */
	/* When set, engine_run also stops once *interrupt is non-zero: a flag a
	 * signal handler sets (sim/main.c); read between events. */
	const volatile sig_atomic_t *interrupt;
	bool out_of_memory;    /* a schedule or a model's allocation failed; the run is invalid */
	bool handling_top;     /* q.ev[0] is the event being handled, not yet removed: the
				  handler's first schedule replaces it (engine_run) */
	const struct event_queue_type *queue; /* the operations on q */
	struct event_queue q;  /* the pending events, the least at q.ev[0] */
	uint32_t nkinds;
	struct {
		event_fn fn;
		event_fn prefetch; /* or NULL: asks the host to fetch what fn(target) will touch */
		void *ctx;
	} handlers[ENGINE_MAX_KINDS];
	/* Before each event, the next one's prefetch hook runs, so that its state comes
	 * from memory while this one is handled: for models too big for the host's
	 * caches (the caller sets it). Changes no result. */
	bool prefetch_next;
};

/* An engine with the default queue, or with `queue`; -1 when out of memory. */
int engine_init(struct engine *e);
int engine_init_queue(struct engine *e, const struct event_queue_type *queue);
void engine_free(struct engine *e);

/* Registers a handler; returns its kind (stable for the engine's life). */
uint32_t engine_register(struct engine *e, event_fn fn, void *ctx);

/* A prefetch hook for events of `kind` (engine.prefetch_next). */
void engine_set_prefetch(struct engine *e, uint32_t kind, event_fn prefetch);

/* Schedules `kind(target)` at `at` (>= now). Out of memory sets e->out_of_memory
 * and e->stop; the run then reports an error. */
void engine_schedule(struct engine *e, simtime_t at, uint32_t kind, uint32_t target);

/* Time of the earliest pending event, SIMTIME_MAX when none. Models use it to
 * run ahead without an event while nothing else can happen first. */
static inline simtime_t engine_next_time(const struct engine *e)
{
	if (e->handling_top) /* ev[0] is the event being handled: the next is after it */
		return e->queue->second_time(&e->q);
	return e->q.len ? e->q.ev[0].time : SIMTIME_MAX;
}

/* Simultaneous events run in an order fixed by what they are and when, not by when
 * they were scheduled: by a bijective mix (splitmix64's finaliser) of their kind and
 * target with their time, so no kind and no task is favoured from one tie to the
 * next; two events of the same kind and target at the same time are the same call,
 * whichever runs first. A model may then keep an event whose outcome it knows out
 * of the queue and schedule it only when someone would see it happen, with the
 * same order (models/coherence.c: a prefetch's completion). */
static inline uint64_t engine_tie_order(simtime_t time, uint32_t kind, uint32_t target)
{
	uint64_t x = ((uint64_t)kind << 32 | target) ^ (uint64_t)time;

	x = (x ^ (x >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	x = (x ^ (x >> 27)) * UINT64_C(0x94d049bb133111eb);
	return x ^ (x >> 31);
}

/* Whether an event `kind(target)` at `at`, had it been scheduled, would have run
 * before the one being handled (or the place engine_try_advance moved to). */
static inline bool engine_would_have_run(const struct engine *e, simtime_t at, uint32_t kind, uint32_t target)
{
	return at < e->now || (at == e->now && engine_tie_order(at, kind, target) < e->now_tie);
}

/* Moves the clock to `t` when no pending event is due at or before `t`: a model
 * may then act at `t` directly, exactly as if the event `kind(target)` had been
 * scheduled there. */
static inline bool engine_try_advance(struct engine *e, simtime_t t, uint32_t kind, uint32_t target)
{
	if (t < engine_next_time(e)) {
		e->now = t;
		e->now_tie = engine_tie_order(t, kind, target);
		return true;
	}
	return false;
}

/* Ends engine_run once the event being handled returns (the run is over, or can
 * make no progress): models stop the run through this, not by writing `stop`. */
static inline void engine_stop(struct engine *e)
{
	e->stop = true;
}

/* Something the run needs could not be allocated mid-run: the run stops and is
 * invalid (its caller reports `out_of_memory`). */
static inline void engine_out_of_memory(struct engine *e)
{
	e->out_of_memory = true;
	e->stop = true;
}

/* Handles events in order while their time is < until, nobody set `stop` and
 * no interrupt is flagged. `now` ends at the last handled event's time. */
void engine_run(struct engine *e, simtime_t until);

#endif
