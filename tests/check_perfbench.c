/* SPDX-License-Identifier: MIT */
/* Tests of `futexsim bench futex hash`, perf bench futex hash's front door: every
 * line of its output parsed with regexes of the formats perf prints
 * (tools/perf/bench/futex-hash.c and futex.c, perf 6.16+), -s, -b, bad options,
 * and, when perf is installed and runs, perf's own output parsed with the same
 * regexes: the same lines in the same order. Runs $FUTEXSIM or bin/futexsim. */
#include <check.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/testutil.h"

/* perf's printf formats as regexes, a letter for each kind of line */
static const struct {
	char kind;
	const char *re;
} formats[] = {
	{ 'H', "^# Running 'futex/hash' benchmark:$" },
	{ 'R', "^Run summary \\[PID [0-9]+\\]: [0-9]+ threads, each operating on [0-9]+ \\[(private|shared)\\] "
	       "futexes for [0-9]+ secs\\.$" },
	{ 'B', "^$" },
	{ 'T', "^\\[thread +[0-9]+\\] (futexes: 0x[0-9a-f]+ \\.\\.\\. 0x[0-9a-f]+|futex: 0x[0-9a-f]+) "
	       "\\[ [0-9]+ ops/sec \\]$" },
	{ 'A', "^Averaged [0-9]+ operations/sec \\(\\+- [0-9]+\\.[0-9]{2}%\\), total secs = [0-9]+$" },
	{ 'F', "^Futex hashing: (global hash|[0-9]+ hash buckets|auto resized to [0-9]+ buckets)$" },
};

/* The kinds of the lines of `text`, in order ('?' for a line of no known format),
 * into shape (malloc'd). */
static char *shape(const char *text)
{
	size_t n = strlen(text), k = 0;
	char *out = malloc(n + 2), *copy = strdup(text), *line = copy;
	regex_t re[sizeof(formats) / sizeof(formats[0])];

	ck_assert_ptr_nonnull(out);
	for (size_t f = 0; f < sizeof(formats) / sizeof(formats[0]); f++)
		ck_assert_int_eq(regcomp(&re[f], formats[f].re, REG_EXTENDED | REG_NOSUB), 0);
	while (*line) {
		char *nl = strchr(line, '\n'), kind = '?';

		if (nl)
			*nl = '\0';
		for (size_t f = 0; f < sizeof(formats) / sizeof(formats[0]) && kind == '?'; f++)
			if (regexec(&re[f], line, 0, NULL, 0) == 0)
				kind = formats[f].kind;
		out[k++] = kind;
		if (!nl)
			break;
		line = nl + 1;
	}
	out[k] = '\0';
	for (size_t f = 0; f < sizeof(formats) / sizeof(formats[0]); f++)
		regfree(&re[f]);
	free(copy);
	return out;
}

/* `futexsim bench futex hash ARGS`, standard output only; its exit status. */
static int bench(const char *args, char **out)
{
	return tu_shellf(out, "'%s' bench futex hash %s 2>/dev/null", tu_bin(), args);
}

START_TEST(test_lines_have_perf_formats)
{
	char *out, *again, *sh;

	ck_assert_int_eq(bench("-r 0.0001 -t 2", &out), 0);
	sh = shape(out);
	ck_assert_msg(!strcmp(sh, "HRBTTBAF"), "lines %s, expected HRBTTBAF:\n%s", sh, out);
	ck_assert_ptr_nonnull(strstr(out, "Run summary [PID 0]: 2 threads, each operating on 1024 [private] "
					  "futexes for 0 secs.\n"));
	ck_assert_ptr_nonnull(strstr(out, "[thread  0] futexes: 0x"));
	ck_assert_ptr_nonnull(strstr(out, "[thread  1] futexes: 0x"));
	/* the same options, the same output */
	ck_assert_int_eq(bench("-r 0.0001 -t 2", &again), 0);
	ck_assert_str_eq(out, again);
	free(again);
	free(sh);
	free(out);
	/* -f 1: perf's "futex:" form; -S: shared */
	ck_assert_int_eq(bench("-r 0.0001 -t 2 -f 1 -S", &out), 0);
	sh = shape(out);
	ck_assert_str_eq(sh, "HRBTTBAF");
	ck_assert_ptr_nonnull(strstr(out, "each operating on 1 [shared] futexes"));
	ck_assert_ptr_nonnull(strstr(out, "[thread  0] futex: 0x"));
	free(sh);
	free(out);
}
END_TEST

