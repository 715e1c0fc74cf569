/* SPDX-License-Identifier: MIT */
/* Tests of `futexsim bench futex SUITE`, perf bench futex's front door: every line
 * of its output parsed with regexes of the formats perf prints (tools/perf/bench/
 * futex-hash.c, futex-wake.c, futex-wake-parallel.c, futex-requeue.c and futex.c,
 * perf 6.16+), -s, -b, perf bench's -r, bad options, futexsim's -o, --print-scenario,
 * --quiet and --progress (run's), and, when perf is installed
 * and runs, perf's own output of each suite parsed with the same regexes: the same
 * lines in the same order. Runs $FUTEXSIM or bin/futexsim. */
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
	{ 'H', "^# Running 'futex/(hash|wake|wake-parallel|requeue|lock-pi)' benchmark:$" },
	{ 'R', "^Run summary \\[PID [0-9]+\\]: [0-9]+ threads, each operating on [0-9]+ \\[(private|shared)\\] "
	       "futexes for [0-9]+ secs\\.$" },
	{ 'B', "^$" },
	{ 'T', "^\\[thread +[0-9]+\\] (futexes: 0x[0-9a-f]+ \\.\\.\\. 0x[0-9a-f]+|futex: 0x[0-9a-f]+) "
	       "\\[ [0-9]+ ops/sec \\]$" },
	{ 'A', "^Averaged [0-9]+ operations/sec \\(\\+- [0-9]+\\.[0-9]{2}%\\), total secs = [0-9]+$" },
	{ 'F', "^Futex hashing: (global hash|[0-9]+ hash buckets|auto resized to [0-9]+ buckets)$" },
	{ 'U', "^Run summary \\[PID [0-9]+\\]: blocking on [0-9]+ threads \\(at \\[(private|shared)\\] futex "
	       "0x[0-9a-f]+\\), waking up [0-9]+ at a time\\.$" },
	{ 'W', "^\\[Run [0-9]+\\]: Wokeup [0-9]+ of [0-9]+ threads in [0-9]+\\.[0-9]{4} ms$" },
	{ 'w', "^Wokeup [0-9]+ of [0-9]+ threads in [0-9]+\\.[0-9]{4} ms \\(\\+-[0-9]+\\.[0-9]{2}%\\)$" },
	{ 'V', "^Run summary \\[PID [0-9]+\\]: blocking on [0-9]+ threads \\(at \\[(private|shared)\\] futex "
	       "0x[0-9a-f]+\\), [0-9]+ threads waking up [0-9]+ at a time\\.$" },
	{ 'P', "^\\[Run [0-9]+\\]: Avg per-thread latency \\(waking [0-9]+/[0-9]+ threads\\) in [0-9]+\\.[0-9]{4} ms "
	       "\\(\\+-[0-9]+\\.[0-9]{2}%\\)$" },
	{ 'p', "^Avg per-thread latency \\(waking [0-9]+/[0-9]+ threads\\) in [0-9]+\\.[0-9]{4} ms "
	       "\\(\\+-[0-9]+\\.[0-9]{2}%\\)$" },
	{ 'X', "^Run summary \\[PID [0-9]+\\]: Requeuing [0-9]+ threads \\(from \\[(private|shared)\\] 0x[0-9a-f]+ "
	       "to (PI )?0x[0-9a-f]+\\), [0-9]+ at a time\\.$" },
	{ 'Q', "^\\[Run [0-9]+\\]: Requeued [0-9]+ of [0-9]+ threads in [0-9]+\\.[0-9]{4} ms$" },
	{ 'L', "^Run summary \\[PID [0-9]+\\]: [0-9]+ threads doing pi lock/unlock pairing for [0-9]+ secs\\.$" },
	{ 'Z', "^\\[Run [0-9]+\\]: Awoke and Requeued \\([0-9]+\\+[0-9]+\\) of [0-9]+ threads in [0-9]+\\.[0-9]{4} ms$" },
	{ 'q', "^Requeued [0-9]+ of [0-9]+ threads in [0-9]+\\.[0-9]{4} ms \\(\\+-[0-9]+\\.[0-9]{2}%\\)$" },
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

/* `futexsim bench ARGS` (perf bench's own options, then the suite), stdout only. */
static int bench_any(const char *args, char **out)
{
	return tu_shellf(out, "'%s' bench %s 2>/dev/null", tu_bin(), args);
}

