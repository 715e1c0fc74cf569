/* SPDX-License-Identifier: MIT */
/* The calibration regression check: a few published points, simulated as at the
 * last fit (tests/regression/calibration.tsv, written by `make regression-data`),
 * must stay within their fitted error plus a margin. A model change that breaks
 * the calibration fails here; a deliberate one is followed by `make calibrate`
 * and `make regression-data`. */
#include <check.h>
#include <math.h>
#include <stdio.h>

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

static Suite *suite(void)
{
	Suite *s = suite_create("calibration");
	TCase *tc = tcase_create("regression");

	tcase_add_test(tc, test_points_stay_calibrated);
	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run_suite(suite());
}
