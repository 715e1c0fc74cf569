/* SPDX-License-Identifier: MIT */
/* Tests of futexsim fit (sim/fit.c) and the perf command lines and outputs it reads
 * (sim/perfbench.h).
 *
 * The fit is checked on a known truth: rows simulated on a machine whose CPU-side
 * costs are set by hand (syscall 110 ns, the clock under load 1.3x, SMT slowdown
 * 1.6) are fitted from the same machine with the hardware-facts values (230 ns,
 * 1.0, 1.3); the fitted machine must give the rows back and predict a placement no
 * row has (two SMT siblings) as the truth does. Run from the repository root. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/perfbench.h"
#include "tests/testutil.h"

/* small-1node (1 node x 4 cores x 2 SMT, cores first: CPU c and c + 4 are siblings)
 * with ranges for three CPU-side costs */
#define FACTS                                                                                            \
	"name: fit-test-facts\n"                                                                         \
	"inherit: small-1node\n"                                                                         \
	"uncertainty:\n"                                                                                 \
	"  costs: {syscall: [60ns, 300ns], core_clock: [1.0, 1.5], smt_slowdown: [1.0, 2.0]}\n"
#define TRUTH_FMT                                                                                        \
	"name: fit-test-truth\n"                                                                         \
	"inherit: %s\n"                                                                                  \
	"costs: {syscall: 110ns, core_clock: 1.3, smt_slowdown: 1.6}\n"

/* perf's Averaged figure of a futexsim bench run, 1 ms after 100 us of warm-up */
static double bench(const char *machine, const char *args)
{
	char *out = NULL, *avg;
	double v = -1;

	ck_assert_int_eq(tu_futexsimf(&out, "bench futex hash %s -s -r 0.001 --machine %s --kernel linux-6.15", args,
				      machine),
			 0);
	avg = strstr(out, "Averaged ");
	ck_assert_ptr_nonnull(avg);
	v = strtod(avg + 9, NULL);
	free(out);
	return v;
}

/* The figure of a line "KEY ... (+x.y%)" of the fit's header: the error in % of the row */
static double row_error(const char *out, const char *row)
{
	const char *l = strstr(out, row), *pct;

	ck_assert_msg(l != NULL, "no row '%s' in:\n%s", row, out);
	pct = strstr(l, "(");
	ck_assert_ptr_nonnull(pct);
	return strtod(pct + 1, NULL);
}