/* The wake, wake-parallel and requeue suites: perf's header, a line per run
 * (unless -s) and its summary line; perf bench's -r sets the runs. */
START_TEST(test_suites_have_perf_formats)
{
	static const struct {
		const char *args, *shape;
	} cases[] = {
		{ "-r 3 futex wake -t 4", "HUBWWWw" },
		{ "-r 3 futex wake -t 4 -w 2 -s", "HUBw" },
		{ "--repeat=2 futex wake-parallel -t 4 -w 2", "HVBPPp" },
		{ "-r 3 futex requeue -t 4", "HXBQQQq" },
		{ "-r 2 futex requeue -t 4 -B -S", "HXBQQq" },
		{ "-r 2 futex requeue -t 4 -p", "HXBZZq" },
		{ "futex lock-pi -t 3 -r 0.002", "HLBTTTBA" },
		{ "futex lock-pi -t 2 -M -s -r 0.002", "HLBA" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *out, *again, *sh;

		ck_assert_int_eq(bench_any(cases[i].args, &out), 0);
		sh = shape(out);
		ck_assert_msg(!strcmp(sh, cases[i].shape), "%s: lines %s, expected %s:\n%s", cases[i].args, sh,
			      cases[i].shape, out);
		/* the same options, the same output */
		ck_assert_int_eq(bench_any(cases[i].args, &again), 0);
		ck_assert_str_eq(out, again);
		free(again);
		free(sh);
		free(out);
	}
	/* every blocked thread is woken (or requeued) in every run, by as many calls as
	 * it takes: 6 threads, 4 at a time */
	{
		char *out;

		ck_assert_int_eq(bench_any("-r 2 futex wake -t 6 -w 4 --machine e5-2650-2s", &out), 0);
		ck_assert_ptr_nonnull(strstr(out, "[Run 1]: Wokeup 6 of 6 threads in "));
		ck_assert_ptr_nonnull(strstr(out, "[Run 2]: Wokeup 6 of 6 threads in "));
		ck_assert_ptr_nonnull(strstr(out, "\nWokeup 6 of 6 threads in "));
		free(out);
		ck_assert_int_eq(bench_any("-r 1 futex requeue -t 5 -q 2", &out), 0);
		ck_assert_ptr_nonnull(strstr(out, "Requeuing 5 threads"));
		ck_assert_ptr_nonnull(strstr(out, "), 2 at a time."));
		ck_assert_ptr_nonnull(strstr(out, "[Run 1]: Requeued 5 of 5 threads in "));
		free(out);
	}
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
	/* --node 1: node 1's CPUs only (16 of the E5's 32) */
	ck_assert_int_eq(bench("-r 0.0001 -s --machine e5-2650-2s --node 1", &out), 0);
	ck_assert_ptr_nonnull(strstr(out, "Run summary [PID 0]: 16 threads,"));
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
	/* a value the model refuses is said of the option typed, not of the scenario
	 * override it became (issue 36: "--set kernel.private_hash.buckets=3:1:29: ...") */
	ck_assert_int_eq(tu_futexsim("bench futex hash -t 1 -b 3", &out), 3);
	ck_assert_msg(strstr(out, "futexsim bench futex hash: -b/--buckets 3: buckets: 3 is not a power of two") &&
			      !strstr(out, "--set"),
		      "%s", out);
	free(out);
	ck_assert_int_eq(tu_futexsim("bench futex wake-parallel -t 3 -w 2", &out), 3);
	ck_assert_msg(strstr(out, "-w/--nwakers 2: wakers: 3 blocked threads cannot be shared by 2 wakers") &&
			      !strstr(out, "--set"),
		      "%s", out);
	free(out);
	ck_assert_int_eq(tu_futexsim("bench futex hash --machine small-1node --cpus 99", &out), 3);
	ck_assert_msg(strstr(out, "--cpus 99: CPU list '99'") && !strstr(out, "--set"), "%s", out);
	free(out);
	/* -r is decimal seconds (issue 38: 0x10 was 16 s through strtod, while -t 0x8 was
	 * refused), and at most what fits with its warm-up, said of -r, not of run.seed */
	{
		static const char *const bad[] = { "0x10", "1e3", "inf", "nan", "3600", ".", "5.", "1.5s", "-1" };

		for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
			char args[128];

			snprintf(args, sizeof(args), "bench futex hash -t 1 -s -r %s", bad[k]);
			ck_assert_int_eq(tu_futexsim(args, &out), 2);
			/* what perf's parser itself takes for no number gets perf's words */
			ck_assert_msg((strstr(out, "Error: -r/--runtime needs decimal simulated seconds from 0.000001 to "
						   "3599.999") || strstr(out, "Error: switch `r' expects a numerical value")) &&
					      !strstr(out, "run.seed"),
				      "-r %s: %s", bad[k], out);
			free(out);
		}
	}
	ck_assert_int_eq(tu_futexsim("bench futex hash -t 1 -s -r .0005", &out), 0);
	free(out);
	/* perf's parse_options: -- ends the options, and perf bench futex takes no arguments */
	ck_assert_int_eq(tu_futexsim("bench futex hash -t 1 -s -r 0.0005 --", &out), 0);
	ck_assert_ptr_nonnull(strstr(out, "Averaged "));
	free(out);
	ck_assert_int_eq(tu_futexsim("bench futex hash -t 1 -- -s", &out), 2);
	ck_assert_ptr_nonnull(strstr(out, "Error: unexpected argument `-s'"));
	free(out);
	ck_assert_int_eq(tu_futexsim("bench futex hash -r 0.0001 -b 16 --kernel linux-6.15", &out), 2);
	ck_assert_ptr_nonnull(strstr(out, "no private futex hash"));
	free(out);
	/* the usage is the suite's */
	ck_assert_int_eq(tu_futexsim("bench futex requeue -w 2", &out), 2);
	ck_assert_ptr_nonnull(strstr(out, "Usage: futexsim bench futex requeue <options>"));
	ck_assert_ptr_nonnull(strstr(out, "-p, --pi"));
	free(out);
	/* an option of another suite is unknown here, as in perf */
	ck_assert_int_eq(tu_futexsim("bench futex wake -f 1", &out), 2);
	ck_assert_ptr_nonnull(strstr(out, "unknown switch `f'"));
	free(out);
	ck_assert_int_eq(tu_futexsim("bench futex frob", &out), 2);
	ck_assert_ptr_nonnull(strstr(out, "the suites are hash, wake, wake-parallel, requeue and lock-pi"));
	free(out);
	ck_assert_int_eq(tu_futexsim("bench sched pipe", &out), 2);
	free(out);
	ck_assert_int_eq(tu_futexsim("bench -r 0 futex wake", &out), 2);
	free(out);
	/* wake-parallel's wakers must divide the threads (perf: "Must be perfectly divisible") */
	ck_assert_int_eq(tu_futexsim("bench futex wake-parallel -t 6 -w 4", &out), 3);
	ck_assert_ptr_nonnull(strstr(out, "6 blocked threads cannot be shared by 4 wakers"));
	free(out);
	ck_assert_int_eq(tu_futexsim("bench", &out), 2);
	free(out);
	ck_assert_int_eq(tu_futexsim("bench --help", &out), 0);
	ck_assert_ptr_nonnull(strstr(out, "usage: futexsim bench [-r N] futex SUITE"));
	free(out);
	ck_assert_int_eq(tu_futexsim("help bench", &out), 0);
	ck_assert_ptr_nonnull(strstr(out, "usage: futexsim bench [-r N] futex SUITE"));
	free(out);
}
END_TEST

