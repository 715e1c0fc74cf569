/* SPDX-License-Identifier: MIT */
/* Tests of scenarios/sweep and scenarios/sweep.sbatch: the grid (size, order, names,
 * bad input), a local sweep's result files and the --set list each one records,
 * failures reported with exit 1, --resume running only the runs without a complete
 * result, one Slurm array task, and the multi-host path through a throwaway sshd on
 * 127.0.0.1 (tests/sweep_ssh.sh). Runs from the checkout; FUTEXSIM names the binary. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/testutil.h"

#define SWEEP "scenarios/sweep scenarios/quickstart.yaml "
/* every run a fraction of a millisecond of simulated time */
#define SHORT " -- --set run.duration=200us --set run.warmup=20us"

static char tmp[64];

static int exists(const char *fmt, const char *a, const char *b)
{
	char path[512];
	struct stat st;

	snprintf(path, sizeof(path), fmt, a, b);
	return stat(path, &st) == 0 && st.st_size > 0;
}

/* The --set list a result file recorded (the overrides column of show --csv). */
static char *overrides_of(const char *dir, const char *name)
{
	char *out, *field;
	int i;

	ck_assert_int_eq(tu_shellf(&out, "\"$FUTEXSIM\" show --csv '%s/h5/%s.h5' | tail -n 1", dir, name), 0);
	field = out;
	for (i = 0; i < 4 && field; i++) {
		field = strchr(field, ',');
		field = field ? field + 1 : NULL;
	}
	ck_assert_ptr_nonnull(field);
	*strchr(field, ',') = '\0';
	memmove(out, field, strlen(field) + 1);
	return out;
}

static void assert_overrides(const char *dir, const char *name, const char *expected)
{
	char *o = overrides_of(dir, name);

	ck_assert_msg(!strcmp(o, expected), "%s: overrides '%s', expected '%s'", name, o, expected);
	free(o);
}

static void assert_has(const char *out, const char *what)
{
	ck_assert_msg(strstr(out, what) != NULL, "expected '%s' in:\n%s", what, out);
}

START_TEST(test_grid_size_and_order)
{
	char *out;

	ck_assert_int_eq(tu_shellf(&out, SWEEP "--count --param a.b=1,2,3 --param c=x,y"), 0);
	ck_assert_str_eq(out, "6\n");
	free(out);
	/* rows x params; comments and blank lines skipped; a value with a comma */
	ck_assert_int_eq(tu_shellf(&out, "printf 'workload.threads\\tworkload.cpus\\n2\\t0,1\\n# x\\n\\n4\\tall\\n' >%s/rows.tsv && "
				  SWEEP "--count --rows %s/rows.tsv --param kernel.private_hash.buckets=2,16",
			    tmp, tmp),
			 0);
	ck_assert_str_eq(out, "4\n");
	free(out);
	/* the first --param varies slowest; names carry the number, short keys and values */
	ck_assert_int_eq(tu_shellf(&out, SWEEP "%s/dry --dry-run --param kernel.private_hash.buckets=2,16 --param run.seed=1,2 "
				  "| sed 's/^.*quickstart.yaml. //'",
			    tmp),
			 0);
	ck_assert_msg(strstr(out, "--set 'kernel.private_hash.buckets=2' --set 'run.seed=1' -o '") == out, "%s", out);
	{
		const char *want[] = { "buckets=2' --set 'run.seed=1' -o '%s/dry/h5/0001_buckets-2_seed-1.h5'",
				       "buckets=2' --set 'run.seed=2' -o '%s/dry/h5/0002_buckets-2_seed-2.h5'",
				       "buckets=16' --set 'run.seed=1' -o '%s/dry/h5/0003_buckets-16_seed-1.h5'",
				       "buckets=16' --set 'run.seed=2' -o '%s/dry/h5/0004_buckets-16_seed-2.h5'" };
		const char *p = out;

		for (int i = 0; i < 4; i++) {
			char line[256];

			snprintf(line, sizeof(line), want[i], tmp);
			p = strstr(p, line);
			ck_assert_msg(p != NULL, "run %d out of order or missing in:\n%s", i + 1, out);
		}
	}
	free(out);
	ck_assert(!exists("%s/%s", tmp, "dry")); /* --dry-run writes nothing */
	ck_assert_int_eq(tu_shellf(&out, SWEEP "%s/dry --dry-run --rows %s/rows.tsv", tmp, tmp), 0);
	assert_has(out, "--set 'workload.threads=2' --set 'workload.cpus=0,1' -o '");
	assert_has(out, "/h5/0001_threads-2_cpus-0-1.h5'");
	free(out);
}
END_TEST