START_TEST(test_silent_and_buckets)
{
	char *out, *sh;

	ck_assert_int_eq(bench("-r 0.0001 -t 2 -s", &out), 0);
	sh = shape(out);
	ck_assert_msg(!strcmp(sh, "HRBAF"), "lines %s, expected HRBAF:\n%s", sh, out);
	free(sh);
	free(out);
	ck_assert_int_eq(bench("-r 0.0001 -t 2 -s -b 0", &out), 0);
	ck_assert_ptr_nonnull(strstr(out, "\nFutex hashing: global hash\n"));
	free(out);
	ck_assert_int_eq(bench("-r 0.0001 -t 2 -s -b 16", &out), 0);
	ck_assert_ptr_nonnull(strstr(out, "\nFutex hashing: 16 hash buckets\n"));
	free(out);
	/* the kernel's own sizing: 6.16+ rounds 4 x threads up, at least 16 */
	ck_assert_int_eq(bench("-r 0.0001 -t 2 -s", &out), 0);
	ck_assert_ptr_nonnull(strstr(out, "\nFutex hashing: auto resized to 16 buckets\n"));
	free(out);
	/* a kernel without the private hash */
	ck_assert_int_eq(bench("-r 0.0001 -t 2 -s --kernel linux-6.15", &out), 0);
	ck_assert_ptr_nonnull(strstr(out, "\nFutex hashing: global hash\n"));
	free(out);
	/* long options, attached values, bundled flags; --cpus; -m accepted */
	ck_assert_int_eq(bench("--runtime=0.0001 --threads 2 -sm -b16 --cpus 0-1", &out), 0);
	sh = shape(out);
	ck_assert_str_eq(sh, "HRBAF");
	ck_assert_ptr_nonnull(strstr(out, "16 hash buckets"));
	free(sh);
	free(out);
	/* -v: futexsim's figures after a blank line */
	ck_assert_int_eq(bench("-r 0.0001 -t 2 -s -v", &out), 0);
	ck_assert_ptr_nonnull(strstr(out, "buckets\n\nfutexsim: "));
	ck_assert_ptr_nonnull(strstr(out, "\n  total ops "));
	free(out);
}
END_TEST

START_TEST(test_bad_options)
{
	char *out;

	ck_assert_int_eq(tu_futexsim("bench futex hash -z", &out), 2);
	ck_assert_ptr_nonnull(strstr(out, "Error: unknown switch `z'"));
	ck_assert_ptr_nonnull(strstr(out, "Usage: futexsim bench futex hash <options>"));
	free(out);
	ck_assert_int_eq(tu_futexsim("bench futex hash --frob", &out), 2);
	ck_assert_ptr_nonnull(strstr(out, "unknown option `frob'"));
	free(out);
	/* an option of perf that futexsim does not simulate is named */
	ck_assert_int_eq(tu_futexsim("bench futex hash -I", &out), 2);
	ck_assert_ptr_nonnull(strstr(out, "-I/--immutable is not simulated"));
	free(out);
	ck_assert_int_eq(tu_futexsim("bench futex hash -t", &out), 2);
	free(out);
	ck_assert_int_eq(tu_futexsim("bench futex hash -t two", &out), 2);
	free(out);
	ck_assert_int_eq(tu_futexsim("bench futex hash -r 0", &out), 2);
	free(out);
	ck_assert_int_eq(tu_futexsim("bench futex hash -r 0.0001 -b 16 --kernel linux-6.15", &out), 2);
	ck_assert_ptr_nonnull(strstr(out, "no private futex hash"));
	free(out);
	ck_assert_int_eq(tu_futexsim("bench futex wake", &out), 2);
	ck_assert_ptr_nonnull(strstr(out, "only 'futex hash'"));
	free(out);
	ck_assert_int_eq(tu_futexsim("bench", &out), 2);
	free(out);
	ck_assert_int_eq(tu_futexsim("bench futex hash --help", &out), 0);
	ck_assert_ptr_nonnull(strstr(out, "usage: futexsim bench futex hash"));
	free(out);
	ck_assert_int_eq(tu_futexsim("help bench", &out), 0);
	ck_assert_ptr_nonnull(strstr(out, "usage: futexsim bench futex hash"));
	free(out);
}
END_TEST

/* perf itself, when it is installed and its benchmark runs here (it may not, e.g.
 * in a container without the perf tools of this kernel): the same regexes, the same
 * lines in the same order. perf before 6.16 prints no "Futex hashing:" line. */
START_TEST(test_same_lines_as_perf)
{
	char *perf_out = NULL, *sim_out, *perf_shape, *sim_shape;
	const char *perf = tu_exists("/usr/bin/perf") ? "/usr/bin/perf" : NULL;
	size_t n;

	if (!perf && tu_shell("command -v perf >/dev/null 2>&1", &perf_out) == 0)
		perf = "perf";
	free(perf_out);
	perf_out = NULL;
	if (!perf || tu_shellf(&perf_out, "%s bench futex hash -r 1 -t 2 2>/dev/null", perf) != 0 ||
	    !strstr(perf_out, "Averaged")) {
		fprintf(stderr, "check_perfbench: test_same_lines_as_perf SKIPPED: %s\n",
			perf ? "perf bench futex hash -r 1 -t 2 does not run here" : "no perf installed (/usr/bin/perf or on PATH)");
		free(perf_out);
		return;
	}
	ck_assert_int_eq(bench("-r 0.0001 -t 2", &sim_out), 0);
	perf_shape = shape(perf_out);
	sim_shape = shape(sim_out);
	n = strlen(perf_shape);
	if (n && perf_shape[n - 1] != 'F') {
		fprintf(stderr, "check_perfbench: perf before 6.16 (no 'Futex hashing:' line): compared without it\n");
		sim_shape[strlen(sim_shape) - 1] = '\0';
	}
	ck_assert_msg(!strcmp(perf_shape, sim_shape), "perf's lines %s, futexsim's %s\nperf:\n%s\nfutexsim:\n%s",
		      perf_shape, sim_shape, perf_out, sim_out);
	fprintf(stderr, "check_perfbench: perf's and futexsim's output have the same lines: %s\n", perf_shape);
	free(perf_shape);
	free(sim_shape);
	free(perf_out);
	free(sim_out);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("perfbench");
	TCase *tc = tcase_create("bench futex hash");

	tcase_add_test(tc, test_lines_have_perf_formats);
	tcase_add_test(tc, test_silent_and_buckets);
	tcase_add_test(tc, test_bad_options);
	tcase_add_test(tc, test_same_lines_as_perf);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run_suite(suite());
}
