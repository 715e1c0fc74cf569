/* SPDX-License-Identifier: MIT */
/* The claims of the seed threads (analysis/claimset.c, scenarios/claims/): those the
 * model must reproduce by construction hold; the open one (hash_mod vs hash_long)
 * runs and reports its figures. Directions only: no tuned numbers are asserted. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "analysis/claimset.h"
#include "tests/testutil.h"

static void check_claim(int i)
{
	size_t n;
	const struct claim *c = claims(&n);
	struct claim_options o = { NULL };
	struct claim_result r = { 0 };
	struct fs_error e = { 0 };

	ck_assert_int_lt(i, (int)n);
	ck_assert_msg(c[i].check(&c[i], &o, &r, &e) == 0, "%s: %s", c[i].name, e.msg);
	printf("  %-15s %-14s %s\n", c[i].name, r.holds ? "holds" : "does not hold", r.figures);
	ck_assert_msg(r.figures[0], "%s: no figures", c[i].name);
	if (c[i].must_hold)
		ck_assert_msg(r.holds, "%s does not hold: %s", c[i].name, r.figures);
}

START_TEST(test_claim)
{
	check_claim(_i);
}
END_TEST

START_TEST(test_hash_mod_reports_spread)
{
	size_t n;
	const struct claim *c = claims(&n);
	struct claim_options o = { "1ms" };
	struct claim_result r = { 0 };
	struct fs_error e = { 0 };
	double mod_max, mod_chi, mod_ops, long_max, long_chi, long_ops;
	const char *at;
	size_t i;

	for (i = 0; i < n && strcmp(c[i].name, "hash-mod"); i++)
		;
	ck_assert_uint_lt(i, n);
	ck_assert(!c[i].must_hold);
	ck_assert_msg(c[i].check(&c[i], &o, &r, &e) == 0, "%s", e.msg);
	/* 28 threads x 1024 consecutive futexes: hash_long's multiplicative hash puts exactly
	 * 28672 / 32 = 896 in each of 32 buckets (chi-square 0); hash_mod modulo 31 leaves
	 * bucket 31 empty, so its chi-square per degree of freedom is large */
	at = strstr(r.figures, "32 buckets: ");
	ck_assert_msg(at != NULL, "no 32-bucket figures in: %s", r.figures);
	ck_assert_msg(sscanf(at, "32 buckets: hash_mod max/mean %lf chi2/dof %lf %lf ops/s, hash_long %lf %lf %lf ops/s",
			     &mod_max, &mod_chi, &mod_ops, &long_max, &long_chi, &long_ops) == 6,
		      "unexpected figures: %s", at);
	ck_assert_double_eq_tol(long_max, 1.0, 0.005);
	ck_assert_double_eq_tol(long_chi, 0.0, 0.005);
	ck_assert_msg(mod_max > 1.0 && mod_chi > 1.0, "hash_mod spreads evenly: %s", at);
	ck_assert(mod_ops > 0 && long_ops > 0);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("claims");
	TCase *tc = tcase_create("seeds");
	size_t n;

	claims(&n);
	tcase_add_loop_test(tc, test_claim, 0, (int)n);
	tcase_add_test(tc, test_hash_mod_reports_spread);
	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run_suite(suite());
}
