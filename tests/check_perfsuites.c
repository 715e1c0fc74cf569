/* SPDX-License-Identifier: MIT */
/* perf bench futex's wake, wake-parallel, requeue and lock-pi suites as workloads
 * (models/workloads/perfwake.h, models/workloads/lockpi.h), by construction: a wake
 * run wakes exactly its N blocked threads, every thread once per run, whatever the
 * calls' size; FUTEX_WAKE and FUTEX_CMP_REQUEUE take waiters in the order they
 * queued (the bucket's plist at one priority is FIFO), so threads come back in the
 * order they went to sleep; the runs all happen and the simulation ends after the
 * last. FUTEX_LOCK_PI keeps mutual exclusion and FUTEX_UNLOCK_PI hands the word to
 * the first waiter: threads sharing one PI futex take equal turns. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "tests/testutil.h"

#define WAKE "scenarios/workloads/wake.yaml"

/* Each of the N threads back once per run, and nothing else. */
static void check_every_thread_each_run(const struct tu_run *r, uint32_t n, uint32_t runs)
{
	ck_assert(r->s.tasks.finished);
	ck_assert_uint_eq((uint32_t)tu_figure(r, "runs"), runs);
	for (uint32_t i = 0; i < n; i++)
		ck_assert_uint_eq(r->s.tasks.v[i].ops, runs);
}

START_TEST(test_wake_wakes_exactly_n)
{
	static const char *const nwakes[] = { "workload.nwake=1", "workload.nwake=3", "workload.nwake=64" };

	for (int k = 0; k < 3; k++) {
		const char *sets[] = { "workload.threads=12", nwakes[k], "workload.runs=4" };
		struct tu_run r;

		tu_run(&r, WAKE, sets, 3);
		check_every_thread_each_run(&r, 12, 4);
		ck_assert_uint_eq((uint32_t)tu_figure(&r, "waiters_woken"), 4 * 12);
		tu_run_free(&r);
	}
}
END_TEST

START_TEST(test_wake_parallel_shares)
{
	const char *sets[] = { "workload={type: wake-parallel, threads: 12, wakers: 4, runs: 3}", "run.warmup=0us" };
	struct tu_run r;

	tu_run(&r, WAKE, sets, 2);
	check_every_thread_each_run(&r, 12, 3);
	ck_assert_uint_eq((uint32_t)tu_figure(&r, "waiters_woken"), 3 * 12);
	tu_run_free(&r);
}
END_TEST

/* Threads come back in the order they fell asleep on futex1 (their last sleep). */
static void check_fifo(const struct tu_run *r, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t j = 0; j < n; j++) {
			const struct task *a = &r->s.tasks.v[i], *b = &r->s.tasks.v[j];

			if (a->wait.slept_at < b->wait.slept_at)
				ck_assert_msg(a->clock < b->clock,
					      "thread %u slept at %llu before thread %u (%llu) but came back at %llu, "
					      "not before %llu",
					      i, (unsigned long long)a->wait.slept_at, j, (unsigned long long)b->wait.slept_at,
					      (unsigned long long)a->clock, (unsigned long long)b->clock);
		}
}

START_TEST(test_requeue_in_order)
{
	static const char *const how[] = { "workload={type: requeue, threads: 8, nrequeue: 1, runs: 2}",
					   "workload={type: requeue, threads: 8, nrequeue: 3, runs: 2}",
					   "workload={type: requeue, threads: 8, broadcast: true, runs: 2}" };

	for (int k = 0; k < 3; k++) {
		const char *sets[] = { how[k] };
		struct tu_run r;

		tu_run(&r, WAKE, sets, 1);
		check_every_thread_each_run(&r, 8, 2);
		ck_assert_uint_eq((uint32_t)tu_figure(&r, "waiters_requeued"), 2 * 8);
		ck_assert_uint_eq((uint32_t)tu_figure(&r, "waiters_woken"), 2 * 8);
		check_fifo(&r, 8);
		tu_run_free(&r);
	}
}
END_TEST

/* requeue -p: FUTEX_CMP_REQUEUE_PI gives futex2 to the first waiter or moves waiters
 * onto it; each owner passes it on by FUTEX_UNLOCK_PI, in queueing order, one at a
 * time; every thread comes back once per run owning futex2. */
