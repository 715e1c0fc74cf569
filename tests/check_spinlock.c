/* SPDX-License-Identifier: MIT */
/* Tests of models/spinlock.c: the qspinlock's pending waiter, then the MCS queue
 * in order (FIFO), only the pending waiter and the queue head spin on the lock
 * word, and waiting time is accounted from queueing to taking; CNA's hand-offs
 * within the taker's node and its secondary queue, on hand-worked sequences. */
#include <check.h>

#include "models/spinlock.h"
#include "tests/testutil.h"

START_TEST(test_uncontended_take_is_immediate)
{
	struct spinlocks s;
	uint32_t lock;

	ck_assert_int_eq(spinlocks_init(&s, 4, NULL), 0);
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

	ck_assert_int_eq(spinlocks_init(&s, 4, NULL), 0);
	lock = spinlock_add(&s);
	ck_assert_int_eq(spinlock_try(&s, lock, 2, 0), SPIN_ACQUIRED); /* 2 holds */
	ck_assert_int_eq(spinlock_try(&s, lock, 0, 10), SPIN_HEAD);    /* nobody waits: 0 sets pending */
	ck_assert_uint_eq(s.locks[lock].pending, 0);
	ck_assert_uint_eq(s.locks[lock].qhead, SPIN_NONE);             /* the pending waiter is not queued */
	ck_assert_int_eq(spinlock_try(&s, lock, 3, 20), SPIN_QUEUE);   /* pending set: slow path */
	ck_assert_uint_eq(s.locks[lock].qtail, SPIN_NONE);             /* not queued before its xchg */
	/* first in the MCS queue: the head, spinning on the lock word beside the pending waiter */
	ck_assert_int_eq(spinlock_join(&s, lock, 3, 20, 0, &prev), SPIN_HEAD);
	ck_assert_uint_eq(prev, SPIN_NONE);
	ck_assert_int_eq(spinlock_try(&s, lock, 1, 30), SPIN_QUEUE);
	ck_assert_int_eq(spinlock_join(&s, lock, 1, 30, 0, &prev), SPIN_QUEUE);
	ck_assert_uint_eq(prev, 3);                                    /* 1 links behind 3 */
	spinlock_release(&s, lock, 2);
	ck_assert(spinlock_is_free(&s, lock));
	/* the pending waiter may take it, the queue head must wait for pending to clear */
	ck_assert(spinlock_free_for(&s, lock, 0));
	ck_assert(!spinlock_free_for(&s, lock, 3));
	/* free but waited for: a newcomer may not take it */
	ck_assert_int_eq(spinlock_try(&s, lock, 2, 40), SPIN_QUEUE);
	ck_assert_int_eq(spinlock_join(&s, lock, 2, 40, 0, &prev), SPIN_QUEUE);
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

	ck_assert_int_eq(spinlocks_init(&s, 4, NULL), 0);
	lock = spinlock_add(&s);
	ck_assert_int_eq(spinlock_try(&s, lock, 0, 0), SPIN_ACQUIRED);
	ck_assert_int_eq(spinlock_try(&s, lock, 1, 1), SPIN_HEAD);
	ck_assert_int_eq(spinlock_try(&s, lock, 2, 2), SPIN_QUEUE);
	/* before 2's xchg lands, 0 releases and 1 takes over: 2 is first in the queue now */
	spinlock_release(&s, lock, 0);
	ck_assert_uint_eq(spinlock_take(&s, lock, 1, 3), SPIN_NONE);
	ck_assert_int_eq(spinlock_join(&s, lock, 2, 4, 0, &prev), SPIN_HEAD);
	ck_assert_uint_eq(prev, SPIN_NONE);
	spinlock_release(&s, lock, 1);
	ck_assert_uint_eq(spinlock_take(&s, lock, 2, 5), SPIN_NONE);
	spinlock_release(&s, lock, 2);
	/* nobody at all: the slow path's xchg finds the lock free and takes it */
	ck_assert_int_eq(spinlock_join(&s, lock, 3, 6, 0, &prev), SPIN_ACQUIRED);
	spinlocks_free(&s);
}
END_TEST

/* A CNA lock held by `holder`, with waiters queued in `order` from the nodes
 * `node[r]`, the first in `order` the MCS head. */
static uint32_t cna_queue_up(struct spinlocks *s, uint32_t holder, const uint32_t *order, size_t n,
			     const uint32_t *node)
{
	uint32_t lock, prev;

	ck_assert_int_eq(spinlocks_init(s, 8, spin_variant_find("cna")), 0);
	lock = spinlock_add(s);
	ck_assert_int_eq(spinlock_try(s, lock, holder, 0), SPIN_ACQUIRED);
	for (size_t i = 0; i < n; i++)
		ck_assert_int_eq(spinlock_join(s, lock, order[i], (simtime_t)(10 * (i + 1)), node[order[i]], &prev),
				 i == 0 ? SPIN_HEAD : SPIN_QUEUE);
	return lock;
}

/* The head hands over to the next waiter of its node; the waiters it skips keep
 * their order in the secondary queue, which comes back once its node has none
 * left in the main queue. Nodes: 0, 1 and 4 on node 0; 2, 3 and 5 on node 1. */
