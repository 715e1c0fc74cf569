/* SPDX-License-Identifier: MIT */
/* The calibration regression check: a few published points, simulated as at the
 * last fit (tests/regression/calibration.tsv, written by `make regression-data`),
 * must stay within their fitted error plus a margin. A model change that breaks
 * the calibration fails here; a deliberate one is followed by `make calibrate`
 * and `make regression-data`. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "analysis/points.h"
#include "tests/testutil.h"

#define DATA "tests/regression/calibration.tsv"
/* percentage points a point's error may grow beyond its error at the fit */
#define MARGIN_PCT 5.0

START_TEST(test_points_stay_calibrated)
{
	struct points p;
	struct fs_error e = { 0 };
	int bad = 0;

	ck_assert_msg(points_load(&p, DATA, NULL, NULL, &e) == 0, "%s", e.msg);
	ck_assert_uint_ge(p.n, 6);
	ck_assert_msg(points_run(&p, NULL, 0, 2, &e) == 0, "%s", e.msg);
	for (size_t i = 0; i < p.n; i++) {
		const struct point *pt = &p.v[i];
		double err = point_error_pct(pt), allowed = fabs(pt->expected_error_pct) + MARGIN_PCT;

		ck_assert_msg(!isnan(pt->expected_error_pct), "%s: point %zu has no fitted error", DATA, i);
		printf("  %-14s %-28s %6llu  published %10.0f  simulated %10.0f  error %+6.1f%% (fit %+6.1f%%)\n",
		       pt->table, pt->series, (unsigned long long)pt->x, pt->published, pt->simulated, err,
		       pt->expected_error_pct);
		if (fabs(err) > allowed) {
			fprintf(stderr, "%s/%s/%llu: error %+.1f%%, allowed +-%.1f%%\n", pt->table, pt->series,
				(unsigned long long)pt->x, err, allowed);
			bad++;
		}
	}
	points_free(&p);
	ck_assert_msg(bad == 0, "%d calibrated points drifted (see above)", bad);
}
END_TEST

/* futexsim-validate --seeds N: each point's figure is the mean of its runs at
 * run.seed = 1..N, each of which is what a run at that seed alone gives. */
START_TEST(test_points_mean_over_seeds)
{
	char *path = tu_write_temp("t\tall\t16\t500000\tscenarios/validation/e5-sweep-2024.yaml\t"
				   "workload.threads=8 kernel.private_hash.buckets=16 run.duration=200us run.warmup=50us\n"
				   "t\tnode0\t4\t100000\tscenarios/validation/e5-sweep-2024.yaml\t"
				   "workload.threads=6 workload.cpus=node0 kernel.private_hash.buckets=4 "
				   "run.duration=200us run.warmup=50us\n");
	const char *seed_sets[3][2] = { { "run.seed=1" }, { "run.seed=2" }, { "run.seed=3" } };
	double alone[3][2];
	struct points p;
	struct fs_error e = { 0 };

	ck_assert_msg(points_load(&p, path, NULL, NULL, &e) == 0, "%s", e.msg);
	ck_assert_uint_eq(p.n, 2);
	for (int k = 0; k < 3; k++) {
		ck_assert_msg(points_run(&p, seed_sets[k], 1, 2, &e) == 0, "%s", e.msg);
		for (size_t i = 0; i < p.n; i++)
			alone[k][i] = p.v[i].simulated;
	}
	/* the layouts differ, or the mean below could not tell seeds from repeats */
	ck_assert(alone[0][0] != alone[1][0] || alone[0][0] != alone[2][0]);
	ck_assert_msg(points_run_seeds(&p, NULL, 0, 3, 2, &e) == 0, "%s", e.msg);
	for (size_t i = 0; i < p.n; i++)
		ck_assert_double_eq(p.v[i].simulated, (alone[0][i] + alone[1][i] + alone[2][i]) / 3);
	/* a seed among the extras is overridden by each run's own */
	ck_assert_msg(points_run_seeds(&p, seed_sets[2], 1, 2, 2, &e) == 0, "%s", e.msg);
	for (size_t i = 0; i < p.n; i++)
		ck_assert_double_eq(p.v[i].simulated, (alone[0][i] + alone[1][i]) / 2);
	/* one seed: the scenario's own seed (1 by default), no override */
	ck_assert_msg(points_run_seeds(&p, NULL, 0, 1, 2, &e) == 0, "%s", e.msg);
	for (size_t i = 0; i < p.n; i++)
		ck_assert_double_eq(p.v[i].simulated, alone[0][i]);
	points_free(&p);
	remove(path);
	free(path);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("calibration");
	TCase *tc = tcase_create("regression");

	tcase_add_test(tc, test_points_stay_calibrated);
	tcase_add_test(tc, test_points_mean_over_seeds);
	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run_suite(suite());
}