START_TEST(test_requeue_pi)
{
	static const char *const how[] = { "workload={type: requeue, threads: 8, pi: true, runs: 2}",
					   "workload={type: requeue, threads: 8, pi: true, nrequeue: 3, runs: 2}",
					   "workload={type: requeue, threads: 8, pi: true, broadcast: true, runs: 2}" };

	for (int k = 0; k < 3; k++) {
		const char *sets[] = { how[k] };
		struct tu_run r;

		tu_run(&r, WAKE, sets, 1);
		check_every_thread_each_run(&r, 8, 2);
		ck_assert_uint_eq((uint32_t)(tu_figure(&r, "waiters_requeued") + tu_figure(&r, "waiters_woken")), 2 * 8);
		ck_assert_uint_ge((uint32_t)tu_figure(&r, "waiters_woken"), 2); /* the first of each run, at least */
		ck_assert_uint_eq((uint32_t)tu_figure(&r, "mutual_exclusion_violations"), 0);
		check_fifo(&r, 8);
		tu_run_free(&r);
	}
}
END_TEST

START_TEST(test_wake_one_at_a_time_in_order)
{
	const char *sets[] = { "workload.threads=8", "workload.runs=1" };
	struct tu_run r;

	tu_run(&r, WAKE, sets, 2);
	check_fifo(&r, 8);
	tu_run_free(&r);
}
END_TEST

/* perf's workers return once woken and exit (machine sched.thread_exit): each blocked
 * thread does its exit's work exactly once a run, as its own time on its CPU (no SMT
 * slowdown, no library call around it here); every run still happens; and on two CPUs, where the waker shares its
 * CPU with half the workers, the exits of those that preempt it lengthen its timed loop
 * by at least one exit a run (without them a run takes microseconds). */
START_TEST(test_wake_thread_exit)
{
	const char *plain[] = { "workload.threads=4", "workload.runs=3", "workload.cpus=0-1",
				"machine.costs.smt_slowdown=1", "workload.lock_call=0ns" };
	const char *exits[] = { "workload.threads=4", "workload.runs=3", "workload.cpus=0-1",
				"machine.costs.smt_slowdown=1", "machine.sched.thread_exit=40us", "workload.lock_call=0ns" };
	struct tu_run a, b;

	tu_run(&a, WAKE, plain, 5);
	tu_run(&b, WAKE, exits, 6);
	check_every_thread_each_run(&a, 4, 3);
	check_every_thread_each_run(&b, 4, 3);
	for (uint32_t i = 0; i < 4; i++)
		ck_assert_uint_eq(b.s.tasks.v[i].acct.time_ps[TC_USER_WORK] - a.s.tasks.v[i].acct.time_ps[TC_USER_WORK],
				  3 * 40 * PS_PER_US);
	ck_assert_double_lt(tu_figure(&a, "run_time_mean"), 20e6);
	ck_assert_double_ge(tu_figure(&b, "run_time_mean"), tu_figure(&a, "run_time_mean") + 40e6);
	tu_run_free(&a);
	tu_run_free(&b);
}
END_TEST

/* The waker pays sched.ipi_send for each wake-up that sends an IPI, and only those:
 * four threads asleep on four other idle CPUs of the E5; in a state that does not
 * poll (a VM's HLT) each of the run's four wake-ups sends one and the run takes
 * 4 x ipi_send longer; in the E5's own MWAIT states (they poll) none does
 * and nothing changes. */
START_TEST(test_wake_ipi_send)
{
	static const char hlt[] = "machine.sched.idle_states=[{name: HLT, exit_latency: 1us, target_residency: 1us}]";

	for (int k = 0; k < 2; k++) { /* k 0: a VM's HLT; 1: the E5's own states */
		const char *plain[] = { "workload.threads=4", "workload.runs=3", hlt };
		const char *sends[] = { "workload.threads=4", "workload.runs=3", "machine.sched.ipi_send=2us", hlt };
		struct tu_run a, b;
		uint64_t ipis = 0;

		tu_run(&a, WAKE, plain, k == 0 ? 3 : 2);
		tu_run(&b, WAKE, sends, k == 0 ? 4 : 3);
		for (uint32_t i = 0; i < 4; i++)
			ipis += b.s.tasks.v[i].stats.wake_ipis;
		ck_assert_uint_eq(ipis, k == 0 ? 3 * 4 : 0);
		/* the sends, give or take the line transfers the later wake-ups then meet at
		 * other moments (the woken threads' returns touch the bucket and the word) */
		if (k == 0)
			ck_assert_double_eq_tol(tu_figure(&b, "run_time_mean") - tu_figure(&a, "run_time_mean"), 4 * 2e6,
						0.25e6);
		else
			ck_assert_double_eq(tu_figure(&b, "run_time_mean"), tu_figure(&a, "run_time_mean"));
		tu_run_free(&a);
		tu_run_free(&b);
	}
}
END_TEST