START_TEST(fit_recovers_a_known_truth)
{
	char *facts = tu_write_temp(FACTS), truth_text[512], *truth, meas_text[2048], *meas, *out = NULL;
	char fitted[64];
	double t1, t4, t8, sib_truth, sib_fit, sib_facts;

	snprintf(truth_text, sizeof(truth_text), TRUTH_FMT, facts);
	truth = tu_write_temp(truth_text);
	t1 = bench(truth, "-t 1");
	t4 = bench(truth, "-t 4");
	t8 = bench(truth, "-t 8");
	snprintf(meas_text, sizeof(meas_text),
		 "machine: %s\n"
		 "runs:\n"
		 "  - {perf: \"perf bench futex hash -t 1\", cpus: all, kernel: linux-6.15, averaged: %.1f}\n"
		 "  - {perf: \"perf bench futex hash -t 4\", cpus: all, kernel: linux-6.15, averaged: %.1f}\n"
		 "  - perf: \"perf bench futex hash -t 8\"\n"
		 "    kernel: linux-6.15\n"
		 "    output: |\n"
		 "      # Running 'futex/hash' benchmark:\n"
		 "      Run summary [PID 4242]: 8 threads, each operating on 1024 [private] futexes for 10 secs.\n"
		 "\n"
		 "      Averaged %.0f operations/sec (+- 0.01%%), total secs = 10\n",
		 facts, t1, t4, t8);
	meas = tu_write_temp(meas_text);
	snprintf(fitted, sizeof(fitted), "/tmp/futexsim-test-fit-%ld.yaml", (long)getpid());
	ck_assert_int_eq(tu_futexsimf(&out, "fit %s -o %s --duration 1ms --warmup 100us --quiet", meas, fitted), 0);
	/* the rows come back within 1.5% */
	ck_assert_msg(fabs(row_error(out, "hash -t 1 ")) < 1.5, "%s", out);
	ck_assert_msg(fabs(row_error(out, "hash -t 4 ")) < 1.5, "%s", out);
	ck_assert_msg(fabs(row_error(out, "hash -t 8 ")) < 1.5, "%s", out);
	ck_assert_ptr_nonnull(strstr(out, "syscall: "));
	ck_assert_ptr_nonnull(strstr(out, "calibration:"));
	/* a placement no row had, two siblings of one core: the fit predicts what the
	 * truth gives, the hardware facts do not */
	sib_truth = bench(truth, "-t 2 --cpus 0,4");
	sib_fit = bench(fitted, "-t 2 --cpus 0,4");
	sib_facts = bench(facts, "-t 2 --cpus 0,4");
	ck_assert_msg(fabs(sib_fit / sib_truth - 1) < 0.03, "siblings: fitted %.0f, truth %.0f", sib_fit, sib_truth);
	ck_assert_msg(fabs(sib_facts / sib_truth - 1) > 0.2, "the facts alone already give %.0f (truth %.0f): no test",
		      sib_facts, sib_truth);
	/* the fitted file runs with --band (its calibration block) */
	free(out);
	ck_assert_int_eq(tu_futexsimf(&out, "run scenarios/quickstart.yaml --set machine=%s --band --no-output", fitted),
			 0);
	ck_assert_msg(strstr(out, "band") != NULL, "%s", out);
	free(out);
	/* -o onto an input is refused, and the input kept */
	ck_assert_int_eq(tu_futexsimf(&out, "fit %s -o %s --quiet", meas, meas), FS_ERR_USAGE);
	ck_assert_msg(strstr(out, "refused"), "%s", out);
	free(out);
	ck_assert_int_eq(tu_futexsimf(&out, "fit %s -o %s --quiet", meas, facts), FS_ERR_USAGE);
	free(out);
	ck_assert_int_eq(tu_shellf(&out, "grep -c fit-test-facts %s", facts), 0);
	free(out);
	unlink(fitted);
	unlink(meas);
	unlink(truth);
	unlink(facts);
	free(meas);
	free(truth);
	free(facts);
}
END_TEST

