/* SPDX-License-Identifier: MIT */
/* Tests of sim/perfstat.c against hand-computed perf arithmetic. */
#include <check.h>
#include <math.h>

#include "sim/perfstat.h"
#include "tests/testutil.h"

START_TEST(test_three_threads)
{
	/* mean 200; sample sd = sqrt((100^2 + 0 + 100^2) / 2) = 100;
	 * stderr = 100 / sqrt(3) = 57.735; 57.735 / 200 = 28.8675 % */
	uint64_t v[] = { 100, 200, 300 };
	struct perf_average a = perf_average(v, 3);

	ck_assert_uint_eq(a.mean, 200);
	ck_assert_double_eq_tol(a.stderr_pct, 28.8675, 1e-3);
}
END_TEST

START_TEST(test_mean_is_truncated_and_used_for_the_percentage)
{
	/* mean 1.5 -> 1 (perf keeps an unsigned long); sd = 0.70711; stderr = 0.5; 0.5 / 1 = 50 % */
	uint64_t v[] = { 1, 2 };
	struct perf_average a = perf_average(v, 2);

	ck_assert_uint_eq(a.mean, 1);
	ck_assert_double_eq_tol(a.stderr_pct, 50.0, 1e-9);
}
END_TEST

START_TEST(test_one_thread_has_no_error)
{
	uint64_t v[] = { 2344905 };
	struct perf_average a = perf_average(v, 1);

	ck_assert_uint_eq(a.mean, 2344905);
	ck_assert_double_eq(a.stderr_pct, 0.0);
}
END_TEST

START_TEST(test_equal_threads_have_no_error)
{
	uint64_t v[] = { 7, 7, 7, 7 };

	ck_assert_double_eq(perf_average(v, 4).stderr_pct, 0.0);
}
END_TEST

START_TEST(test_ops_per_sec)
{
	ck_assert_uint_eq(perf_ops_per_sec(23449058, 10.0), 2344905); /* floor, like perf's integer division */
	ck_assert_uint_eq(perf_ops_per_sec(1000, 0.01), 100000);
	ck_assert_uint_eq(perf_ops_per_sec(5, 0.0), 0);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("perfstat");
	TCase *tc = tcase_create("arithmetic");

	tcase_add_test(tc, test_three_threads);
	tcase_add_test(tc, test_mean_is_truncated_and_used_for_the_percentage);
	tcase_add_test(tc, test_one_thread_has_no_error);
	tcase_add_test(tc, test_equal_threads_have_no_error);
	tcase_add_test(tc, test_ops_per_sec);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run_suite(suite());
}