/* perf's parse-options: a suite's -h prints that suite's usage and exits 129; long
 * options abbreviated, --no- forms, perf's words for a value that is no number */
START_TEST(test_perf_parse_options)
{
	static const struct {
		const char *args;
		int status;
		const char *has, *lacks; /* lacks may be NULL */
	} cases[] = {
		{ "wake-parallel -h", 129, "Usage: futexsim bench futex wake-parallel <options>", "--futexes" },
		{ "wake-parallel -h", 129, "-w, --nwakers <n>", "usage: futexsim bench [-r N]" },
		{ "hash --help", 129, "-f, --futexes <n>", "--nwakers" },
		{ "hash --thr 2 --fut 4 -r 0.0001 -s --no-sil", 0, "2 threads, each operating on 4 [private] futexes",
		  NULL },
		{ "hash --thr 2 -r 0.0001 -s --no-sil", 0, "[thread  1] futexes:", NULL },
		{ "hash -S -r 0.0001 -t 1 --no-shared", 0, "[private] futexes", "[shared]" },
		{ "hash --s", 2, " Error: Ambiguous option: s (could be --silent or --shared)", NULL },
		{ "hash -t x", 2, " Error: switch `t' expects a numerical value", NULL },
		{ "hash --threads=x", 2, " Error: option `threads' expects a numerical value", NULL },
		{ "hash --no-machine", 2, "unknown option `no-machine'", NULL },
		/* an abbreviation means what it means to perf: perf's options before futexsim's */
		{ "requeue --p -t 2 -s", 0, "to PI 0x", NULL },
		{ "hash --m -t 1 -s -r 0.0001", 0, "Averaged ", NULL },
		{ "lock-pi --m", 2, " Error: Ambiguous option: m (could be --multi or --mlockall)", NULL },
		{ "hash --prog -t 1 -s -r 0.0001", 0, "Averaged ", NULL },
		{ "hash --pr", 2, " Error: Ambiguous option: pr (could be --progress or --print-scenario)", NULL },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *out;

		ck_assert_int_eq(tu_futexsimf(&out, "bench futex %s", cases[i].args), cases[i].status);
		ck_assert_msg(strstr(out, cases[i].has), "%s: no '%s' in:\n%s", cases[i].args, cases[i].has, out);
		ck_assert_msg(!cases[i].lacks || !strstr(out, cases[i].lacks), "%s: '%s' in:\n%s", cases[i].args,
			      cases[i].lacks, out);
		free(out);
	}
}
END_TEST

