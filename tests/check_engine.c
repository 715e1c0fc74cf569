/* SPDX-License-Identifier: MIT */
/* Tests of sim/core/engine.c: events run in time order, simultaneous ones in an
 * order that does not depend on when they were scheduled; handlers get their
 * targets; run-ahead is allowed only before the next pending event. Every test
 * runs with each queue of sim/core/event_queue.h (_i: its index), and handlers that
 * schedule as they run give the same events in the same order with each. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "sim/core/engine.h"
#include "tests/testutil.h"

struct log {
	struct engine *e;
	uint32_t n;
	uint32_t targets[4096];
	simtime_t times[4096];
};

static void record(void *ctx, uint32_t target)
{
	struct log *l = ctx;

	l->targets[l->n] = target;
	l->times[l->n] = l->e->now;
	l->n++;
}

/* A fresh engine with the queue-th queue whose one handler records into `l`;
 * returns its kind. */
static uint32_t start_log(struct engine *e, struct log *l, int queue)
{
	ck_assert_int_eq(engine_init_queue(e, event_queue_at((size_t)queue)), 0);
	l->e = e;
	l->n = 0;
	return engine_register(e, record, l);
}

START_TEST(test_runs_in_time_order)
{
	static struct log l;
	struct engine e;
	uint32_t kind;

	kind = start_log(&e, &l, _i);
	engine_schedule(&e, 30, kind, 1);
	engine_schedule(&e, 10, kind, 2);
	engine_schedule(&e, 40, kind, 3);
	engine_schedule(&e, 5, kind, 4);
	engine_schedule(&e, 20, kind, 5);
	engine_run(&e, SIMTIME_MAX);
	ck_assert_uint_eq(l.n, 5);
	ck_assert_uint_eq(l.targets[0], 4);
	ck_assert_uint_eq(l.targets[1], 2);
	ck_assert_uint_eq(l.targets[2], 5);
	ck_assert_uint_eq(l.targets[3], 1);
	ck_assert_uint_eq(l.targets[4], 3);
	ck_assert_uint_eq(l.times[4], 40);
	ck_assert_uint_eq(e.events, 5);
	engine_free(&e);
}
END_TEST

/* The same 64 simultaneous events, scheduled in ascending and in descending order
 * of target, run in the same order; that order is neither (no target is favoured),
 * and at another time it is another one. */
START_TEST(test_ties_independent_of_scheduling_order)
{
	static struct log up, down;
	struct engine a, b;
	uint32_t ka = start_log(&a, &up, _i), kb = start_log(&b, &down, _i);
	bool ascending = true, descending = true, same_at_both_times = true;

	for (uint32_t i = 0; i < 64; i++) {
		engine_schedule(&a, 30, ka, i);
		engine_schedule(&a, 40, ka, i);
		engine_schedule(&b, 40, kb, 63 - i);
		engine_schedule(&b, 30, kb, 63 - i);
	}
	engine_run(&a, SIMTIME_MAX);
	engine_run(&b, SIMTIME_MAX);
	ck_assert_uint_eq(up.n, 128);
	ck_assert_uint_eq(down.n, 128);
	for (uint32_t i = 0; i < 128; i++) {
		ck_assert_uint_eq(up.targets[i], down.targets[i]);
		ck_assert_uint_eq(up.times[i], i < 64 ? 30 : 40);
	}
	for (uint32_t i = 1; i < 64; i++) {
		ascending &= up.targets[i - 1] < up.targets[i];
		descending &= up.targets[i - 1] > up.targets[i];
	}
	for (uint32_t i = 0; i < 64; i++)
		same_at_both_times &= up.targets[i] == up.targets[64 + i];
	ck_assert(!ascending && !descending && !same_at_both_times);
	engine_free(&a);
	engine_free(&b);
}
END_TEST

/* With prefetch_next, before each event the hook of the one after it runs with its
 * target (the least of the pending ones but the root): here 2 before 1's handler
 * runs, 3 before 2's, nothing before 3's; kinds without a hook get no call. */
struct log_and_prefetches {
	struct log l; /* first: the handlers' context is the log too */
	uint32_t n;
	uint32_t targets[8];
};

static void note_prefetch(void *ctx, uint32_t target)
{
	struct log_and_prefetches *b = ctx;

	b->targets[b->n++] = target;
}