/* Bad command lines and inputs: exit 2 and a message that says what is wrong. */
static const struct {
	const char *args, *message;
} bad[] = {
	{ "--param", "--param needs KEY=V1,V2,..." },
	{ "--param kernel.private_hash.buckets", "expected KEY=V1,V2,..." },
	{ "--param kernel.private_hash.buckets=2,,4", "empty value in the list" },
	{ "--param kernel.private_hash.buckets=", "empty value in the list" },
	{ "--param 9bad=1", "'9bad' is not a scenario key" },
	{ "--param a=1 --param a=2", "key a is swept twice" },
	{ "", "nothing to sweep" },
	{ "-j 0 --param a=1", "-j 0: expected a positive integer" },
	{ "--row x --param a=1", "--row x: expected a positive integer" },
	{ "--param a=1 -- -o x.h5", "the sweep chooses the result files" },
	{ "--param a=1 -- --no-output", "the sweep chooses the result files" },
	{ "--rows /nonexistent.tsv", "/nonexistent.tsv: no such readable file" },
	{ "--rows @/badrows.tsv", "badrows.tsv:3: 1 fields, the header has 2" },
	{ "--rows @/emptyfield.tsv", "emptyfield.tsv:2: empty field" },
	{ "--hosts @/colonhosts --param a=1", "':' (no ssh) cannot mix with remote hosts" },
	{ "--hosts @/nohosts --param a=1", "no hosts in it" },
	/* refused before anything runs, hosts or not (this checkout's futexsim checks it) */
	{ "--hosts @/onehost --param kernel.privat_hash.buckets=2", "kernel.privat_hash.buckets=2: " },
	{ "--param kernel.private_hash.buckets=2,banana", "kernel.private_hash.buckets=banana: " },
	{ "--row 9 --param a=1,2", "--row 9: the grid has 2 runs" },
	{ "--frobnicate", "unknown option --frobnicate" },
};

START_TEST(test_bad_input)
{
	char args[512], *out;
	const char *at = strchr(bad[_i].args, '@');

	/* @ stands for the temporary directory, which holds the bad files */
	if (at)
		snprintf(args, sizeof(args), "%.*s%s%s", (int)(at - bad[_i].args), bad[_i].args, tmp, at + 1);
	else
		snprintf(args, sizeof(args), "%s", bad[_i].args);
	ck_assert_int_eq(tu_shellf(&out, "cd %s && printf 'a\\tb\\n1\\t2\\n3\\n' >badrows.tsv && printf 'a\\tb\\n1\\t\\n' >emptyfield.tsv "
				  "&& printf '2/:\\n' >colonhosts && printf '# none\\n\\n' >nohosts && printf '127.0.0.1\\n' >onehost",
			    tmp),
			 0);
	free(out);
	ck_assert_int_eq(tu_shellf(&out, SWEEP "%s/bad%d %s", tmp, _i, args), 2);
	ck_assert_msg(strstr(out, bad[_i].message) != NULL, "%s: expected '%s' in:\n%s", args, bad[_i].message, out);
	free(out);
}
END_TEST

START_TEST(test_no_scenario)
{
	char *out;

	ck_assert_int_eq(tu_shellf(&out, "scenarios/sweep scenarios/nosuch.yaml %s/bad --param a=1", tmp), 2);
	assert_has(out, "scenarios/nosuch.yaml: no such readable scenario file");
	free(out);
}
END_TEST