/* perf's wake-parallel: without -w, as many wakers as threads, each waking one */
START_TEST(test_wake_parallel_default_wakers)
{
	/* -t 8; no -t: every CPU of the machine (small-1node: 8); -w 2 as given */
	static const char *const cases[][2] = {
		{ "-t 8", "blocking on 8 threads (at [private] futex 0x55c04be0e014), 8 threads waking up 1 at a time." },
		{ "--machine small-1node", "blocking on 8 threads (at [private] futex 0x55c04be0e014), 8 threads waking up 1 at a time." },
		{ "-t 8 -w 2", "2 threads waking up 4 at a time." },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *out;

		ck_assert_int_eq(tu_futexsimf(&out, "bench -r 1 futex wake-parallel %s", cases[i][0]), 0);
		ck_assert_msg(strstr(out, cases[i][1]), "%s: no '%s' in:\n%s", cases[i][0], cases[i][1], out);
		free(out);
	}
}
END_TEST

/* perf itself, when it is installed and its benchmarks run here (they may not,
 * e.g. in a container without the perf tools of this kernel): the same regexes,
 * the same lines in the same order, suite by suite. perf before 6.16 prints no
 * "Futex hashing:" line. */
START_TEST(test_same_lines_as_perf)
{
	static const struct {
		const char *perf_args, *sim_args;
	} cases[] = {
		{ "futex hash -r 1 -t 2", "futex hash -r 0.0001 -t 2" },
		{ "-r 2 futex wake -t 2", "-r 2 futex wake -t 2" },
		{ "-r 2 futex wake-parallel -t 2 -w 1", "-r 2 futex wake-parallel -t 2 -w 1" },
		{ "-r 2 futex requeue -t 2", "-r 2 futex requeue -t 2" },
		{ "-r 2 futex requeue -t 2 -p", "-r 2 futex requeue -t 2 -p" },
		{ "futex lock-pi -r 1 -t 2", "futex lock-pi -r 0.002 -t 2" },
	};
	char *perf_out = NULL;
	const char *perf = tu_exists("/usr/bin/perf") ? "/usr/bin/perf" : NULL;

	if (!perf && tu_shell("command -v perf >/dev/null 2>&1", &perf_out) == 0)
		perf = "perf";
	free(perf_out);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *sim_out, *perf_shape, *sim_shape;
		size_t n;

		perf_out = NULL;
		if (!perf || tu_shellf(&perf_out, "%s bench %s 2>/dev/null", perf, cases[i].perf_args) != 0 ||
		    !strstr(perf_out, "# Running")) {
			fprintf(stderr, "check_perfbench: test_same_lines_as_perf SKIPPED for '%s': %s\n",
				cases[i].perf_args,
				perf ? "perf bench does not run it here" : "no perf installed (/usr/bin/perf or on PATH)");
			free(perf_out);
			continue;
		}
		ck_assert_int_eq(bench_any(cases[i].sim_args, &sim_out), 0);
		perf_shape = shape(perf_out);
		sim_shape = shape(sim_out);
		n = strlen(perf_shape);
		if (i == 0 && n && perf_shape[n - 1] != 'F') {
			fprintf(stderr, "check_perfbench: perf before 6.16 (no 'Futex hashing:' line): compared without it\n");
			sim_shape[strlen(sim_shape) - 1] = '\0';
		}
		ck_assert_msg(!strcmp(perf_shape, sim_shape), "perf's lines %s, futexsim's %s\nperf:\n%s\nfutexsim:\n%s",
			      perf_shape, sim_shape, perf_out, sim_out);
		fprintf(stderr, "check_perfbench: perf bench %s and futexsim have the same lines: %s\n",
			cases[i].perf_args, perf_shape);
		free(perf_shape);
		free(sim_shape);
		free(perf_out);
		free(sim_out);
	}
}
END_TEST