START_TEST(test_prefetch_next)
{
	static struct log_and_prefetches b;
	struct log_and_prefetches *p = &b;
	struct engine e;
	uint32_t kind, plain;

	kind = start_log(&e, &b.l, _i);
	plain = engine_register(&e, record, &b.l);
	engine_set_prefetch(&e, kind, note_prefetch);
	engine_schedule(&e, 30, kind, 3);
	engine_schedule(&e, 10, kind, 1);
	engine_schedule(&e, 20, kind, 2);
	engine_run(&e, SIMTIME_MAX);
	ck_assert_uint_eq(p->n, 0); /* off by default */
	e.prefetch_next = true;
	engine_schedule(&e, 40, kind, 1);
	engine_schedule(&e, 50, kind, 2);
	engine_schedule(&e, 45, plain, 9);
	engine_schedule(&e, 60, kind, 3);
	engine_run(&e, SIMTIME_MAX);
	/* before 1 (at 40): the next is the plain kind's 9, no hook; before 9: 2; before 2: 3 */
	ck_assert_uint_eq(p->n, 2);
	ck_assert_uint_eq(p->targets[0], 2);
	ck_assert_uint_eq(p->targets[1], 3);
	ck_assert_uint_eq(b.l.n, 7);
	engine_free(&e);
}
END_TEST

START_TEST(test_until_is_exclusive)
{
	static struct log l;
	struct engine e;
	uint32_t kind;

	kind = start_log(&e, &l, _i);
	engine_schedule(&e, 5, kind, 1);
	engine_schedule(&e, 10, kind, 2);
	engine_run(&e, 10);
	ck_assert_uint_eq(l.n, 1);
	ck_assert_uint_eq(engine_next_time(&e), 10);
	engine_free(&e);
}
END_TEST

/* Thousands of pseudo-random times (an LCG, no RNG dependency) come out sorted, and
 * in the same order when scheduled the other way round (many times are equal):
 * simultaneous ones in their tie order. */
START_TEST(test_many_random_events_sorted)
{
	static struct log l, r;
	static simtime_t at[4000];
	struct engine e, f;
	uint32_t kind = start_log(&e, &l, _i), kr = start_log(&f, &r, _i), x = 12345;

	for (uint32_t i = 0; i < 4000; i++) {
		x = x * 1103515245u + 12345u;
		at[i] = (x >> 16) % 500;
		engine_schedule(&e, at[i], kind, i);
	}
	for (uint32_t i = 4000; i-- > 0;)
		engine_schedule(&f, at[i], kr, i);
	engine_run(&e, SIMTIME_MAX);
	engine_run(&f, SIMTIME_MAX);
	ck_assert_uint_eq(l.n, 4000);
	for (uint32_t i = 1; i < l.n; i++) {
		ck_assert_uint_le(l.times[i - 1], l.times[i]);
		/* simultaneous ones (about eight a time here) in their tie order */
		if (l.times[i - 1] == l.times[i])
			ck_assert_uint_lt(engine_tie_order(l.times[i - 1], kind, l.targets[i - 1]),
					  engine_tie_order(l.times[i], kind, l.targets[i]));
	}
	for (uint32_t i = 0; i < l.n; i++)
		ck_assert_uint_eq(l.targets[i], r.targets[i]);
	engine_free(&e);
	engine_free(&f);
}
END_TEST

START_TEST(test_try_advance_only_before_next_event)
{
	static struct log l;
	struct engine e;
	uint32_t kind;

	kind = start_log(&e, &l, _i);
	ck_assert(engine_try_advance(&e, 1000, kind, 1)); /* nothing pending */
	ck_assert_uint_eq(e.now, 1000);
	engine_schedule(&e, 2000, kind, 0);
	ck_assert(engine_try_advance(&e, 1999, kind, 1));
	ck_assert(!engine_try_advance(&e, 2000, kind, 1)); /* the pending event goes first */
	ck_assert_uint_eq(e.now, 1999);
	engine_free(&e);
}
END_TEST

/* A handler that raises the flag at its third event, as a signal would. */
struct flagger {
	volatile sig_atomic_t flag;
	uint32_t seen;
};

static void raise_flag(void *ctx, uint32_t target)
{
	struct flagger *f = ctx;

	(void)target;
	if (++f->seen == 3)
		f->flag = 1;
}

START_TEST(test_interrupt_flag_stops_between_events)
{
	struct flagger f = { 0 };
	struct engine e;
	uint32_t kind;

	ck_assert_int_eq(engine_init_queue(&e, event_queue_at((size_t)_i)), 0);
	kind = engine_register(&e, raise_flag, &f);
	for (uint32_t i = 0; i < 10; i++)
		engine_schedule(&e, 100 * (i + 1), kind, i);
	e.interrupt = &f.flag;
	engine_run(&e, SIMTIME_MAX);
	ck_assert_uint_eq(f.seen, 3);
	ck_assert_uint_eq(e.now, 300);
	ck_assert_uint_eq(e.q.len, 7);
	/* cleared, the run goes on where it stopped */
	f.flag = 0;
	engine_run(&e, SIMTIME_MAX);
	ck_assert_uint_eq(f.seen, 10);
	engine_free(&e);
}
END_TEST

