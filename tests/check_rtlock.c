/* SPDX-License-Identifier: MIT */
/* PREEMPT_RT's bucket lock (models/rtlock.h and its protocol in models/task_lock.c):
 * the bookkeeping by hand (fast path, lateral steal, top waiter), and behaviour
 * that holds by construction of the kernel's rtlock: with one thread per CPU the
 * waiters behind the top one sleep (a queued spinlock's never do); with threads
 * sharing CPUs a holder preempted inside its section makes lockers sleep instead
 * of spin, costing context switches the queued spinlock (preemption off while
 * held) never pays. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>

#include "models/rtlock.h"
#include "tests/testutil.h"

#define E5 "scenarios/e5-2650-hashbench.yaml"

START_TEST(test_rtlock_bookkeeping)
{
	struct spinlocks s;
	uint32_t l;

	ck_assert_int_eq(spinlocks_init(&s, 4, NULL), 0);
	l = spinlock_add(&s);
	ck_assert(rtlock_try_fast(&s, l, 0));
	ck_assert(!rtlock_try_fast(&s, l, 1));          /* held */
	ck_assert(!rtlock_try_take(&s, l, 1, false, 10));
	rtlock_enqueue(&s, l, 1, 10);
	rtlock_enqueue(&s, l, 2, 20);
	ck_assert_uint_eq(rtlock_top(&s, l), 1);
	ck_assert_uint_eq(rtlock_release(&s, l, 0), 1); /* wake the top waiter only */
	ck_assert(!rtlock_try_fast(&s, l, 3));          /* waiters: the cmpxchg fails */
	ck_assert(rtlock_try_take(&s, l, 3, false, 30));/* a newcomer steals (equal priority) */
	ck_assert_uint_eq(rtlock_top(&s, l), 1);        /* the top waiter stays queued */
	ck_assert_uint_eq(rtlock_release(&s, l, 3), 1);
	ck_assert(rtlock_try_take(&s, l, 1, true, 50));
	ck_assert_uint_eq(rtlock_top(&s, l), 2);
	ck_assert_uint_eq(s.locks[l].acquisitions, 3);
	ck_assert_uint_eq(s.locks[l].contended, 1);
	ck_assert_uint_eq(s.locks[l].wait_ps, 40);
	spinlocks_free(&s);
}
END_TEST

struct lock_figures {
	unsigned long long ops, acquisitions, contended, switches;
	simtime_t asleep_ps;
};

static struct lock_figures run_figures(const char *scenario, const char *const *sets, size_t nsets)
{
	struct lock_figures f = { 0 };
	struct tu_run r;

	tu_run(&r, scenario, sets, nsets);
	for (uint32_t i = 0; i < r.s.tasks.n; i++) {
		f.ops += r.s.tasks.v[i].ops;
		f.switches += r.s.tasks.v[i].stats.switches_in;
		f.asleep_ps += r.s.tasks.v[i].stats.slept_ps;
	}
	for (uint32_t i = 0; i < r.s.locks.n; i++) {
		f.acquisitions += r.s.locks.locks[i].acquisitions;
		f.contended += r.s.locks.locks[i].contended;
	}
	tu_run_free(&r);
	return f;
}

/* Eight threads on eight cores, 16 buckets: the queued spinlock's waiters spin,
 * the rtlock's waiters behind the top one sleep. */
START_TEST(test_rt_waiters_sleep)
{
	const char *sets[] = { "kernel=linux-6.18", "kernel.private_hash.buckets=16", "workload.threads=8",
			       "workload.cpus=0-7", "run.duration=300us", "run.warmup=30us" };
	struct lock_figures plain = run_figures(E5, sets, 6), rt;

	sets[0] = "kernel=linux-6.18-rt";
	rt = run_figures(E5, sets, 6);
	ck_assert_uint_gt(plain.contended, 0);
	ck_assert_uint_eq(plain.asleep_ps, 0);
	ck_assert_uint_gt(rt.contended, 0);
	ck_assert_msg(rt.asleep_ps > 0, "no rtlock waiter slept");
	/* every op takes its bucket lock once, on either lock (warm-up ops aside) */
	ck_assert_uint_ge(rt.acquisitions + 8, rt.ops);
	ck_assert_uint_le(rt.acquisitions, rt.ops + 8);
}
END_TEST

/* Four threads on two CPUs, 20 us slices (fifo: a slice ends when it is used,
 * not at the next tick): only PREEMPT_RT lets a holder be
 * preempted inside its section (preemption is off under a queued spinlock); a
 * locker then finds the owner off its CPU and sleeps, giving its CPU up: more
 * context switches and time asleep, fewer ops. The queued spinlock's waiters
 * never sleep. (On one CPU alone every run would be phase-locked: equal ops,
 * slices ending at the same point of an op each time.) */
START_TEST(test_rt_owner_preempted)
{
	const char *sets[] = { "kernel=linux-6.18", "kernel.private_hash.buckets=16", "kernel.timeslice=20us",
			       "kernel.scheduler.policy=fifo", "workload.threads=4", "workload.cpus=0-1", "run.duration=2ms", "run.warmup=100us",
			       NULL };
	struct lock_figures plain = run_figures(E5, sets, 8), rt;

	sets[0] = "kernel=linux-6.18-rt";
	sets[8] = "kernel.costs.rtlock_fast=0ns"; /* the same path but for the lock */
	rt = run_figures(E5, sets, 9);
	ck_assert_uint_eq(plain.asleep_ps, 0);
	ck_assert_uint_gt(rt.asleep_ps, 0);
	ck_assert_msg(rt.switches > plain.switches, "%llu switches with RT, %llu without", rt.switches,
		      plain.switches);
	ck_assert_uint_lt(rt.ops, plain.ops);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("rtlock");
	TCase *tc = tcase_create("rtlock");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_rtlock_bookkeeping);
	tcase_add_test(tc, test_rt_waiters_sleep);
	tcase_add_test(tc, test_rt_owner_preempted);
	suite_add_tcase(s, tc);
	return tu_run_suite(s);
}
