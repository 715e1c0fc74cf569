/* SPDX-License-Identifier: MIT */
/* Tests of sim/band.c on hand-worked covariances, and of run --band through the
 * binary ($FUTEXSIM or bin/futexsim): the band brackets the Averaged figure by
 * construction and lands in the file; a machine without a calibration is refused
 * before anything runs. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/band.h"
#include "tests/testutil.h"

/* `cov` is the covariance block's rows; fitted values 200 ns and `smt`. */
static int plan_of(const char *cov, const char *smt, struct band_plan *p, struct fs_error *e)
{
	char text[1024];
	struct yt_doc *d = yt_doc_new();
	struct yt_node *root;
	int rc = -1;

	snprintf(text, sizeof(text),
		 "name: t\n"
		 "calibration:\n"
		 "  parameters: [costs.syscall, costs.smt_slowdown]\n"
		 "  units: [ns, factor]\n"
		 "  fitted: [200, %s]\n"
		 "  min: [120, 1]\n"
		 "  max: [300, 2]\n"
		 "  covariance:\n"
		 "%s",
		 smt, cov);
	ck_assert_ptr_nonnull(d);
	root = yt_load_string(d, "inline.yaml", text, strlen(text), e);
	if (root)
		rc = band_plan_from_machine(p, root, e);
	yt_doc_free(d);
	return rc;
}

/* Uncorrelated: the axes are the parameters, the larger variance first; each
 * run moves one parameter by its standard deviation (2 ns, 0.1), minus first.
 * Near a bound the move is clamped (1.95 + 0.1 -> 2). */
START_TEST(test_plan_axes_and_bounds)
{
	static struct band_plan p;
	struct fs_error e = { 0 };

	ck_assert_int_eq(plan_of("    - [4, 0]\n    - [0, 0.01]\n", "1.3", &p, &e), 0);
	ck_assert_uint_eq(p.nparams, 2);
	ck_assert_uint_eq(p.nruns, 4);
	ck_assert_str_eq(p.sets[0][0], "machine.costs.syscall=198.000ns");
	ck_assert_str_eq(p.sets[0][1], "machine.costs.smt_slowdown=1.300");
	ck_assert_str_eq(p.sets[1][0], "machine.costs.syscall=202.000ns");
	ck_assert_str_eq(p.sets[2][0], "machine.costs.syscall=200.000ns");
	ck_assert_str_eq(p.sets[2][1], "machine.costs.smt_slowdown=1.200");
	ck_assert_str_eq(p.sets[3][1], "machine.costs.smt_slowdown=1.400");

	ck_assert_int_eq(plan_of("    - [4, 0]\n    - [0, 0.01]\n", "1.95", &p, &e), 0);
	ck_assert_str_eq(p.sets[3][1], "machine.costs.smt_slowdown=2.000");
}
END_TEST

START_TEST(test_plan_correlated)
{
	static struct band_plan p;
	struct fs_error e = { 0 };
	char text[64];

	/* variances 0.02 each, covariance 0.01: hand-computed eigenpairs (1,1)/sqrt2
	 * with variance 0.03 and (1,-1)/sqrt2 with variance 0.01 */
	ck_assert_int_eq(plan_of("    - [0.02, 0.01]\n    - [0.01, 0.02]\n", "1.3", &p, &e), 0);
	ck_assert_uint_eq(p.nruns, 4);
	/* axis 1: (1,1)/sqrt2, variance 0.03: both move by sqrt(0.015) = 0.1225 */
	snprintf(text, sizeof(text), "machine.costs.syscall=%.3fns", 200 - sqrt(0.015));
	ck_assert_str_eq(p.sets[0][0], text);
	snprintf(text, sizeof(text), "machine.costs.smt_slowdown=%.3f", 1.3 - sqrt(0.015));
	ck_assert_str_eq(p.sets[0][1], text);
	/* axis 2: (1,-1)/sqrt2 (largest entry made positive), variance 0.01: 0.0707 apart */
	snprintf(text, sizeof(text), "machine.costs.syscall=%.3fns", 200 + sqrt(0.005));
	ck_assert_str_eq(p.sets[3][0], text);
	snprintf(text, sizeof(text), "machine.costs.smt_slowdown=%.3f", 1.3 - sqrt(0.005));
	ck_assert_str_eq(p.sets[3][1], text);
}
END_TEST

