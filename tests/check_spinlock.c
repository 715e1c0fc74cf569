/* SPDX-License-Identifier: MIT */
/* Tests of models/spinlock.c: the qspinlock's pending waiter, then the MCS queue
 * in order (FIFO), only the pending waiter and the queue head spin on the lock
 * word, and waiting time is accounted from queueing to taking. */
#include <check.h>

#include "models/spinlock.h"
#include "tests/testutil.h"

START_TEST(test_uncontended_take_is_immediate)
{
	struct spinlocks s;
	uint32_t lock;

	ck_assert_int_eq(spinlocks_init(&s, 4), 0);
	lock = spinlock_add(&s);
	/* ids are consecutive (a table's bucket b has lock lock0 + b) and locks independent */
	ck_assert_uint_eq(spinlock_add(&s), lock + 1);
	ck_assert_int_eq(spinlock_try(&s, lock, 0, 100), SPIN_ACQUIRED);
	ck_assert_uint_eq(s.locks[lock].holder, 0);
	ck_assert(spinlock_is_free(&s, lock + 1));
	ck_assert_int_eq(spinlock_try(&s, lock + 1, 1, 100), SPIN_ACQUIRED);
	spinlock_release(&s, lock + 1, 1);
	spinlock_release(&s, lock, 0);
	ck_assert(spinlock_is_free(&s, lock));
	ck_assert_uint_eq(s.locks[lock].acquisitions, 1);
	ck_assert_uint_eq(s.locks[lock].contended, 0);
	spinlocks_free(&s);
}
END_TEST

START_TEST(test_fifo_handoff)
{
	struct spinlocks s;
	uint32_t lock, prev;

	ck_assert_int_eq(spinlocks_init(&s, 4), 0);
	lock = spinlock_add(&s);
	ck_assert_int_eq(spinlock_try(&s, lock, 2, 0), SPIN_ACQUIRED); /* 2 holds */
	ck_assert_int_eq(spinlock_try(&s, lock, 0, 10), SPIN_HEAD);    /* nobody waits: 0 sets pending */
	ck_assert_uint_eq(s.locks[lock].pending, 0);
	ck_assert_uint_eq(s.locks[lock].qhead, SPIN_NONE);             /* the pending waiter is not queued */
	ck_assert_int_eq(spinlock_try(&s, lock, 3, 20), SPIN_QUEUE);   /* pending set: slow path */
	ck_assert_uint_eq(s.locks[lock].qtail, SPIN_NONE);             /* not queued before its xchg */
	/* first in the MCS queue: the head, spinning on the lock word beside the pending waiter */
	ck_assert_int_eq(spinlock_join(&s, lock, 3, 20, &prev), SPIN_HEAD);
	ck_assert_uint_eq(prev, SPIN_NONE);
	ck_assert_int_eq(spinlock_try(&s, lock, 1, 30), SPIN_QUEUE);
	ck_assert_int_eq(spinlock_join(&s, lock, 1, 30, &prev), SPIN_QUEUE);
	ck_assert_uint_eq(prev, 3);                                    /* 1 links behind 3 */
	spinlock_release(&s, lock, 2);
	ck_assert(spinlock_is_free(&s, lock));
	/* the pending waiter may take it, the queue head must wait for pending to clear */
	ck_assert(spinlock_free_for(&s, lock, 0));
	ck_assert(!spinlock_free_for(&s, lock, 3));
	/* free but waited for: a newcomer may not take it */
	ck_assert_int_eq(spinlock_try(&s, lock, 2, 40), SPIN_QUEUE);
	ck_assert_int_eq(spinlock_join(&s, lock, 2, 40, &prev), SPIN_QUEUE);
	ck_assert_uint_eq(prev, 1);
	ck_assert_uint_eq(spinlock_take(&s, lock, 0, 50), SPIN_NONE); /* pending -> locked: no MCS hand-off */
	ck_assert_uint_eq(s.locks[lock].pending, SPIN_NONE);
	ck_assert(!spinlock_free_for(&s, lock, 3));                   /* held by 0 now */
	spinlock_release(&s, lock, 0);
	ck_assert(spinlock_free_for(&s, lock, 3));
	ck_assert_uint_eq(spinlock_take(&s, lock, 3, 60), 1);         /* next head: 1 */
	spinlock_release(&s, lock, 3);
	ck_assert_uint_eq(spinlock_take(&s, lock, 1, 70), 2);
	spinlock_release(&s, lock, 1);
	ck_assert_uint_eq(spinlock_take(&s, lock, 2, 80), SPIN_NONE);
	spinlock_release(&s, lock, 2);
	ck_assert_uint_eq(s.locks[lock].acquisitions, 5);
	ck_assert_uint_eq(s.locks[lock].contended, 4);
	/* waits: 0: 50-10, 3: 60-20, 1: 70-30, 2: 80-40 */
	ck_assert_uint_eq(s.locks[lock].wait_ps, 40 + 40 + 40 + 40);
	spinlocks_free(&s);
}
END_TEST

START_TEST(test_join_after_release)
{
	struct spinlocks s;
	uint32_t lock, prev;

	ck_assert_int_eq(spinlocks_init(&s, 4), 0);
	lock = spinlock_add(&s);
	ck_assert_int_eq(spinlock_try(&s, lock, 0, 0), SPIN_ACQUIRED);
	ck_assert_int_eq(spinlock_try(&s, lock, 1, 1), SPIN_HEAD);
	ck_assert_int_eq(spinlock_try(&s, lock, 2, 2), SPIN_QUEUE);
	/* before 2's xchg lands, 0 releases and 1 takes over: 2 is first in the queue now */
	spinlock_release(&s, lock, 0);
	ck_assert_uint_eq(spinlock_take(&s, lock, 1, 3), SPIN_NONE);
	ck_assert_int_eq(spinlock_join(&s, lock, 2, 4, &prev), SPIN_HEAD);
	ck_assert_uint_eq(prev, SPIN_NONE);
	spinlock_release(&s, lock, 1);
	ck_assert_uint_eq(spinlock_take(&s, lock, 2, 5), SPIN_NONE);
	spinlock_release(&s, lock, 2);
	/* nobody at all: the slow path's xchg finds the lock free and takes it */
	ck_assert_int_eq(spinlock_join(&s, lock, 3, 6, &prev), SPIN_ACQUIRED);
	spinlocks_free(&s);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("spinlock");
	TCase *tc = tcase_create("queue");

	tcase_add_test(tc, test_uncontended_take_is_immediate);
	tcase_add_test(tc, test_fifo_handoff);
	tcase_add_test(tc, test_join_after_release);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run_suite(suite());
}