START_TEST(test_local_sweep)
{
	char dir[128], *out;
	const char *names[] = { "0001_buckets-2_seed-1", "0002_buckets-2_seed-2", "0003_buckets-16_seed-1",
				"0004_buckets-16_seed-2" };
	const char *sets[] = { "kernel.private_hash.buckets=2 run.seed=1", "kernel.private_hash.buckets=2 run.seed=2",
			       "kernel.private_hash.buckets=16 run.seed=1",
			       "kernel.private_hash.buckets=16 run.seed=2" };

	snprintf(dir, sizeof(dir), "%s/local", tmp);
	ck_assert_int_eq(tu_shellf(&out, SWEEP "%s --param kernel.private_hash.buckets=2,16 --param run.seed=1,2 -j 2" SHORT, dir),
			 0);
	assert_has(out, "4 of 4 runs have results in");
	free(out);
	for (int i = 0; i < 4; i++) {
		char want[256];

		ck_assert_msg(exists("%s/logs/%s.log", dir, names[i]), "no log of %s", names[i]);
		snprintf(want, sizeof(want), "%s run.duration=200us run.warmup=20us", sets[i]);
		assert_overrides(dir, names[i], want);
	}
	ck_assert_int_eq(tu_shellf(&out, "sed -n 4p %s/runs.tsv", dir), 0);
	ck_assert_str_eq(out, "name\tkernel.private_hash.buckets\trun.seed\n");
	free(out);
}
END_TEST

/* A bad value is refused before anything runs (futexsim run --check on each value). */
START_TEST(test_values_checked_first)
{
	char dir[128], *out;

	snprintf(dir, sizeof(dir), "%s/checked", tmp);
	ck_assert_int_eq(tu_shellf(&out, SWEEP "%s --param workload.threads=2,abc,4 -j 1" SHORT, dir), 2);
	assert_has(out, "scenarios/sweep: workload.threads=abc: ");
	assert_has(out, "'abc' is not an integer");
	free(out);
	ck_assert_int_eq(tu_shellf(&out, SWEEP "%s --param kernel.private_hash.bukets=2 -j 1" SHORT, dir), 2);
	assert_has(out, "unknown key 'bukets' in private_hash (did you mean 'buckets'?)");
	free(out);
	/* a row is checked whole: CPU 40 exists only on the row's own machine (the first
	 * row's machine, small-1node, has 8), and a row that pairs it with a machine
	 * without it is refused, by its line */
	ck_assert_int_eq(tu_shellf(&out, "printf 'machine\tworkload.threads\tworkload.cpus\nsmall-1node\t2\t0,1\n"
				  "e7-8890v3-4s\t2\t0,40\n' >%s/pairs.tsv && " SWEEP "%s/pairs --rows %s/pairs.tsv -j 1" SHORT,
				  tmp, tmp, tmp), 0);
	free(out);
	ck_assert_int_eq(tu_shellf(&out, "ls %s/pairs/h5 | wc -l", tmp), 0);
	ck_assert_str_eq(out, "2\n");
	free(out);
	ck_assert_int_eq(tu_shellf(&out, "printf 'machine\tworkload.cpus\ne7-8890v3-4s\t0,40\nsmall-1node\t0,40\n' "
				  ">%s/badpair.tsv && " SWEEP "%s --rows %s/badpair.tsv -j 1" SHORT, tmp, dir, tmp), 2);
	assert_has(out, "badpair.tsv: row 'small-1node 0,40': ");
	assert_has(out, "CPU 40 out of range");
	free(out);
	/* nothing ran: no result, no log, no job log */
	ck_assert_int_eq(tu_shellf(&out, "find %s/h5 %s/logs -type f | wc -l; ls %s | grep -c joblog", dir, dir, dir), 1);
	ck_assert_str_eq(out, "0\n0\n");
	free(out);
}
END_TEST