START_TEST(test_plan_errors)
{
	static struct band_plan p;
	struct fs_error e = { 0 };
	struct yt_doc *d = yt_doc_new();
	const char *none = "name: plain\ncosts: {}\n";
	struct yt_node *root = yt_load_string(d, "inline.yaml", none, strlen(none), &e);

	ck_assert_ptr_nonnull(root);
	ck_assert_int_eq(band_plan_from_machine(&p, root, &e), -1);
	ck_assert_msg(strstr(e.msg, "machine 'plain' has no calibration block"), "%s", e.msg);
	yt_doc_free(d);

	memset(&e, 0, sizeof(e));
	ck_assert_int_eq(plan_of("    - [4, 0]\n", "1.3", &p, &e), -1);
	ck_assert_msg(strstr(e.msg, "inline.yaml:9:5: machine.calibration.covariance: 1 rows for 2 parameters"), "%s",
		      e.msg);
	memset(&e, 0, sizeof(e));
	ck_assert_int_eq(plan_of("    - [4, 0]\n    - [0, -1]\n", "1.3", &p, &e), -1);
	ck_assert_msg(strstr(e.msg, "inline.yaml:10:11: machine.calibration.covariance[1][1]: '-1' is not a variance"),
		      "%s", e.msg);
	memset(&e, 0, sizeof(e));
	ck_assert_int_eq(plan_of("    - [4, 0]\n    - [0, x]\n", "1.3", &p, &e), -1);
	ck_assert_msg(strstr(e.msg, "covariance[1][1]: 'x' is not a"), "%s", e.msg);
	memset(&e, 0, sizeof(e));
	ck_assert_int_eq(plan_of("    - [4, 0]\n    - [0, 1]\n", "2.5", &p, &e), -1);
	ck_assert_msg(strstr(e.msg, "inline.yaml:5:17: machine.calibration.fitted: costs.smt_slowdown = 2.5 outside"),
		      "%s", e.msg);
}
END_TEST

/* lo and hi: each side the quadrature sum of the axes' moves to that side. */
START_TEST(test_combine)
{
	struct band_plan p = { .nparams = 2, .nruns = 4 };
	const double figs[] = { 90, 110, 99, 100 };
	double lo, hi;

	band_combine(&p, 100, figs, &lo, &hi);
	ck_assert_double_eq_tol(lo, 100 - sqrt(101), 1e-12);
	ck_assert_double_eq_tol(hi, 110, 1e-12);
	/* both moves of an axis to one side: the larger counts */
	const double same[] = { 104, 103, 100, 100 };

	band_combine(&p, 100, same, &lo, &hi);
	ck_assert_double_eq_tol(lo, 100, 1e-12);
	ck_assert_double_eq_tol(hi, 104, 1e-12);
}
END_TEST

#define BAND_RUN "scenarios/quickstart.yaml --set machine=e5-2650-2s --set workload.threads=4 " \
		 "--set run.duration=100us --set run.warmup=20us"

START_TEST(test_run_band)
{
	char dir[64], *out;
	unsigned long long avg;
	double lo, hi;
	unsigned runs;
	const char *p;

	tu_mkdtemp(dir, "futexsim-band");
	ck_assert_int_eq(tu_shellf(&out, "%s run " BAND_RUN " --band -o %s/b.h5 2>/dev/null", tu_bin(), dir), 0);
	p = strstr(out, "Averaged ");
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(sscanf(p, "Averaged %llu", &avg), 1);
	p = strstr(out, "  band             Averaged ");
	ck_assert_msg(p != NULL, "%s", out);
	ck_assert_int_eq(sscanf(p, "  band             Averaged %lf .. %lf operations/sec (1 sigma of the fitted "
				   "costs, %u runs)", &lo, &hi, &runs), 3);
	ck_assert_uint_eq(runs, 12); /* 6 fitted costs of e5-2650-2s, 2 runs each */
	ck_assert(lo <= (double)avg + 0.5 && (double)avg - 0.5 <= hi);
	free(out);
	/* the file holds it, and show prints it from there */
	ck_assert_int_eq(tu_shellf(&out, "%s show %s/b.h5 | grep '^  band '", tu_bin(), dir), 0);
	ck_assert_ptr_nonnull(strstr(out, "12 runs"));
	free(out);
	/* without a calibration: refused before the run, nothing written */
	ck_assert_int_eq(tu_shellf(&out, "%s run scenarios/quickstart.yaml --band -o %s/q.h5", tu_bin(), dir), 3);
	ck_assert_ptr_nonnull(strstr(out, "machine 'small-1node' has no calibration block"));
	ck_assert_ptr_null(strstr(out, "Averaged"));
	ck_assert(!tu_exists("q.h5"));
	free(out);
	ck_assert_int_eq(tu_shellf(&out, "ls %s", dir), 0);
	ck_assert_str_eq(out, "b.h5\n");
	free(out);
	tu_rmtree(dir);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("band");
	TCase *tc = tcase_create("band");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_plan_axes_and_bounds);
	tcase_add_test(tc, test_plan_correlated);
	tcase_add_test(tc, test_plan_errors);
	tcase_add_test(tc, test_combine);
	tcase_add_test(tc, test_run_band);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run_suite(suite());
}