/* Handlers that schedule as they run (none, one or two events, at the same time or
 * later, many simultaneous), as the models do: each queue runs the same events in
 * the same order, and engine_next_time while handling is exact (the next event to
 * run is the earliest of it and what the handler scheduled). */
struct churn {
	struct engine e;
	uint32_t kind, x, n, scheduled;
	simtime_t times[20000], next[20000], least_new[20000];
	uint32_t targets[20000];
};

static void churn(void *ctx, uint32_t target)
{
	struct churn *c = ctx;
	uint32_t k = c->n++, count;

	c->times[k] = c->e.now;
	c->targets[k] = target;
	c->next[k] = engine_next_time(&c->e);
	c->least_new[k] = SIMTIME_MAX;
	c->x = c->x * 1103515245u + 12345u;
	count = c->scheduled < 18000 ? (c->x >> 16) % 3 : 0;
	for (uint32_t j = 0; j < count; j++) {
		simtime_t at;

		c->x = c->x * 1103515245u + 12345u;
		at = c->e.now + (c->x >> 16) % 40; /* often the same time: ties */
		if (at < c->least_new[k])
			c->least_new[k] = at;
		engine_schedule(&c->e, at, c->kind, (c->x >> 8) % 64);
		c->scheduled++;
	}
}

static void run_churn(struct churn *c, int queue)
{
	memset(c, 0, sizeof(*c));
	ck_assert_int_eq(engine_init_queue(&c->e, event_queue_at((size_t)queue)), 0);
	c->kind = engine_register(&c->e, churn, c);
	c->x = 7;
	for (uint32_t t = 0; t < 200; t++)
		engine_schedule(&c->e, t % 50, c->kind, t % 64);
	c->scheduled = 200;
	engine_run(&c->e, SIMTIME_MAX);
	ck_assert_uint_eq(c->n, c->scheduled);
	for (uint32_t k = 0; k + 1 < c->n; k++) {
		simtime_t expect = c->next[k] < c->least_new[k] ? c->next[k] : c->least_new[k];

		ck_assert_uint_eq(c->times[k + 1], expect);
	}
}

START_TEST(test_every_queue_runs_the_same_events)
{
	static struct churn base, other;

	run_churn(&base, 0);
	run_churn(&other, _i);
	ck_assert_uint_eq(base.n, other.n);
	for (uint32_t k = 0; k < base.n; k++) {
		ck_assert_uint_eq(base.times[k], other.times[k]);
		ck_assert_uint_eq(base.targets[k], other.targets[k]);
	}
	engine_free(&base.e);
	engine_free(&other.e);
}
END_TEST

/* Queues by name: the default first, each found by its name. */
START_TEST(test_queues_by_name)
{
	const char *names[EVENT_QUEUE_NTYPES + 1];

	ck_assert_ptr_eq(event_queue_at(0), EVENT_QUEUE_DEFAULT);
	event_queue_names(names);
	for (size_t i = 0; i < EVENT_QUEUE_NTYPES; i++)
		ck_assert_ptr_eq(event_queue_find(names[i]), event_queue_at(i));
	ck_assert_ptr_null(names[EVENT_QUEUE_NTYPES]);
	ck_assert_ptr_null(event_queue_find("no-such-queue"));
	ck_assert_ptr_null(event_queue_at(EVENT_QUEUE_NTYPES));
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("engine");
	TCase *tc = tcase_create("order");

	tcase_add_loop_test(tc, test_runs_in_time_order, 0, EVENT_QUEUE_NTYPES);
	tcase_add_loop_test(tc, test_ties_independent_of_scheduling_order, 0, EVENT_QUEUE_NTYPES);
	tcase_add_loop_test(tc, test_until_is_exclusive, 0, EVENT_QUEUE_NTYPES);
	tcase_add_loop_test(tc, test_prefetch_next, 0, EVENT_QUEUE_NTYPES);
	tcase_add_loop_test(tc, test_many_random_events_sorted, 0, EVENT_QUEUE_NTYPES);
	tcase_add_loop_test(tc, test_try_advance_only_before_next_event, 0, EVENT_QUEUE_NTYPES);
	tcase_add_loop_test(tc, test_interrupt_flag_stops_between_events, 0, EVENT_QUEUE_NTYPES);
	tcase_add_loop_test(tc, test_every_queue_runs_the_same_events, 0, EVENT_QUEUE_NTYPES);
	tcase_add_test(tc, test_queues_by_name);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run_suite(suite());
}
