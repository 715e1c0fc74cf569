/* SPDX-License-Identifier: MIT */
/* Tests of `futexsim compare` (sim/compare.h): a file against itself, two kernel
 * designs, thresholds and their exit statuses, the deltas against show --csv,
 * --json against the text, and scenarios/ci-gate.sh. Runs the binary ($FUTEXSIM
 * or bin/futexsim). */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/testutil.h"

#define RUN "run scenarios/quickstart.yaml --quiet --set run.duration=100us --set run.warmup=20us"
#define PYTHON "/usr/bin/python3"

/* The figures every comparison prints, with show --csv's column names. */
static const char *const csv_figures[] = { "ops_per_sec",      "stderr_pct",	    "total_ops",
					   "transfers_smt",    "transfers_node",    "transfers_remote",
					   "transfers_per_op", "dram_fills" };

static char dir[64];

/* dir/a.h5: 1024 private buckets (linux-6.18); dir/b.h5: 2, much slower */
static void make_files(void)
{
	char *out;

	tu_mkdtemp(dir, "futexsim-compare");
	ck_assert_int_eq(tu_shellf(&out, "'%s' " RUN " --set kernel.private_hash.buckets=1024 -o %s/a.h5", tu_bin(),
				   dir),
			 0);
	free(out);
	ck_assert_int_eq(tu_shellf(&out, "'%s' " RUN " --set kernel.private_hash.buckets=2 -o %s/b.h5", tu_bin(), dir),
			 0);
	free(out);
}

static void remove_files(void)
{
	tu_rmtree(dir);
}

/* The row of figure `name` in compare's text: base, value, delta; 0 when absent. */
static int figure_row(const char *text, const char *name, double *base, double *value, double *delta)
{
	char key[64];
	const char *p;

	snprintf(key, sizeof(key), "\n  %s ", name);
	if (!(p = strstr(text, key)))
		return 0;
	return sscanf(p + strlen(key), "%lf %lf %lf", base, value, delta) == 3;
}

/* The value of column `col` in line `row` (1: the first after the header) of CSV
 * text without quoted fields. */
static double csv_value(const char *csv, int row, const char *col)
{
	char *copy = strdup(csv), *save = NULL, *lines[8] = { 0 }, *s1 = NULL;
	int n = 0, idx = -1, i = 0;
	double v = NAN;

	for (char *l = strtok_r(copy, "\n", &save); l && n < 8; l = strtok_r(NULL, "\n", &save))
		lines[n++] = l;
	ck_assert_int_gt(n, row);
	for (char *f = strtok_r(lines[0], ",", &s1); f; f = strtok_r(NULL, ",", &s1), i++)
		if (!strcmp(f, col))
			idx = i;
	ck_assert_msg(idx >= 0, "no column %s", col);
	i = 0;
	/* empty fields (no overrides) would be skipped by strtok: split by hand */
	for (char *f = lines[row]; f; i++) {
		char *comma = strchr(f, ',');

		if (comma)
			*comma = '\0';
		if (i == idx) {
			v = strtod(f, NULL);
			break;
		}
		f = comma ? comma + 1 : NULL;
	}
	free(copy);
	return v;
}

START_TEST(test_help)
{
	char *out;

	ck_assert_int_eq(tu_futexsim("--help", &out), 0);
	ck_assert_ptr_nonnull(strstr(out, "compare A.h5 B.h5"));
	free(out);
	ck_assert_int_eq(tu_futexsim("compare --help", &out), 0);
	ck_assert_ptr_nonnull(strstr(out, "usage: futexsim compare"));
	ck_assert_ptr_nonnull(strstr(out, "--fail-if"));
	ck_assert_ptr_nonnull(strstr(out, "--json"));
	free(out);
	ck_assert_int_eq(tu_futexsim("help compare", &out), 0);
	ck_assert_ptr_nonnull(strstr(out, "usage: futexsim compare"));
	free(out);
}
END_TEST