START_TEST(test_failure_and_resume)
{
	char dir[128], kept[256], *out;
	struct stat before, after;

	/* run 2 cannot write its result (a directory is in the way): it fails at run time */
	snprintf(dir, sizeof(dir), "%s/fail", tmp);
	ck_assert_int_eq(tu_shellf(&out, "mkdir -p %s/h5/0002_threads-3.h5", dir), 0);
	free(out);
	ck_assert_int_eq(tu_shellf(&out, SWEEP "%s --param workload.threads=2,3,4 -j 1" SHORT, dir), 1);
	assert_has(out, "2 of 3 runs have results");
	assert_has(out, "1 failed:");
	assert_has(out, "0002_threads-3: exit 4 on :, log ");
	assert_has(out, "--resume");
	free(out);

	/* the same directory again: only with --resume, and only for the same grid */
	ck_assert_int_eq(tu_shellf(&out, SWEEP "%s --param workload.threads=2,3,4 -j 1" SHORT, dir), 2);
	assert_has(out, "already holds a sweep");
	free(out);
	ck_assert_int_eq(tu_shellf(&out, SWEEP "%s --param workload.threads=2,5,4 --resume" SHORT, dir), 2);
	assert_has(out, "holds another sweep");
	free(out);

	/* --resume: the lost run, the truncated one and the failed one run again, the
	 * good one stays */
	snprintf(kept, sizeof(kept), "%s/h5/0003_threads-4.h5", dir);
	ck_assert_int_eq(stat(kept, &before), 0);
	ck_assert_int_eq(tu_shellf(&out, "rmdir %s/h5/0002_threads-3.h5 && cp %s/h5/0001_threads-2.h5 %s/whole.h5 && "
				  "head -c 3000 %s/whole.h5 > %s/h5/0001_threads-2.h5",
			    dir, dir, dir, dir, dir),
			 0);
	free(out);
	ck_assert_int_eq(tu_shellf(&out, SWEEP "%s --param workload.threads=2,3,4 -j 1 --resume" SHORT, dir), 0);
	assert_has(out, "ok 0001_threads-2 Averaged");
	assert_has(out, "ok 0002_threads-3 Averaged");
	ck_assert_ptr_null(strstr(out, "0003_threads-4 Averaged"));
	assert_has(out, "3 of 3 runs have results");
	free(out);
	ck_assert_int_eq(stat(kept, &after), 0);
	ck_assert_int_eq(before.st_ino, after.st_ino);
	ck_assert_int_eq(before.st_mtime, after.st_mtime);

	/* a complete, readable file of another grid point (or another sweep) under a run's
	 * name is not that run's (issue 38): it runs again, and the sweep says why; the
	 * others are kept */
	ck_assert_int_eq(tu_shellf(&out, "cp %s/h5/0001_threads-2.h5 %s/h5/0002_threads-3.h5 && "
				  "cp %s/whole.h5 %s/h5/0003_threads-4.h5", dir, dir, dir, dir),
			 0);
	free(out);
	ck_assert_int_eq(tu_shellf(&out, SWEEP "%s --param workload.threads=2,3,4 -j 1 --resume" SHORT, dir), 0);
	assert_has(out, "running 0002_threads-3 again: h5/0002_threads-3.h5 is not this run's result");
	assert_has(out, "running 0003_threads-4 again: h5/0003_threads-4.h5 is not this run's result");
	assert_has(out, "ok 0002_threads-3 Averaged");
	assert_has(out, "ok 0003_threads-4 Averaged");
	ck_assert_ptr_null(strstr(out, "0001_threads-2 Averaged"));
	ck_assert_ptr_null(strstr(out, "running 0001_threads-2 again"));
	free(out);
	assert_overrides(dir, "0002_threads-3", "workload.threads=3 run.duration=200us run.warmup=20us");
	assert_overrides(dir, "0003_threads-4", "workload.threads=4 run.duration=200us run.warmup=20us");

	/* an edited scenario: --resume would mix two scenarios' results */
	ck_assert_int_eq(tu_shellf(&out, "cp scenarios/quickstart.yaml %s/s.yaml && scenarios/sweep %s/s.yaml %s/edit "
				  "--param workload.threads=2 -j 1" SHORT " >/dev/null 2>&1 && echo '# edited' >> %s/s.yaml && "
				  "scenarios/sweep %s/s.yaml %s/edit --param workload.threads=2 --resume" SHORT,
			    dir, dir, dir, dir, dir, dir),
			 2);
	assert_has(out, "holds another sweep");
	assert_has(out, "# scenario checksum");
	free(out);
}
END_TEST