START_TEST(test_cna_handoff_stays_on_node)
{
	static const uint32_t node[8] = { 0, 0, 1, 1, 0, 1, 0, 0 };
	static const uint32_t order[] = { 1, 2, 3, 4, 5 };
	struct spinlocks s;
	uint32_t lock = cna_queue_up(&s, 0, order, 5, node);

	spinlock_release(&s, lock, 0);
	/* 1 (node 0) takes it: 2 and 3 (node 1) are skipped for 4 */
	ck_assert_uint_eq(spinlock_take(&s, lock, 1, 100), 4);
	ck_assert_uint_eq(s.secondary[lock].head, 2);
	ck_assert_uint_eq(s.secondary[lock].tail, 3);
	ck_assert_uint_eq(s.next[3], SPIN_NONE);
	ck_assert_uint_eq(s.locks[lock].qhead, 4);
	ck_assert_uint_eq(s.locks[lock].qtail, 5);
	spinlock_release(&s, lock, 1);
	/* 4 (node 0) takes it: nobody of node 0 left in the main queue (only 5), so the
	 * secondary queue goes first: 2, 3, then 5 */
	ck_assert_uint_eq(spinlock_take(&s, lock, 4, 200), 2);
	ck_assert_uint_eq(s.secondary[lock].head, SPIN_NONE);
	ck_assert_uint_eq(s.next[2], 3);
	ck_assert_uint_eq(s.next[3], 5);
	spinlock_release(&s, lock, 4);
	ck_assert_uint_eq(spinlock_take(&s, lock, 2, 300), 3); /* node 1 to node 1 */
	spinlock_release(&s, lock, 2);
	ck_assert_uint_eq(spinlock_take(&s, lock, 3, 400), 5);
	spinlock_release(&s, lock, 3);
	ck_assert_uint_eq(spinlock_take(&s, lock, 5, 500), SPIN_NONE);
	ck_assert_uint_eq(s.locks[lock].qtail, SPIN_NONE);
	ck_assert_uint_eq(s.locks[lock].acquisitions, 6);
	spinlocks_free(&s);
}
END_TEST

/* With the main queue empty, the secondary queue comes back whole, and its tail
 * becomes the queue's tail (newcomers link behind it). */
START_TEST(test_cna_secondary_returns_when_main_empties)
{
	static const uint32_t node[8] = { 0, 0, 1, 1, 0, 0, 0, 0 };
	static const uint32_t order[] = { 1, 2, 3, 4 };
	struct spinlocks s;
	uint32_t lock = cna_queue_up(&s, 0, order, 4, node), prev;

	spinlock_release(&s, lock, 0);
	ck_assert_uint_eq(spinlock_take(&s, lock, 1, 100), 4); /* 2, 3 to the secondary queue */
	spinlock_release(&s, lock, 1);
	ck_assert_uint_eq(spinlock_take(&s, lock, 4, 200), 2); /* main queue empty: 2, 3 come back */
	ck_assert_uint_eq(s.locks[lock].qtail, 3);
	ck_assert_int_eq(spinlock_join(&s, lock, 5, 210, 0, &prev), SPIN_QUEUE);
	ck_assert_uint_eq(prev, 3);
	spinlocks_free(&s);
}
END_TEST

/* The same queue under qspinlock: arrival order, whatever the nodes. */
START_TEST(test_qspinlock_ignores_nodes)
{
	struct spinlocks s;
	uint32_t lock, prev;

	ck_assert_int_eq(spinlocks_init(&s, 8, spin_variant_find("qspinlock")), 0);
	lock = spinlock_add(&s);
	ck_assert_int_eq(spinlock_try(&s, lock, 0, 0), SPIN_ACQUIRED);
	ck_assert_int_eq(spinlock_join(&s, lock, 1, 10, 0, &prev), SPIN_HEAD);
	ck_assert_int_eq(spinlock_join(&s, lock, 2, 20, 1, &prev), SPIN_QUEUE);
	ck_assert_int_eq(spinlock_join(&s, lock, 4, 30, 0, &prev), SPIN_QUEUE);
	spinlock_release(&s, lock, 0);
	ck_assert_uint_eq(spinlock_take(&s, lock, 1, 100), 2);
	ck_assert_ptr_null(s.secondary);
	ck_assert_ptr_null(spin_variant_find("ticket"));
	spinlocks_free(&s);
}
END_TEST

/* After CNA_LOCAL_HANDOFFS hand-offs in a row on one node while others waited,
 * the secondary queue goes first even though the node still has waiters. */
START_TEST(test_cna_fairness_threshold)
{
	static const uint32_t node[8] = { 0, 0, 1, 0, 0, 0, 0, 0 };
	static const uint32_t order[] = { 1, 2, 3 };
	struct spinlocks s;
	uint32_t lock = cna_queue_up(&s, 0, order, 3, node), prev;

	spinlock_release(&s, lock, 0);
	ck_assert_uint_eq(spinlock_take(&s, lock, 1, 100), 3); /* 2 waits in the secondary queue */
	ck_assert_uint_eq(s.secondary[lock].local_handoffs, 1);
	/* 0 and 1 keep coming back on node 0: the threshold, reached, sends 2 first */
	s.secondary[lock].local_handoffs = CNA_LOCAL_HANDOFFS;
	ck_assert_int_eq(spinlock_join(&s, lock, 0, 110, 0, &prev), SPIN_QUEUE);
	spinlock_release(&s, lock, 1);
	ck_assert_uint_eq(spinlock_take(&s, lock, 3, 200), 2);
	ck_assert_uint_eq(s.next[2], 0);
	ck_assert_uint_eq(s.secondary[lock].local_handoffs, 0);
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
	tcase_add_test(tc, test_cna_handoff_stays_on_node);
	tcase_add_test(tc, test_cna_secondary_returns_when_main_empties);
	tcase_add_test(tc, test_qspinlock_ignores_nodes);
	tcase_add_test(tc, test_cna_fairness_threshold);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run_suite(suite());
}