/* `futexsim bench ARGS` run in `dir`, its standard output and error apart (malloc'd);
 * its exit status. */
static int bench_split(const char *dir, const char *args, char **out, char **err)
{
	char *ignored;
	int status = tu_shellf(&ignored, "cd '%s' && '%s' bench %s >stdout 2>stderr", dir, tu_bin(), args);

	free(ignored);
	ck_assert_int_eq(tu_shellf(out, "cat '%s/stdout'", dir), 0);
	ck_assert_int_eq(tu_shellf(err, "cat '%s/stderr'", dir), 0);
	return status;
}

/* The figure of the summary line that starts with `prefix` (perf's Averaged, or a wake
 * suite's Wokeup line) up to `end` (malloc'd), or NULL. */
static char *summary_line(const char *text, const char *prefix, const char *end)
{
	const char *l = text, *e;

	while (l && strncmp(l, prefix, strlen(prefix)))
		l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL;
	if (!l || !(e = strstr(l, end)))
		return NULL;
	return strndup(l, (size_t)(e - l));
}

/* The summary line from `prefix` to `end` is in both outputs, the same: what bench
 * printed (`printed`) and what `what` printed of its file or scenario (`other`). */
static void assert_same_figure(const char *args, const char *printed, const char *other, const char *prefix,
			       const char *end, const char *what)
{
	char *want = summary_line(printed, prefix, end), *got = summary_line(other, prefix, end);

	ck_assert_msg(want && got && !strcmp(want, got), "%s: bench printed '%s', %s '%s':\n%s", args,
		      want ? want : "(none)", what, got ? got : "(none)", other);
	free(want);
	free(got);
}

/* -o FILE.h5 writes the result file run -o writes: show reads back the same figure
 * perf's summary line printed, explain and c2c read it; standard output is perf's lines
 * as without -o; run's output-path protections */
