/* SPDX-License-Identifier: MIT */
/* The locktorture workload (models/workloads/locktorture.h): one writer alone runs
 * its loop at the period its costs add up to by hand; the delays add what the
 * source's odds give; two writers go faster the closer their CPUs (SMT siblings,
 * one socket, two sockets); every pass is one acquisition of the one lock; CNA
 * beats the FIFO qspinlock once the writers cover every socket. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tests/testutil.h"

#define LT "scenarios/validation/e7-locktorture-2021.yaml"

static uint64_t total_ops(const struct sim *s)
{
	uint64_t sum = 0;

	for (uint32_t i = 0; i < s->nthreads; i++)
		sum += s->tasks.v[i].ops;
	return sum;
}

/* One writer on CPU 0 of the E7 (2.5 GHz: a cycle is 400 ps), every line its own
 * after the first pass, so every access hits:
 *   loop_work 100 cycles                                    40,000 ps
 *   spin_lock: the cmpxchg, an atomic hit (20 cycles)        8,000
 *   lock_is_write_held: load as a store, store, load         3 x 1,600 (line_hit 4 cycles)
 *   n_lock_acquired++: load as a store, store                2 x 1,600
 *   cs_work 150 cycles                                      60,000
 *   lock_is_write_held = false, spin_unlock's store          2 x 1,600
 * = 119,200 ps a pass: 2 ms hold 16,778.5 passes. With each delay at its mean
 * (0.5 us / 1 writer each, 1 us in all): 1,119,200 ps, 1,787.0 passes. */
START_TEST(test_lone_writer_period)
{
	static const char *const off[] = { "workload.threads=1", "workload.cpus=0", "workload.short_delay=off",
					   "workload.long_delay=off", "run.duration=2ms" };
	static const char *const mean[] = { "workload.threads=1", "workload.cpus=0", "workload.short_delay=mean",
					    "workload.long_delay=mean", "run.duration=2ms" };
	struct tu_run r;

	tu_run(&r, LT, off, 5);
	ck_assert_uint_eq(r.s.m->line_hit_ps, 1600);
	ck_assert_uint_eq(r.s.m->atomic_hit_ps, 8000);
	ck_assert_uint_ge(total_ops(&r.s), 16778);
	ck_assert_uint_le(total_ops(&r.s), 16779);
	/* never contended (a lone writer runs ahead of the engine on lines only it
	 * uses, so the lock's counters, restarted at the window's engine time, do not
	 * count its passes: the acquisitions are checked with two writers below) */
	ck_assert_double_eq(tu_figure(&r, "lock_contended"), 0);
	tu_run_free(&r);

	tu_run(&r, LT, mean, 5);
	ck_assert_uint_ge(total_ops(&r.s), 1786);
	ck_assert_uint_le(total_ops(&r.s), 1788);
	tu_run_free(&r);
}
END_TEST

/* The short delay as the source draws it: 1 in 2 x 2 x 1 = 4 passes of a lone
 * writer; its mean adds 0.5 us a pass, as `mean` does (within the draw's noise). */
START_TEST(test_short_delay_odds)
{
	static const char *const sets[] = { "workload.threads=1", "workload.cpus=0", "workload.long_delay=off",
					    "run.duration=5ms" };
	struct tu_run r;
	double ops, delays, sd;

	tu_run(&r, LT, sets, 4);
	ops = (double)total_ops(&r.s);
	delays = tu_figure(&r, "short_delays");
	sd = sqrt(ops * 0.25 * 0.75);
	ck_assert_msg(fabs(delays - ops / 4) < 4 * sd, "%.0f short delays in %.0f passes, expected a quarter", delays,
		      ops);
	/* 119.2 ns + 2 us / 4 a pass: 5 ms hold 8,075 passes on average */
	ck_assert_msg(fabs(ops - 8075) < 8075 * 0.03, "%.0f passes in 5 ms, expected about 8075", ops);
	ck_assert_double_eq(tu_figure(&r, "long_delays"), 0);
	tu_run_free(&r);
}
END_TEST

/* Two writers hand the lock and the lines it protects to each other: the nearer
 * their CPUs, the cheaper each hand-off, the more passes. */
START_TEST(test_two_writers_by_distance)
{
	static const char *const cpus[] = { "workload.cpus=0,72", "workload.cpus=0,1", "workload.cpus=0,18" };
	static const char *const names[] = { "SMT siblings", "one socket", "two sockets" };
	uint64_t ops[3];

	for (int c = 0; c < 3; c++) {
		const char *sets[] = { "workload.threads=2", cpus[c], "run.duration=2ms" };
		struct tu_run r;

		tu_run(&r, LT, sets, 3);
		ops[c] = total_ops(&r.s);
		ck_assert_double_eq_tol(tu_figure(&r, "lock_acquisitions"), (double)ops[c], 2);
		ck_assert_double_gt(tu_figure(&r, "lock_contended"), 0);
		tu_run_free(&r);
	}
	for (int c = 1; c < 3; c++)
		ck_assert_msg(ops[c - 1] > ops[c] * 11 / 10, "%s: %llu passes, %s: %llu; expected 10%% more", names[c - 1],
			      (unsigned long long)ops[c - 1], names[c], (unsigned long long)ops[c]);
}
END_TEST

/* 36 writers spread over the four sockets: the compact NUMA-aware lock keeps the
 * lock in a socket, the FIFO qspinlock crosses most of the time. */
START_TEST(test_cna_beats_fifo_across_sockets)
{
	static const char *const fifo[] = { "workload.threads=36", "run.duration=2ms" };
	static const char *const cna[] = { "workload.threads=36", "run.duration=2ms", "kernel.spinlock=cna" };
	struct tu_run a, b;

	tu_run(&a, LT, fifo, 2);
	tu_run(&b, LT, cna, 3);
	ck_assert_msg(total_ops(&b.s) > total_ops(&a.s) * 5 / 4, "cna %llu passes, qspinlock %llu",
		      (unsigned long long)total_ops(&b.s), (unsigned long long)total_ops(&a.s));
	tu_run_free(&a);
	tu_run_free(&b);
}
END_TEST

/* The lines the loop touches, and nothing of the futex tables. */
START_TEST(test_lines_touched)
{
	static const char *const sets[] = { "workload.threads=8", "run.duration=1ms" };
	struct tu_run r;

	tu_run(&r, LT, sets, 2);
	ck_assert_uint_gt(tu_transfers_of(&r.s, "torture_spinlock"), 0);
	ck_assert_uint_gt(tu_transfers_of(&r.s, "lock_is_write_held"), 0);
	ck_assert_uint_gt(tu_transfers_of(&r.s, "lock_stress_stats"), 0);
	ck_assert_uint_eq(tu_transfers_of(&r.s, "global"), 0);
	ck_assert_uint_eq(tu_transfers_of(&r.s, "private hash"), 0);
	tu_run_free(&r);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("locktorture");
	TCase *tc = tcase_create("locktorture");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_lone_writer_period);
	tcase_add_test(tc, test_short_delay_odds);
	tcase_add_test(tc, test_two_writers_by_distance);
	tcase_add_test(tc, test_cna_beats_fifo_across_sockets);
	tcase_add_test(tc, test_lines_touched);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run_suite(suite());
}
