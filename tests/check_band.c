/* SPDX-License-Identifier: MIT */
/* Tests of sim/band.c on hand-worked covariances and ranges, and of run --band
 * through the binary ($FUTEXSIM or bin/futexsim): the band brackets the Averaged
 * figure by construction and lands in the file with its basis; a machine with
 * neither a calibration nor an uncertainty block is refused before anything runs. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/band.h"
#include "tests/testutil.h"

/* The plan of the machine map in `text`. */
static int plan_from_text(const char *text, struct band_plan *p, struct fs_error *e)
{
	struct yt_doc *d = yt_doc_new();
	struct yt_node *root;
	int rc = -1;

	ck_assert_ptr_nonnull(d);
	root = yt_load_string(d, "inline.yaml", text, strlen(text), e);
	if (root)
		rc = band_plan_from_machine(p, root, e);
	yt_doc_free(d);
	return rc;
}

/* `cov` is the covariance block's rows; fitted values 200 ns and `smt`. */
static int plan_of(const char *cov, const char *smt, struct band_plan *p, struct fs_error *e)
{
	char text[1024];

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
	return plan_from_text(text, p, e);
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
	ck_assert_msg(strstr(e.msg, "machine 'plain' has neither a calibration block nor an uncertainty block"), "%s",
		      e.msg);
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

/* A machine without a fit: `costs` and `uncertainty` lines appended to a name. */
static int ranges_of(const char *body, struct band_plan *p, struct fs_error *e)
{
	char text[1024];

	snprintf(text, sizeof(text), "name: r\n%s", body);
	return plan_from_text(text, p, e);
}

/* Each cost its own axis, moved by (max - min) / sqrt(12) around the machine's
 * value, the others set at theirs: 50 ns in [40, 60] moves by 5.774 ns; 1.0 in
 * [1, 2] by 0.289, clamped at 1 below; 10 cycles in [0, 40] by 11.547. */
START_TEST(test_plan_ranges)
{
	static struct band_plan p;
	struct fs_error e = { 0 };

	ck_assert_int_eq(ranges_of("costs: {transfer_node: 50ns, invalidation: 1.0, line_hold: 10 cycles}\n"
				   "uncertainty:\n"
				   "  costs:\n"
				   "    transfer_node: [40ns, 60ns]\n"
				   "    invalidation: [1.0, 2.0]\n"
				   "    line_hold: [0 cycles, 40 cycles]\n",
				   &p, &e),
			 0);
	ck_assert_int_eq(p.basis, BAND_RANGES);
	ck_assert_uint_eq(p.nparams, 3);
	ck_assert_uint_eq(p.nruns, 6);
	ck_assert_str_eq(p.sets[0][0], "machine.costs.transfer_node=44.226ns");
	ck_assert_str_eq(p.sets[0][1], "machine.costs.invalidation=1.000");
	ck_assert_str_eq(p.sets[0][2], "machine.costs.line_hold=10.000 cycles");
	ck_assert_str_eq(p.sets[1][0], "machine.costs.transfer_node=55.774ns");
	ck_assert_str_eq(p.sets[2][0], "machine.costs.transfer_node=50.000ns");
	ck_assert_str_eq(p.sets[2][1], "machine.costs.invalidation=1.000");
	ck_assert_str_eq(p.sets[3][1], "machine.costs.invalidation=1.289");
	ck_assert_str_eq(p.sets[4][2], "machine.costs.line_hold=0.000 cycles");
	ck_assert_str_eq(p.sets[5][2], "machine.costs.line_hold=21.547 cycles");
	ck_assert_str_eq(band_basis_text(p.basis), "the costs' ranges");

	/* a calibration block wins: a fitted machine inherits its hardware file's ranges */
	ck_assert_int_eq(plan_of("    - [4, 0]\n    - [0, 0.01]\n", "1.3", &p, &e), 0);
	ck_assert_int_eq(p.basis, BAND_FIT);
}
END_TEST

START_TEST(test_plan_ranges_errors)
{
	static const struct {
		const char *body, *msg;
	} bad[] = {
		{ "costs: {syscall: 200ns}\nuncertainty: {costs: {syscall: [210ns, 300ns]}}\n",
		  "inline.yaml:3:32: machine.uncertainty.costs.syscall: the machine's value 200 is outside 210..300" },
		{ "costs: {syscall: 200ns}\nuncertainty: {costs: {syscall: [100 cycles, 300 cycles]}}\n",
		  "inline.yaml:3:32: machine.uncertainty.costs.syscall: the range's unit differs from the machine's value "
		  "'200ns'" },
		{ "costs: {syscall: 200ns}\nuncertainty: {costs: {line_hold: [0 cycles, 4 cycles]}}\n",
		  "inline.yaml:3:34: machine.uncertainty.costs.line_hold: the machine sets no costs.line_hold" },
		{ "costs: {syscall: 200ns}\nuncertainty: {costs: {syscall: [100ns]}}\n",
		  "inline.yaml:3:32: machine.uncertainty.costs.syscall: [MIN, MAX], not 1 entries" },
		{ "costs: {syscall: 0.2us}\nuncertainty: {costs: {syscall: [0.1us, 0.3us]}}\n",
		  "machine.uncertainty.costs.syscall: '0.2us': the band takes costs in ns, in cycles or as factors" },
		{ "costs: {syscall: 200ns}\nuncertainty: [1, 2]\n", "machine.uncertainty" },
		{ "costs: {syscall: 200ns}\nuncertainty: {syscall: [100ns, 300ns]}\n",
		  "unknown key 'syscall' in machine.uncertainty" },
	};
	static struct band_plan p;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct fs_error e = { 0 };

		ck_assert_int_eq(ranges_of(bad[i].body, &p, &e), -1);
		ck_assert_msg(strstr(e.msg, bad[i].msg), "case %zu: %s", i, e.msg);
	}
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
	/* a machine from hardware facts: the band of its costs' ranges, in the file too */
	ck_assert_int_eq(tu_shellf(&out, "%s run " BAND_RUN " --set machine=e5-2650-2s-hw --band -o %s/h.h5 2>/dev/null",
				   tu_bin(), dir), 0);
	/* 8 ranges: syscall, call_return, core_clock, transfer_node, transfer_remote,
	 * smt_slowdown, line_hold, invalidation; 2 runs each */
	ck_assert_msg(strstr(out, "(1 sigma of the costs' ranges, 16 runs)") != NULL, "%s", out);
	free(out);
	ck_assert_int_eq(tu_shellf(&out, "%s show %s/h.h5 | grep '^  band '", tu_bin(), dir), 0);
	ck_assert_ptr_nonnull(strstr(out, "(1 sigma of the costs' ranges, 16 runs)"));
	free(out);
	ck_assert_int_eq(tu_shellf(&out, "rm %s/h.h5", dir), 0);
	free(out);
	/* without a calibration: refused before the run, nothing written */
	ck_assert_int_eq(tu_shellf(&out, "%s run scenarios/quickstart.yaml --band -o %s/q.h5", tu_bin(), dir), 3);
	ck_assert_ptr_nonnull(strstr(out, "machine 'small-1node' has neither a calibration block nor an uncertainty"));
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
	tcase_add_test(tc, test_plan_ranges);
	tcase_add_test(tc, test_plan_ranges_errors);
	tcase_add_test(tc, test_combine);
	tcase_add_test(tc, test_run_band);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run_suite(suite());
}