/* One sweep at a time in a directory (a second one, even --resume, is refused while
 * it runs); SIGTERM to the sweep's pid stops it and its runs, none of them counted
 * done; its plan records the run options, so a --resume with others is refused. */
START_TEST(test_lock_and_sigterm)
{
	char dir[128], *out;

	snprintf(dir, sizeof(dir), "%s/term", tmp);
	/* long runs (1 s of simulated time at 8 threads: seconds each), one at a time */
	ck_assert_int_eq(tu_shellf(&out, "(scenarios/sweep scenarios/quickstart.yaml %s --param run.seed=1,2,3 -j 1 "
				  "-- --set run.duration=1s > %s.out 2>&1 & echo $! > %s.pid; wait) & "
				  "for i in $(seq 100); do [ -s %s/logs/0001_seed-1.log ] && break; sleep 0.1; done; "
				  "scenarios/sweep scenarios/quickstart.yaml %s --param run.seed=1,2,3 --resume -j 1 "
				  "-- --set run.duration=1s; echo second=$?; kill -TERM $(cat %s.pid); wait; "
				  "cat %s.out; pgrep -f '[f]utexsim run .*run.duration=1s' | wc -l",
			    dir, dir, dir, dir, dir, dir, dir),
			 0);
	assert_has(out, "another sweep is running in it");
	assert_has(out, "second=2");
	assert_has(out, "interrupted; run the same command with --resume to continue");
	assert_has(out, "0 of 3 runs have results");
	/* nothing of the sweep still runs */
	ck_assert_msg(strstr(out, "\n0\n") != NULL, "runs left behind:\n%s", out);
	free(out);
	ck_assert_int_eq(tu_shellf(&out, "scenarios/sweep scenarios/quickstart.yaml %s --param run.seed=1,2,3 --resume "
				  "-j 2 -- --set run.duration=1s --set run.duration=200us --set run.warmup=20us",
			    dir),
			 2);
	assert_has(out, "holds another sweep");
	free(out);
}
END_TEST

START_TEST(test_slurm_tasks_then_resume)
{
	char dir[128], *out;

	snprintf(dir, sizeof(dir), "%s/slurm", tmp);
	ck_assert_int_eq(tu_shellf(&out, "env -u SLURM_ARRAY_TASK_ID bash scenarios/sweep.sbatch " SWEEP "%s", dir), 2);
	assert_has(out, "SLURM_ARRAY_TASK_ID is not set");
	free(out);
	/* task 2 of the array: run 2 of the grid, nothing else */
	ck_assert_int_eq(tu_shellf(&out, "cd /tmp && SLURM_ARRAY_TASK_ID=2 SLURM_SUBMIT_DIR=$OLDPWD bash $OLDPWD/scenarios/sweep.sbatch "
				  "scenarios/quickstart.yaml %s --param kernel.private_hash.buckets=2,16,64" SHORT,
			    dir),
			 0);
	assert_has(out, "ok 0002_buckets-16 Averaged");
	free(out);
	ck_assert(exists("%s/h5/%s.h5", dir, "0002_buckets-16"));
	ck_assert(!exists("%s/h5/%s.h5", dir, "0001_buckets-2"));
	assert_overrides(dir, "0002_buckets-16", "kernel.private_hash.buckets=16 run.duration=200us run.warmup=20us");

	/* task 1 ends up interrupted (its file marked incomplete); task 3 never ran:
	 * --resume, with no job log, runs exactly those two */
	ck_assert_int_eq(tu_shellf(&out, "scenarios/sweep --row 1 scenarios/quickstart.yaml %s "
				  "--param kernel.private_hash.buckets=2,16,64" SHORT " && "
				  TU_MARK_INCOMPLETE
				  "%s/h5/0001_buckets-2.h5",
			    dir, dir),
			 0);
	free(out);
	ck_assert_int_eq(tu_shellf(&out, SWEEP "%s --param kernel.private_hash.buckets=2,16,64 --resume -j 1" SHORT, dir), 0);
	assert_has(out, "ok 0001_buckets-2 Averaged");
	assert_has(out, "ok 0003_buckets-64 Averaged");
	ck_assert_ptr_null(strstr(out, "ok 0002"));
	assert_has(out, "3 of 3 runs have results");
	free(out);
	ck_assert_int_eq(tu_shellf(&out, "\"$FUTEXSIM\" show --csv %s/h5/0001_buckets-2.h5 | tail -n 1 | grep -c ',1$'", dir), 0);
	free(out);
}
END_TEST