START_TEST(test_output_file)
{
	static const struct {
		const char *args, *prefix, *end;
	} cases[] = {
		{ "futex hash -t 2 -r 0.001", "Averaged ", ", total secs" },
		{ "-r 2 futex wake -t 4 -s", "Wokeup ", "\n" },
	};
	char dir[64];

	tu_mkdtemp(dir, "futexsim-bench-o");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char args[256], *plain, *out, *err, *shown;

		ck_assert_int_eq(bench_split(dir, cases[i].args, &plain, &err), 0);
		free(err);
		snprintf(args, sizeof(args), "%s -o b%zu.h5", cases[i].args, i);
		ck_assert_int_eq(bench_split(dir, args, &out, &err), 0);
		ck_assert_str_eq(out, plain); /* perf's lines, byte for byte */
		ck_assert_msg(strstr(err, "futexsim: results in b"), "%s: stderr:\n%s", args, err);
		ck_assert_int_eq(tu_shellf(&shown, "cd '%s' && '%s' show b%zu.h5", dir, tu_bin(), i), 0);
		assert_same_figure(args, out, shown, cases[i].prefix, cases[i].end, "show");
		free(shown);
		ck_assert_int_eq(tu_shellf(&shown, "cd '%s' && '%s' explain b%zu.h5", dir, tu_bin(), i), 0);
		ck_assert_ptr_nonnull(strstr(shown, "ns per op"));
		free(shown);
		ck_assert_int_eq(tu_shellf(&shown, "cd '%s' && '%s' c2c b%zu.h5 -n 2", dir, tu_bin(), i), 0);
		ck_assert_ptr_nonnull(strstr(shown, "transfers"));
		free(shown);
		free(plain);
		free(out);
		free(err);
	}
	/* run's protections: no device, no symbolic link without --force, no input of the run */
	{
		char *out, *err;

		ck_assert_int_eq(bench_split(dir, "futex hash -t 1 -r 0.0001 -o /dev/null", &out, &err), 4);
		ck_assert_ptr_nonnull(strstr(err, "cannot write /dev/null: it is not a regular file"));
		ck_assert_str_eq(out, "");
		free(out);
		free(err);
		ck_assert_int_eq(tu_shellf(&out, "cd '%s' && ln -s b0.h5 link.h5 && cp b0.h5 before.h5", dir), 0);
		free(out);
		ck_assert_int_eq(bench_split(dir, "futex hash -t 1 -r 0.0001 -o link.h5", &out, &err), 4);
		ck_assert_ptr_nonnull(strstr(err, "it is a symbolic link (--force replaces the link"));
		free(out);
		free(err);
		ck_assert_int_eq(tu_shellf(&out, "cd '%s' && test -L link.h5 && cmp b0.h5 before.h5", dir), 0);
		free(out);
		ck_assert_int_eq(bench_split(dir, "futex hash -t 1 -r 0.0001 -s -o link.h5 --force", &out, &err), 0);
		free(out);
		free(err);
		ck_assert_int_eq(tu_shellf(&out, "cd '%s' && test -f link.h5 && ! test -L link.h5 && cmp b0.h5 before.h5",
					   dir), 0);
		free(out);
		/* the tests run at the top of the tree */
		ck_assert_int_eq(tu_shellf(&out, "cp scenarios/quickstart.yaml '%s/q.yaml'", dir), 0);
		free(out);
		ck_assert_int_eq(bench_split(dir, "futex hash -t 1 -r 0.0001 --scenario q.yaml -o q.yaml", &out, &err), 4);
		ck_assert_ptr_nonnull(strstr(err, "it is an input of the run"));
		free(out);
		free(err);
	}
	tu_rmtree(dir);
}
END_TEST

/* --print-scenario prints the scenario the options stand for, as run --print-scenario
 * does: futexsim run checks it, and runs it to the figure bench prints; nothing run */
START_TEST(test_print_scenario)
{
	static const struct {
		const char *args, *prefix, *end;
	} cases[] = {
		{ "futex hash -t 2 -r 0.001 -b 16", "Averaged ", " operations/sec" },
		{ "futex lock-pi -t 2 -r 0.001", "Averaged ", " operations/sec" },
		{ "-r 2 futex requeue -t 4 -s", "Requeued ", "\n" },
	};
	char dir[64];

	tu_mkdtemp(dir, "futexsim-bench-ps");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char args[256], *bench_out, *out, *err, *ran;

		ck_assert_int_eq(bench_split(dir, cases[i].args, &bench_out, &err), 0);
		free(err);
		snprintf(args, sizeof(args), "%s --print-scenario", cases[i].args);
		ck_assert_int_eq(bench_split(dir, args, &out, &err), 0);
		ck_assert_msg(!strstr(out, "# Running") && strstr(out, "\nworkload:"), "%s:\n%s", args, out);
		ck_assert_str_eq(err, "");
		free(out);
		free(err);
		ck_assert_int_eq(tu_shellf(&ran, "cd '%s' && cp stdout s%zu.yaml && '%s' run s%zu.yaml --check", dir, i,
					   tu_bin(), i), 0);
		ck_assert_str_eq(ran, "");
		free(ran);
		ck_assert_int_eq(tu_shellf(&ran, "cd '%s' && '%s' run s%zu.yaml --no-output 2>/dev/null", dir, tu_bin(), i),
				 0);
		assert_same_figure(args, bench_out, ran, cases[i].prefix, cases[i].end, "run of its scenario");
		free(ran);
		free(bench_out);
	}
	/* --print-scenario writes no file, as run's */
	{
		char *out, *err;

		ck_assert_int_eq(bench_split(dir, "futex hash -t 1 --print-scenario -o none.h5", &out, &err), 0);
		free(out);
		free(err);
		ck_assert_int_eq(tu_shellf(&out, "test ! -e '%s/none.h5'", dir), 0);
		free(out);
	}
	tu_rmtree(dir);
}
END_TEST

