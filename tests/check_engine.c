/* SPDX-License-Identifier: MIT */
/* Tests of sim/core/engine.c: events run in (time, scheduling order) order, handlers
 * get their targets, run-ahead is allowed only before the next pending event. */
#include <check.h>
#include <stdlib.h>

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

/* A fresh engine whose one handler records into `l`; returns its kind. */
static uint32_t start_log(struct engine *e, struct log *l)
{
	ck_assert_int_eq(engine_init(e), 0);
	l->e = e;
	l->n = 0;
	return engine_register(e, record, l);
}

START_TEST(test_ties_run_in_scheduling_order)
{
	static struct log l;
	struct engine e;
	uint32_t kind;

	kind = start_log(&e, &l);
	engine_schedule(&e, 30, kind, 1);
	engine_schedule(&e, 10, kind, 2);
	engine_schedule(&e, 30, kind, 3);
	engine_schedule(&e, 10, kind, 4);
	engine_schedule(&e, 20, kind, 5);
	engine_run(&e, SIMTIME_MAX);
	ck_assert_uint_eq(l.n, 5);
	/* by time, then FIFO among equal times */
	ck_assert_uint_eq(l.targets[0], 2);
	ck_assert_uint_eq(l.targets[1], 4);
	ck_assert_uint_eq(l.targets[2], 5);
	ck_assert_uint_eq(l.targets[3], 1);
	ck_assert_uint_eq(l.targets[4], 3);
	ck_assert_uint_eq(l.times[4], 30);
	ck_assert_uint_eq(e.events, 5);
	engine_free(&e);
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

	kind = start_log(&e, &b.l);
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

	kind = start_log(&e, &l);
	engine_schedule(&e, 5, kind, 1);
	engine_schedule(&e, 10, kind, 2);
	engine_run(&e, 10);
	ck_assert_uint_eq(l.n, 1);
	ck_assert_uint_eq(engine_next_time(&e), 10);
	engine_free(&e);
}
END_TEST

/* Thousands of pseudo-random times (an LCG, no RNG dependency) come out sorted,
 * and equal times keep their scheduling order. */
START_TEST(test_many_random_events_sorted)
{
	static struct log l;
	struct engine e;
	uint32_t kind, x = 12345;

	kind = start_log(&e, &l);
	for (uint32_t i = 0; i < 4000; i++) {
		x = x * 1103515245u + 12345u;
		engine_schedule(&e, (x >> 16) % 500, kind, i);
	}
	engine_run(&e, SIMTIME_MAX);
	ck_assert_uint_eq(l.n, 4000);
	for (uint32_t i = 1; i < l.n; i++) {
		ck_assert_uint_le(l.times[i - 1], l.times[i]);
		if (l.times[i - 1] == l.times[i])
			ck_assert_uint_lt(l.targets[i - 1], l.targets[i]);
	}
	engine_free(&e);
}
END_TEST

START_TEST(test_try_advance_only_before_next_event)
{
	static struct log l;
	struct engine e;
	uint32_t kind;

	kind = start_log(&e, &l);
	ck_assert(engine_try_advance(&e, 1000)); /* nothing pending */
	ck_assert_uint_eq(e.now, 1000);
	engine_schedule(&e, 2000, kind, 0);
	ck_assert(engine_try_advance(&e, 1999));
	ck_assert(!engine_try_advance(&e, 2000)); /* the pending event goes first */
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

	ck_assert_int_eq(engine_init(&e), 0);
	kind = engine_register(&e, raise_flag, &f);
	for (uint32_t i = 0; i < 10; i++)
		engine_schedule(&e, 100 * (i + 1), kind, i);
	e.interrupt = &f.flag;
	engine_run(&e, SIMTIME_MAX);
	ck_assert_uint_eq(f.seen, 3);
	ck_assert_uint_eq(e.now, 300);
	ck_assert_uint_eq(e.len, 7);
	/* cleared, the run goes on where it stopped */
	f.flag = 0;
	engine_run(&e, SIMTIME_MAX);
	ck_assert_uint_eq(f.seen, 10);
	engine_free(&e);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("engine");
	TCase *tc = tcase_create("order");

	tcase_add_test(tc, test_ties_run_in_scheduling_order);
	tcase_add_test(tc, test_until_is_exclusive);
	tcase_add_test(tc, test_prefetch_next);
	tcase_add_test(tc, test_many_random_events_sorted);
	tcase_add_test(tc, test_try_advance_only_before_next_event);
	tcase_add_test(tc, test_interrupt_flag_stops_between_events);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run_suite(suite());
}