START_TEST(test_ssh_hosts)
{
	char dir[128], *out;
	int status;

	snprintf(dir, sizeof(dir), "%s/ssh", tmp);
	ck_assert_int_eq(mkdir(dir, 0700), 0);
	status = tu_shellf(&out, "tests/sweep_ssh.sh %s", dir);
	if (status == 77) {
		printf("check_sweep: the multi-host test is skipped: %s", strstr(out, "SKIP: ") ? strstr(out, "SKIP: ") : out);
		free(out);
		return;
	}
	ck_assert_msg(status == 0, "tests/sweep_ssh.sh exited %d:\n%s", status, out);
	assert_has(out, "4 of 4 runs have results");
	free(out);
	strcat(dir, "/out");
	assert_overrides(dir, "0001_buckets-2_seed-1",
			 "kernel.private_hash.buckets=2 run.seed=1 run.duration=200us run.warmup=20us");
	assert_overrides(dir, "0004_buckets-16_seed-2",
			 "kernel.private_hash.buckets=16 run.seed=2 run.duration=200us run.warmup=20us");
	ck_assert(exists("%s/h5/%s.h5", dir, "0002_buckets-2_seed-2"));
	ck_assert(exists("%s/h5/%s.h5", dir, "0003_buckets-16_seed-1"));
	ck_assert(exists("%s/logs/%s.log", dir, "0003_buckets-16_seed-1"));
	/* every run went over ssh (not ':' = this machine without ssh), and the remote
	 * work directories are gone */
	ck_assert_int_eq(tu_shellf(&out, "awk -F'\\t' 'NR > 1 { n++; if ($2 != \"127.0.0.1\") bad++ } "
				  "END { print n + 0, bad + 0 }' %s/joblog",
			    dir),
			 0);
	ck_assert_str_eq(out, "4 0\n");
	free(out);
	ck_assert_int_eq(tu_shellf(&out, "find ~/.parallel/tmp -name '000?_buckets-*' 2>/dev/null | wc -l"), 0);
	ck_assert_str_eq(out, "0\n");
	free(out);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sweep");
	TCase *tc = tcase_create("grid");
	TCase *runs = tcase_create("runs");
	TCase *ssh = tcase_create("ssh");
	int status;

	tu_mkdtemp(tmp, "futexsim-sweep");
	tcase_add_test(tc, test_grid_size_and_order);
	tcase_add_loop_test(tc, test_bad_input, 0, sizeof(bad) / sizeof(bad[0]));
	tcase_add_test(tc, test_no_scenario);
	/* guards against a hang, not timing assertions */
	tcase_set_timeout(tc, 30);
	suite_add_tcase(s, tc);
	tcase_add_test(runs, test_local_sweep);
	tcase_add_test(runs, test_values_checked_first);
	tcase_add_test(runs, test_failure_and_resume);
	tcase_add_test(runs, test_lock_and_sigterm);
	tcase_add_test(runs, test_slurm_tasks_then_resume);
	tcase_set_timeout(runs, 60);
	suite_add_tcase(s, runs);
	tcase_add_test(ssh, test_ssh_hosts);
	tcase_set_timeout(ssh, 120);
	suite_add_tcase(s, ssh);
	status = tu_run_suite(s);
	tu_rmtree(tmp);
	return status;
}