/* A file against itself: every delta 0, nothing changed, any sensible threshold passes. */
START_TEST(test_self)
{
	char *out;
	int rows = 0;

	ck_assert_int_eq(tu_futexsimf(&out, "compare %s/a.h5 %s/a.h5 --fail-if 'ops_per_sec < -5%%' "
					      "--fail-if 'remote_transfers_per_op > +10%%' --fail-if 'total_ops < -1' "
					      "--fail-if 'transfers>0' --fail-if 'dram_fills > 0%%'",
				dir, dir),
			 0);
	for (size_t i = 0; i < sizeof(csv_figures) / sizeof(csv_figures[0]); i++) {
		double b, v, d;

		ck_assert_msg(figure_row(out, csv_figures[i], &b, &v, &d), "no %s in:\n%s", csv_figures[i], out);
		ck_assert(b == v);
		ck_assert(d == 0);
		rows++;
	}
	ck_assert_int_eq(rows, 8);
	ck_assert_ptr_null(strstr(out, "FAILED"));
	ck_assert_ptr_nonnull(strstr(out, "compare: passed ops_per_sec +0.00% (fails if < -5%"));
	ck_assert_ptr_nonnull(strstr(out, "lines whose transfers changed most (base -> value, delta):\n    none changed"));
	ck_assert_ptr_nonnull(strstr(out, "buckets whose lock wait changed most (us: base -> value, delta):\n"
					  "    none changed"));
	free(out);
}
END_TEST

/* 2 buckets against 1024: slower, the gate fails naming the figure; the deltas
 * are the differences of show --csv's values. */
START_TEST(test_slower_fails)
{
	char *out, *csv;
	double b, v, d;

	ck_assert_int_eq(tu_futexsimf(&out, "compare %s/a.h5 %s/b.h5 --fail-if 'ops_per_sec < -5%%' "
					      "--fail-if 'remote_transfers_per_op > +10%%'",
				dir, dir),
			 1);
	ck_assert_msg(strstr(out, "compare: FAILED ops_per_sec -") && strstr(out, "% < -5% (A "), "%s", out);
	ck_assert_ptr_nonnull(strstr(out, "compare: passed remote_transfers_per_op"));
	/* the two buckets of b.h5 are the lines and buckets that changed most */
	ck_assert_ptr_nonnull(strstr(out, "private hash of process 0 bucket 0 (waiters,lock,chain,priv)"));
	ck_assert_ptr_nonnull(strstr(out, "  private hash of process 0 bucket 1\n"));
	ck_assert_int_eq(tu_futexsimf(&csv, "show --csv %s/a.h5 %s/b.h5", dir, dir), 0);
	for (size_t i = 0; i < sizeof(csv_figures) / sizeof(csv_figures[0]); i++) {
		double ca = csv_value(csv, 1, csv_figures[i]), cb = csv_value(csv, 2, csv_figures[i]);

		ck_assert_msg(figure_row(out, csv_figures[i], &b, &v, &d), "no %s", csv_figures[i]);
		ck_assert_msg(b == ca && v == cb, "%s: compare %g %g, csv %g %g", csv_figures[i], b, v, ca, cb);
		/* printed at the CSV's precision: the delta of the exact values, rounded */
		ck_assert_msg(fabs(d - (cb - ca)) <= 1e-6 * fmax(1, fabs(d)) + (i == 1 ? 0.011 : 1.1e-6),
			      "%s: delta %g, csv %g - %g", csv_figures[i], d, cb, ca);
	}
	ck_assert(figure_row(out, "ops_per_sec", &b, &v, &d) && d < 0);
	free(csv);
	free(out);
	/* explain's breakdown side by side: the bucket lock's ns per op, as explain prints
	 * it for each file, grows with two buckets; a threshold on it gates */
	ck_assert_int_eq(tu_futexsimf(&out, "compare %s/a.h5 %s/b.h5 --fail-if 'time_lock > +10%%'", dir, dir), 1);
	ck_assert(figure_row(out, "time_lock", &b, &v, &d) && d > 0);
	ck_assert_ptr_nonnull(strstr(out, "compare: FAILED time_lock +"));
	free(out);
	for (int f = 0; f < 2; f++) {
		double lock;
		const char *row;

		ck_assert_int_eq(tu_futexsimf(&out, "explain %s/%s.h5", dir, f ? "b" : "a"), 0);
		row = strstr(out, "\n  lock ");
		ck_assert_ptr_nonnull(row);
		ck_assert_int_eq(sscanf(row, "\n  lock %lf", &lock), 1);
		ck_assert_double_eq_tol(lock, f ? v : b, 0.051);
		free(out);
		ck_assert_int_eq(tu_futexsimf(&out, "compare %s/a.h5 %s/b.h5", dir, dir), 0);
		ck_assert(figure_row(out, "time_lock", &b, &v, &d));
		free(out);
	}
	/* the other way round it is faster: passes; an absolute threshold fails */
	ck_assert_int_eq(tu_futexsimf(&out, "compare %s/b.h5 %s/a.h5 --fail-if 'ops_per_sec < -5%%'", dir, dir), 0);
	free(out);
	ck_assert_int_eq(tu_futexsimf(&out, "compare %s/b.h5 %s/a.h5 --fail-if 'total_ops > 100'", dir, dir), 1);
	ck_assert_msg(strstr(out, "compare: FAILED total_ops +") && strstr(out, " > 100 (A "), "%s", out);
	free(out);
	/* several files: each against the first, labelled */
	ck_assert_int_eq(tu_futexsimf(&out, "compare %s/a.h5 %s/a.h5 %s/b.h5 --fail-if 'ops_per_sec < -5%%'", dir, dir,
				dir),
			 1);
	ck_assert_ptr_nonnull(strstr(out, "compare: passed ops_per_sec +0.00% (fails if < -5%; A "));
	ck_assert_ptr_nonnull(strstr(out, "compare: FAILED ops_per_sec -"));
	ck_assert_ptr_nonnull(strstr(out, ", C "));
	free(out);
}
END_TEST