#define LOCKPI "scenarios/workloads/lock-pi.yaml"

static uint64_t thread_ops(const struct tu_run *r, uint32_t n, uint64_t *min, uint64_t *max)
{
	uint64_t sum = 0;

	*min = UINT64_MAX;
	*max = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint64_t ops = r->s.tasks.v[i].ops;

		sum += ops;
		*min = ops < *min ? ops : *min;
		*max = ops > *max ? ops : *max;
	}
	return sum;
}

/* One futex for all: exclusion, and the hand-off to the first waiter makes the
 * threads take turns; also with threads sharing CPUs and no sleep while holding. */
START_TEST(test_lock_pi_exclusion_and_turns)
{
	static const char *const how[][3] = {
		{ "workload.threads=4", "workload.cpus=all", "workload.usleep=1us" },
		{ "workload.threads=6", "workload.cpus=0-1", "workload.usleep=0us" },
	};

	for (int k = 0; k < 2; k++) {
		const char *sets[] = { how[k][0], how[k][1], how[k][2] };
		struct tu_run r;
		uint64_t min, max, ops;
		uint32_t n = k ? 6 : 4;

		tu_run(&r, LOCKPI, sets, 3);
		ops = thread_ops(&r, n, &min, &max);
		/* several turns each: on the small machine's idle states a turn is about 0.3 ms
		 * (the holder's 51 us sleep, then two CPUs woken from C6, docs/model.md) */
		ck_assert_uint_gt(ops, 3 * n);
		ck_assert_uint_eq((uint64_t)tu_figure(&r, "mutual_exclusion_violations"), 0);
		ck_assert_uint_eq((uint64_t)tu_figure(&r, "lock_unlock_pairs"), ops);
		if (k == 0) {
			/* everyone else is always queued: each unlock hands off, in turn */
			ck_assert_uint_le(max - min, 1);
			ck_assert_uint_ge((uint64_t)tu_figure(&r, "handoffs") + n, ops);
		}
		tu_run_free(&r);
	}
}
END_TEST

/* A futex each (perf -M): never contended, so never handed off; each pair takes
 * the sleep (usleep + timer slack), the timer's wake-up of the idle CPU and two
 * syscalls' paths. The small machine's menu governor, once it has seen 8 idle
 * periods of about 51 us (before the 2 ms warm-up ends), picks C1E (the deepest
 * state whose 20 us residency fits): 10 us to exit it and 1 us wake_to_run. */
START_TEST(test_lock_pi_multi_uncontended)
{
	const char *sets[] = { "workload.multi=true", "workload.threads=4", "run.warmup=2ms" };
	struct tu_run r;
	uint64_t min, max;
	double most;

	tu_run(&r, LOCKPI, sets, 3);
	/* window / (1 + 50 + 10 + 1 us) is the most a thread can do */
	most = (double)(r.s.tasks.window_end - r.s.tasks.window_start) / (62.0 * PS_PER_US);
	thread_ops(&r, 4, &min, &max);
	ck_assert_uint_eq((uint64_t)tu_figure(&r, "handoffs"), 0);
	ck_assert_uint_eq((uint64_t)tu_figure(&r, "mutual_exclusion_violations"), 0);
	ck_assert_msg(max <= most + 1 && min >= 0.9 * most - 1, "ops per thread %llu..%llu, at most %.1f",
		      (unsigned long long)min, (unsigned long long)max, most);
	tu_run_free(&r);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("perfsuites");
	TCase *tc = tcase_create("perfsuites");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_wake_wakes_exactly_n);
	tcase_add_test(tc, test_wake_parallel_shares);
	tcase_add_test(tc, test_requeue_in_order);
	tcase_add_test(tc, test_requeue_pi);
	tcase_add_test(tc, test_wake_one_at_a_time_in_order);
	tcase_add_test(tc, test_wake_thread_exit);
	tcase_add_test(tc, test_wake_ipi_send);
	tcase_add_test(tc, test_lock_pi_exclusion_and_turns);
	tcase_add_test(tc, test_lock_pi_multi_uncontended);
	suite_add_tcase(s, tc);
	return tu_run_suite(s);
}