START_TEST(bad_measurements_are_located)
{
	static const struct {
		const char *text, *want;
	} cases[] = {
		{ "machine: small-1node\nruns:\n  - {perf: \"perf bench futex hash -t x\", kernel: linux-6.15, averaged: 1}\n",
		  ":3:" },
		{ "machine: small-1node\nruns:\n  - {perf: \"perf bench futex hash\", kernel: linux-6.15}\n", "averaged" },
		{ "machine: small-1node\nruns:\n  - {perf: \"perf bench futex hash\", kernel: linux-6.15, averaged: 1,"
		  " output: x}\n",
		  "one of them" },
		{ "machine: small-1node\nruns:\n  - {perf: \"perf bench futex hash\", kernel: linux-6.15, averaged: 0x10}\n",
		  "averaged" },
		{ "machine: small-1node\nruns:\n  - {perf: \"perf bench futex hash\", kernel: linux-6.15, averaged: -3}\n",
		  "averaged" },
		{ "machine: small-1node\nruns:\n  - {perf: \"perf bench futex hash\", kernel: linux-6.15, output: nope}\n",
		  "summary line" },
		{ "machine: small-1node\nruns:\n  - {perf: \"perf bench futex hash --machine e5\", kernel: linux-6.15,"
		  " averaged: 1}\n",
		  "futexsim's option" },
		{ "machine: small-1node\nruns:\n  - {perf: \"perf bench sched pipe\", kernel: linux-6.15, averaged: 1}\n",
		  "not simulated" },
		{ "machine: small-1node\nruns:\n  - {perf: \"perf bench futex hash; rm -rf x\", kernel: linux-6.15,"
		  " averaged: 1}\n",
		  "perf's words" },
		{ "machine: small-1node\nruns:\n  - {perf: \"perf bench futex hash\", kernal: linux-6.15, averaged: 1}\n",
		  "did you mean 'kernel'" },
		{ "machine: small-1node\nruns: []\n", "no run" },
		{ "runs:\n  - {perf: \"perf bench futex hash\", kernel: linux-6.15, averaged: 1}\n", "machine" },
		/* small-1node has no uncertainty block: nothing to fit */
		{ "machine: small-1node\nruns:\n  - {perf: \"perf bench futex hash\", kernel: linux-6.15, averaged: 1}\n",
		  "nothing to fit" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *path = tu_write_temp(cases[i].text), *out = NULL;
		int rc = tu_futexsimf(&out, "fit %s -o /tmp/futexsim-test-never-%ld.yaml --quiet", path, (long)getpid());

		ck_assert_msg(rc == FS_ERR_INPUT, "case %zu: status %d: %s", i, rc, out);
		ck_assert_msg(strstr(out, cases[i].want) && strstr(out, path), "case %zu: %s", i, out);
		free(out);
		unlink(path);
		free(path);
	}
}
END_TEST

START_TEST(perf_lines_and_outputs)
{
	struct perfbench_sets b;
	enum perfbench_figure fig;
	char msg[256];
	double v;
	long kernel = -1, buckets = -1;

	/* the kernel's preset comes before the buckets -b sets in it, or -b would be lost */
	ck_assert_int_eq(perfbench_line_sets("perf bench futex hash -t 28 -b 0", "e5-2650-2s-hw",
					     "private-hash-rfc-2024", "node0", &b, &fig, msg, sizeof(msg)),
			 0);
	ck_assert_int_eq(fig, PERF_FIGURE_OPS_PER_SEC);
	for (size_t i = 0; i < b.n; i++) {
		if (!strcmp(b.v[i], "kernel=private-hash-rfc-2024"))
			kernel = (long)i;
		if (!strcmp(b.v[i], "kernel.private_hash.buckets=0"))
			buckets = (long)i;
	}
	ck_assert(kernel >= 0 && buckets > kernel);
	ck_assert_int_eq(perfbench_line_sets("perf bench -r 3 futex wake -t 8", "small-1node", "linux-6.15", NULL, &b,
					     &fig, msg, sizeof(msg)),
			 0);
	ck_assert_int_eq(fig, PERF_FIGURE_MS);
	ck_assert_int_eq(perfbench_line_sets("bench futex hash", "m", "k", NULL, &b, &fig, msg, sizeof(msg)), -1);
	/* perf's own output (tools/perf/bench/futex-hash.c and futex-wake.c print_summary) */
	ck_assert_int_eq(perfbench_output_figure("[thread  0] futexes: 0x1 ... 0x2 [ 5 ops/sec ]\n\n"
						 "Averaged 2344905 operations/sec (+- 0.11%), total secs = 10\n",
						 PERF_FIGURE_OPS_PER_SEC, &v),
			 0);
	ck_assert_double_eq(v, 2344905);
	ck_assert_int_eq(perfbench_output_figure("[Run 1]: Wokeup 8 of 8 threads in 0.1800 ms\n"
						 "Wokeup 8 of 8 threads in 0.2300 ms (+-14.29%)\n",
						 PERF_FIGURE_MS, &v),
			 0);
	ck_assert_double_eq_tol(v, 0.23, 1e-12);
	ck_assert_int_eq(perfbench_output_figure("Averaged lots operations/sec\n", PERF_FIGURE_OPS_PER_SEC, &v), -1);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("fit");
	TCase *t = tcase_create("fit");

	tcase_set_timeout(t, 300);
	tcase_add_test(t, perf_lines_and_outputs);
	tcase_add_test(t, bad_measurements_are_located);
	tcase_add_test(t, fit_recovers_a_known_truth);
	suite_add_tcase(s, t);
	return tu_run_suite(s);
}