START_TEST(test_bad_usage)
{
	static const char *const bad[] = { "ops_per_sec = 5",  "ops_per_sec < five%", "< 5%", "ops_per_sec <",
					   "ops_per_sec < 5 %%x", "ops per sec < 5%", "ops_per_sec < 5 > 3" };
	char *out;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_int_eq(tu_futexsimf(&out, "compare %s/a.h5 %s/b.h5 --fail-if '%s'", dir, dir, bad[i]), 2);
		ck_assert_msg(strstr(out, "--fail-if"), "%s", out);
		free(out);
	}
	ck_assert_int_eq(tu_futexsimf(&out, "compare %s/a.h5 %s/b.h5 --fail-if 'op_per_sec < -5%%'", dir, dir), 2);
	ck_assert_msg(strstr(out, "unknown figure 'op_per_sec'") && strstr(out, "known figures: ops_per_sec, ") &&
			      strstr(out, "remote_transfers_per_op"),
		      "%s", out);
	free(out);
	ck_assert_int_eq(tu_futexsimf(&out, "compare %s/a.h5", dir), 2);
	free(out);
	ck_assert_int_eq(tu_futexsimf(&out, "compare %s/a.h5 %s/b.h5 --frob", dir, dir), 2);
	free(out);
	ck_assert_int_eq(tu_futexsimf(&out, "compare %s/a.h5 %s/nonexistent.h5", dir, dir), 3);
	ck_assert_ptr_nonnull(strstr(out, "nonexistent.h5"));
	free(out);
	ck_assert_int_eq(tu_futexsimf(&out, "compare %s/a.h5 /etc/hostname --fail-if 'ops_per_sec < -5%%'", dir), 3);
	free(out);
}
END_TEST

/* --json parses, and its numbers are the text's */
START_TEST(test_json)
{
	char *out;

	if (access(PYTHON, X_OK) != 0) {
		fprintf(stderr, "check_compare: test_json SKIPPED: no %s\n", PYTHON);
		return;
	}
	ck_assert_int_eq(tu_futexsimf(&out, "compare %s/a.h5 %s/b.h5 > %s/text.out 2>/dev/null", dir, dir, dir), 0);
	free(out);
	ck_assert_int_eq(tu_futexsimf(&out, "compare %s/a.h5 %s/b.h5 --json > %s/cmp.json 2>/dev/null", dir, dir, dir),
			 0);
	free(out);
	ck_assert_msg(
		tu_shellf(&out,
			  PYTHON " -c '\n"
				 "import json, math, sys\n"
				 "d = json.load(open(sys.argv[1]))\n"
				 "assert d[\"base\"].endswith(\"a.h5\"), d[\"base\"]\n"
				 "c = d[\"comparisons\"]\n"
				 "assert len(c) == 1 and c[0][\"file\"].endswith(\"b.h5\")\n"
				 "figs = c[0][\"figures\"]\n"
				 "rows = {}\n"
				 "for line in open(sys.argv[2]):\n"
				 "    w = line.split()\n"
				 "    if len(w) == 6 and w[0] in figs: rows[w[0]] = w\n"
				 "assert len(rows) == len(figs) >= 10, (sorted(rows), sorted(figs))\n"
				 "for name, f in figs.items():\n"
				 "    w = rows[name]\n"
				 "    for k, i in ((\"base\", 1), (\"value\", 2), (\"delta\", 3)):\n"
				 "        t = float(w[i]); tol = 0.5 * 10 ** -len(w[i].split(\".\")[1]) if \".\" in w[i] "
				 "else 0.5\n"
				 "        assert abs(f[k] - t) <= tol * 1.01, (name, k, f[k], t)\n"
				 "    assert f[\"delta\"] == f[\"value\"] - f[\"base\"], name\n"
				 "    r = w[4].rstrip(\"%%\")\n"
				 "    if \"inf\" in r: assert f[\"rel\"] is None, name\n"
				 "    else: assert abs(f[\"rel\"] - float(r)) <= 0.00501, (name, f[\"rel\"], r)\n"
				 "    assert f[\"units\"] == w[5], name\n"
				 "assert figs[\"ops_per_sec\"][\"delta\"] < 0\n"
				 "assert 1 <= len(c[0][\"lines\"]) <= 5 and 1 <= len(c[0][\"buckets\"]) <= 5\n"
				 "print(\"json ok\")\n"
				 "' %s/cmp.json %s/text.out",
			  dir, dir) == 0,
		"%s", out);
	ck_assert_ptr_nonnull(strstr(out, "json ok"));
	free(out);
}
END_TEST