/* --quiet: errors only (nothing on either stream, the file written); --progress: the
 * progress on stderr, standard output unchanged; the combinations run refuses, refused */
START_TEST(test_quiet_and_progress)
{
	char dir[64], *out, *err, *plain;

	tu_mkdtemp(dir, "futexsim-bench-q");
	ck_assert_int_eq(bench_split(dir, "futex hash -t 2 -r 0.001 --quiet", &out, &err), 0);
	ck_assert_str_eq(out, "");
	ck_assert_str_eq(err, "");
	free(out);
	free(err);
	ck_assert_int_eq(bench_split(dir, "-r 2 futex wake -t 4 --quiet -o q.h5", &out, &err), 0);
	ck_assert_str_eq(out, "");
	ck_assert_str_eq(err, "");
	free(out);
	free(err);
	ck_assert_int_eq(tu_shellf(&out, "cd '%s' && '%s' show q.h5 | grep -q '^Wokeup 4 of 4 threads in '", dir,
				   tu_bin()), 0);
	free(out);
	/* an error still says so under --quiet */
	ck_assert_int_eq(bench_split(dir, "futex hash -t 1 --quiet --machine no-such-machine", &out, &err), 3);
	ck_assert_ptr_nonnull(strstr(err, "no-such-machine"));
	free(out);
	free(err);
	ck_assert_int_eq(bench_split(dir, "futex hash -t 2 -r 0.001", &plain, &err), 0);
	free(err);
	ck_assert_int_eq(bench_split(dir, "futex hash -t 2 -r 0.001 --progress", &out, &err), 0);
	ck_assert_str_eq(out, plain);
	ck_assert_msg(strstr(err, "progress: 1.1 of 1.1 ms simulated (100%), "), "stderr:\n%s", err);
	free(out);
	free(err);
	free(plain);
	/* refused as run refuses them, and -v (futexsim's figures) with --quiet */
	{
		static const struct {
			const char *args, *msg;
		} bad[] = {
			{ "futex hash --quiet --progress", "futexsim bench: --quiet and --progress exclude each other (--quiet "
							   "prints errors only)" },
			{ "futex wake --progress --quiet", "--quiet and --progress exclude each other" },
			{ "futex hash --quiet -v", "futexsim bench: --quiet and -v exclude each other" },
			{ "futex hash -o", " Error: switch `o' requires a value" },
			{ "futex hash --output", " Error: option `output' requires a value" },
			{ "futex hash -o -s", " Error: -o/--output needs a file name (or - for none)" },
			{ "futex hash --no-quiet", "unknown option `no-quiet'" },
		};

		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			ck_assert_int_eq(bench_split(dir, bad[i].args, &out, &err), 2);
			ck_assert_msg(strstr(err, bad[i].msg), "%s: no '%s' in:\n%s", bad[i].args, bad[i].msg, err);
			ck_assert_msg(!strstr(out, "Averaged"), "%s ran:\n%s", bad[i].args, out);
			free(out);
			free(err);
		}
	}
	tu_rmtree(dir);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("perfbench");
	TCase *tc = tcase_create("bench futex hash");

	tcase_add_test(tc, test_lines_have_perf_formats);
	tcase_add_test(tc, test_suites_have_perf_formats);
	tcase_add_test(tc, test_silent_and_buckets);
	tcase_add_test(tc, test_bad_options);
	tcase_add_test(tc, test_perf_parse_options);
	tcase_add_test(tc, test_wake_parallel_default_wakers);
	tcase_add_test(tc, test_same_lines_as_perf);
	tcase_add_test(tc, test_output_file);
	tcase_add_test(tc, test_print_scenario);
	tcase_add_test(tc, test_quiet_and_progress);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run_suite(suite());
}
