/* SPDX-License-Identifier: MIT */
/* The schbench workload (models/workloads/schbench.h), by construction of its
 * protocol: with a CPU for every thread, every worker is served; a ping-pong of one
 * message thread and one worker, each always asleep when the other posts, costs four
 * futex calls per request (the post's FUTEX_WAKE and the wait's FUTEX_WAIT on each
 * side), fewer only when a post finds its peer still awake; wake-up latencies are
 * positive. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "tests/testutil.h"

#define SCH "scenarios/workloads/schbench.yaml"

START_TEST(test_every_worker_served)
{
	const char *sets[] = { "machine=small-1node", "workload.message_threads=2", "workload.workers=3",
			       "run.duration=1ms", "run.warmup=100us" };
	struct tu_run r;
	uint64_t requests = 0;

	tu_run(&r, SCH, sets, 5);
	/* tasks: the 2 message threads, then 2 x 3 workers */
	for (uint32_t i = 0; i < 8; i++) {
		if (i < 2)
			ck_assert_uint_eq(r.s.tasks.v[i].ops, 0);
		else
			ck_assert_msg(r.s.tasks.v[i].ops > 10, "worker %u: %llu requests", i,
				      (unsigned long long)r.s.tasks.v[i].ops);
		requests += r.s.tasks.v[i].ops;
	}
	ck_assert_uint_eq((uint64_t)tu_figure(&r, "requests"), requests);
	/* each request's wake-up latency: after the message thread's pass, never before */
	ck_assert(tu_figure(&r, "wakeup_latency_p50") > 0);
	ck_assert(tu_figure(&r, "wakeup_latency_p99") >= tu_figure(&r, "wakeup_latency_p50"));
	tu_run_free(&r);
}
END_TEST

START_TEST(test_ping_pong_four_calls)
{
	const char *sets[] = { "machine=small-1node", "workload.message_threads=1", "workload.workers=1",
			       "run.duration=1ms", "run.warmup=100us" };
	struct tu_run r;
	double calls;

	tu_run(&r, SCH, sets, 5);
	calls = tu_figure(&r, "futex_calls_per_request");
	ck_assert_msg(calls > 3.0 && calls <= 4.01, "%.3f futex calls per request", calls);
	ck_assert_uint_gt((uint64_t)tu_figure(&r, "requests"), 100);
	tu_run_free(&r);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("schbench");
	TCase *tc = tcase_create("schbench");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_every_worker_served);
	tcase_add_test(tc, test_ping_pong_four_calls);
	suite_add_tcase(s, tc);
	return tu_run_suite(s);
}