/* scenarios/ci-gate.sh: a design about as fast passes, a deliberately slower one fails */
/* Two directories: the runs of each are a group. The base is the mean of the
 * group's runs (checked against show --csv of each), thresholds apply to the
 * means, and a group against itself has no delta and p = 1. */
START_TEST(test_groups)
{
	char *out, *p;
	double mean = 0, base, value, pval;
	int status;

	ck_assert_int_eq(tu_shellf(&out, "mkdir -p %s/ga %s/gb && for s in 1 2 3; do \"%s\" " RUN " --seed $s -o %s/ga/s$s.h5 "
				  "&& \"%s\" " RUN " --seed $s --set kernel.private_hash.buckets=2 -o %s/gb/s$s.h5 || exit 1; done",
			    dir, dir, tu_bin(), dir, tu_bin(), dir),
			 0);
	free(out);
	for (int s = 1; s <= 3; s++) {
		ck_assert_int_eq(tu_futexsimf(&out, "show --csv %s/ga/s%d.h5", dir, s), 0);
		mean += csv_value(out, 1, "ops_per_sec") / 3;
		free(out);
	}
	status = tu_futexsimf(&out, "compare %s/ga %s/gb --json --fail-if 'ops_per_sec < -5%%'", dir, dir);
	ck_assert_int_eq(status, 1);
	p = strstr(out, "\"ops_per_sec\": {\"base\": ");
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(sscanf(p, "\"ops_per_sec\": {\"base\": %lf, \"value\": %lf", &base, &value), 2);
	ck_assert_double_eq_tol(base, mean, 1e-6 * mean);
	ck_assert(value < 0.5 * base);
	p = strstr(p, "\"base_n\": 3, \"value_n\": 3");
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(sscanf(strstr(p, "\"p\": "), "\"p\": %lf", &pval), 1);
	ck_assert(pval < 0.01);
	ck_assert_ptr_nonnull(strstr(out, "compare: FAILED ops_per_sec"));
	free(out);
	ck_assert_int_eq(tu_futexsimf(&out, "compare %s/ga %s/ga --fail-if 'ops_per_sec < -5%%'", dir, dir), 0);
	ck_assert_ptr_nonnull(strstr(out, "means of 3 runs (base) and 3"));
	ck_assert_msg(strstr(out, "  ops_per_sec ") && strstr(strstr(out, "  ops_per_sec "), " +0 ") &&
			      strstr(strstr(out, "  ops_per_sec "), "+0.00%  1 "),
		      "%s", out);
	free(out);
	ck_assert_int_eq(tu_shellf(&out, "mkdir -p %s/empty", dir), 0);
	free(out);
	ck_assert_int_eq(tu_futexsimf(&out, "compare %s/ga %s/empty", dir, dir), 3);
	ck_assert_ptr_nonnull(strstr(out, "no result files (*.h5) in it"));
	free(out);
	/* an interrupted run (marked incomplete) is not one of the runs: left out, said so
	 * (issue 38); a directory of none but such runs has nothing to compare */
	ck_assert_int_eq(tu_shellf(&out, "mkdir -p %s/gc %s/gd && cp %s/ga/s*.h5 %s/gc/ && cp %s/gb/s1.h5 %s/gc/x.h5 && "
				   "cp %s/gb/s1.h5 %s/gd/x.h5 && " TU_MARK_INCOMPLETE "%s/gc/x.h5 && " TU_MARK_INCOMPLETE
				   "%s/gd/x.h5", dir, dir, dir, dir, dir, dir, dir, dir, dir, dir),
			 0);
	free(out);
	ck_assert_int_eq(tu_futexsimf(&out, "compare %s/ga %s/gc --fail-if 'ops_per_sec < -5%%'", dir, dir), 0);
	ck_assert_msg(strstr(out, "futexsim compare: leaving out ") && strstr(out, "gc/x.h5: marked incomplete (an "
										  "interrupted run)") &&
			      strstr(out, "means of 3 runs (base) and 3"),
		      "%s", out);
	free(out);
	ck_assert_int_eq(tu_futexsimf(&out, "compare %s/ga %s/gd", dir, dir), 3);
	ck_assert_msg(strstr(out, "gd: no complete result files (*.h5) in it"), "%s", out);
	free(out);
}
END_TEST

