/* Tests of models/spinlock.c: the qspinlock queue is FIFO, only the head spins,
 * and waiting time is accounted from queueing to taking. */
#include <check.h>

#include "models/spinlock.h"
#include "tests/testutil.h"

START_TEST(test_uncontended_take_is_immediate)
{
	struct spinlocks s;
	uint32_t lock;
	bool spin = true;

	ck_assert_int_eq(spinlocks_init(&s, 4), 0);
	lock = spinlock_add(&s, 7);
	ck_assert_uint_eq(s.locks[lock].line, 7);
	ck_assert(spinlock_try_or_queue(&s, lock, 0, 100, &spin));
	ck_assert(!spin);
	ck_assert_uint_eq(s.locks[lock].holder, 0);
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
	uint32_t lock;
	bool spin;

	ck_assert_int_eq(spinlocks_init(&s, 4), 0);
	lock = spinlock_add(&s, 0);
	ck_assert(spinlock_try_or_queue(&s, lock, 2, 0, &spin));      /* 2 holds */
	ck_assert(!spinlock_try_or_queue(&s, lock, 0, 10, &spin));    /* 0 queues first: head, spins */
	ck_assert(spin);
	ck_assert(!spinlock_try_or_queue(&s, lock, 3, 20, &spin));    /* 3 behind 0: MCS wait */
	ck_assert(!spin);
	ck_assert(!spinlock_try_or_queue(&s, lock, 1, 30, &spin));    /* 1 behind 3 */
	ck_assert(!spin);
	ck_assert(!spinlock_is_free(&s, lock));
	spinlock_release(&s, lock, 2);
	ck_assert(spinlock_is_free(&s, lock));
	/* free but queued: a newcomer may not take it */
	ck_assert(!spinlock_try_or_queue(&s, lock, 2, 40, &spin));
	ck_assert(!spin);
	ck_assert_uint_eq(spinlock_take(&s, lock, 0, 50), 3); /* next head: 3 */
	spinlock_release(&s, lock, 0);
	ck_assert_uint_eq(spinlock_take(&s, lock, 3, 60), 1);
	spinlock_release(&s, lock, 3);
	ck_assert_uint_eq(spinlock_take(&s, lock, 1, 70), 2);
	spinlock_release(&s, lock, 1);
	ck_assert_uint_eq(spinlock_take(&s, lock, 2, 80), SPIN_NONE);
	spinlock_release(&s, lock, 2);
	ck_assert_uint_eq(s.locks[lock].acquisitions, 5);
	ck_assert_uint_eq(s.locks[lock].contended, 4);
	/* waits: 0: 50-10, 3: 60-20, 1: 70-30, 2: 80-40 */
	ck_assert_uint_eq(s.locks[lock].wait_ps, 40 + 40 + 40 + 40);
	/* empty again: the next taker does not queue */
	ck_assert(spinlock_try_or_queue(&s, lock, 0, 90, &spin));
	spinlocks_free(&s);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("spinlock");
	TCase *tc = tcase_create("queue");

	tcase_add_test(tc, test_uncontended_take_is_immediate);
	tcase_add_test(tc, test_fifo_handoff);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run_suite(suite());
}