/* Two bucket layouts (one line per bucket, two): a bucket's lines are matched as
 * one, so its traffic shows as changed, not as one line gone and another new;
 * one layout against itself keeps the lines apart, by their fields. */
START_TEST(test_layouts)
{
	char *out, *p;
	unsigned long long base, value;

	ck_assert_int_eq(tu_shellf(&out, "'%s' " RUN " --set kernel=bucket-split-2026 --set kernel.private_hash.buckets=2 "
				  "-o %s/split.h5", tu_bin(), dir),
			 0);
	free(out);
	ck_assert_int_eq(tu_futexsimf(&out, "compare %s/b.h5 %s/split.h5", dir, dir), 0);
	p = strstr(out, "lines whose transfers changed most (base -> value, delta):\n");
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(sscanf(strchr(p, '\n') + 1, " 1. %llu -> %llu", &base, &value), 2);
	ck_assert_uint_gt(base, 0); /* present in both runs, under the bucket's name */
	ck_assert_uint_gt(value, 0);
	p = strchr(p, '\n') + 1;
	*strchr(p, '\n') = '\0'; /* the first line */
	ck_assert_msg(strstr(p, "private hash of process 0 bucket ") && strstr(p, " (its lines)"), "%s", p);
	free(out);
	ck_assert_int_eq(tu_futexsimf(&out, "compare %s/a.h5 %s/b.h5", dir, dir), 0);
	ck_assert_ptr_null(strstr(out, "(its lines)"));
	ck_assert_ptr_nonnull(strstr(out, "(waiters,lock,chain,priv)"));
	free(out);
}
END_TEST

START_TEST(test_ci_gate)
{
	char *out;

	ck_assert_msg(tu_shellf(&out,
				"FUTEXSIM='%s' sh scenarios/ci-gate.sh -S run.duration=100us -S run.warmup=20us "
				"-f 'ops_per_sec < -5%%' linux-6.18 linux-6.17 2>&1",
				tu_bin()) == 0,
		      "%s", out);
	ck_assert_ptr_nonnull(strstr(out, "ci-gate: PASSED"));
	free(out);
	ck_assert_msg(tu_shellf(&out,
				"FUTEXSIM='%s' sh scenarios/ci-gate.sh -S run.duration=100us -S run.warmup=20us "
				"-f 'ops_per_sec < -5%%' -f 'transfers_per_op > +50%%' linux-6.18 "
				"'{preset: linux-6.18, private_hash: {buckets: 2}}' 2>&1",
				tu_bin()) == 1,
		      "%s", out);
	ck_assert_ptr_nonnull(strstr(out, "compare: FAILED ops_per_sec"));
	ck_assert_ptr_nonnull(strstr(out, "compare: FAILED transfers_per_op"));
	ck_assert_ptr_nonnull(strstr(out, "ci-gate: FAILED"));
	free(out);
	ck_assert_int_eq(tu_shellf(&out, "FUTEXSIM='%s' sh scenarios/ci-gate.sh linux-6.18 2>&1", tu_bin()), 2);
	ck_assert_ptr_nonnull(strstr(out, "usage: scenarios/ci-gate.sh"));
	free(out);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("compare");
	TCase *tc = tcase_create("futexsim compare");

	tcase_add_unchecked_fixture(tc, make_files, remove_files);
	tcase_add_test(tc, test_help);
	tcase_add_test(tc, test_layouts);
	tcase_add_test(tc, test_self);
	tcase_add_test(tc, test_slower_fails);
	tcase_add_test(tc, test_bad_usage);
	tcase_add_test(tc, test_json);
	tcase_add_test(tc, test_ci_gate);
	tcase_add_test(tc, test_groups);
	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run_suite(suite());
}
