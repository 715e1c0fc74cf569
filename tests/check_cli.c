/* SPDX-License-Identifier: MIT */
/* Tests of bin/futexsim's command line: help, the perf-shaped summary, --set and
 * --seed, exit statuses and FILE:LINE:COL errors, and identical output for the
 * same scenario and seed. Runs the binary ($FUTEXSIM or bin/futexsim). */
#include <check.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/testutil.h"

/* --no-output: these tests are about the summary; tests/check_h5.c covers the file */
#define QUICK "scenarios/quickstart.yaml --no-output --set run.duration=200us --set run.warmup=20us"

static int count_matches(const char *text, const char *pattern)
{
	regex_t re;
	int n = 0;
	char *copy = strdup(text), *save = NULL;

	ck_assert_int_eq(regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB), 0);
	for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		n += regexec(&re, line, 0, NULL, 0) == 0;
	regfree(&re);
	free(copy);
	return n;
}

START_TEST(test_help)
{
	char *out;

	ck_assert_int_eq(tu_futexsim("--help", &out), 0);
	ck_assert_ptr_nonnull(strstr(out, "run SCENARIO.yaml"));
	ck_assert_ptr_nonnull(strstr(out, "Exit status"));
	free(out);
	ck_assert_int_eq(tu_futexsim("run --help", &out), 0);
	ck_assert_ptr_nonnull(strstr(out, "--set KEY=VALUE"));
	ck_assert_ptr_nonnull(strstr(out, "--seed N"));
	ck_assert_ptr_nonnull(strstr(out, "--output FILE.h5"));
	free(out);
	ck_assert_int_eq(tu_futexsim("help show", &out), 0);
	ck_assert_ptr_nonnull(strstr(out, "usage: futexsim show"));
	free(out);
	ck_assert_int_eq(tu_futexsim("help frobnicate", &out), 2);
	ck_assert_ptr_nonnull(strstr(out, "unknown command 'frobnicate'"));
	free(out);
	/* the options the help lists are the ones accepted */
	ck_assert_int_eq(tu_futexsim("run " QUICK " --output=- --seed=2 --set=run.seed=3 --per-thread", &out), 0);
	ck_assert_ptr_nonnull(strstr(out, "seed 3"));
	free(out);
	ck_assert_int_eq(tu_futexsim("", &out), 2);
	free(out);
	ck_assert_int_eq(tu_futexsim("frobnicate", &out), 2);
	free(out);
	ck_assert_int_eq(tu_futexsim("run " QUICK " --frob", &out), 2);
	free(out);
}
END_TEST

START_TEST(test_summary_has_perf_shape)
{
	char *out;

	ck_assert_int_eq(tu_futexsim("run " QUICK " --per-thread", &out), 0);
	ck_assert_int_eq(count_matches(out, "^Averaged [0-9]+ operations/sec \\(\\+- [0-9]+\\.[0-9]{2}%\\), "
					    "total secs = [0-9.]+$"),
			 1);
	ck_assert_int_eq(count_matches(out, "^\\[thread +[0-9]+\\] futexes: 0x[0-9a-f]+ \\.\\.\\. 0x[0-9a-f]+ "
					    "\\[ [0-9]+ ops/sec \\]$"),
			 8);
	ck_assert_int_eq(count_matches(out, "^Run summary \\[PID 0\\]: 8 threads, each operating on 1024 "
					    "\\[private\\] futexes"),
			 1);
	ck_assert_int_eq(count_matches(out, "^  total ops +[0-9]+$"), 1);
	ck_assert_int_eq(count_matches(out, "^  line transfers +[0-9]+ within SMT core, [0-9]+ within node, "
					    "[0-9]+ across nodes"),
			 1);
	ck_assert_int_eq(count_matches(out, "^ +1\\. +[0-9]+ \\([0-9]+/[0-9]+/[0-9]+\\)  .+"), 1);
	free(out);
}
END_TEST

/* futexsim list: one line each, the name then its description, from the registries
 * and the preset files; and what the help says about where presets are found */
START_TEST(test_list)
{
	static const char *const lists[][3] = {
		{ "workloads", "hash-bench", "^(hash-bench|mutex|condvar|wake|wake-parallel|requeue|lock-pi|schbench|locktorture|trace) +[^ ].*$" },
		{ "hashes", "jhash2", "^[a-z0-9_]+ +[^ ].*$" },
		{ "refcounts", "rcuref", "^[a-z0-9.-]+ +[^ ].*$" },
		{ "spinlocks", "qspinlock", "^(qspinlock|cna) +[^ ].*$" },
		{ "machines", "small-1node", "^[a-z0-9.-]+ +[^ ].*$" },
		{ "kernels", "linux-6.18", "^[a-z0-9.-]+ +[^ ].*$" },
	};
	char *out;

	for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++) {
		char args[64], first[64];
		int lines;

		snprintf(args, sizeof(args), "list %s", lists[i][0]);
		ck_assert_int_eq(tu_futexsim(args, &out), 0);
		lines = count_matches(out, ".");
		ck_assert_int_gt(lines, 1);
		ck_assert_int_eq(count_matches(out, lists[i][2]), lines);
		snprintf(first, sizeof(first), "^%s +[^ (]", lists[i][1]);
		ck_assert_msg(count_matches(out, first) == 1, "%s: no described %s line in:\n%s", args, lists[i][1],
			      out);
		free(out);
	}
	ck_assert_int_eq(tu_futexsim("list kernels", &out), 0);
	ck_assert_int_eq(count_matches(out, "^linux-6\\.17 +linux-6\\.16-dev with per-CPU reference counting"), 1);
	free(out);
	ck_assert_int_eq(tu_futexsim("list hashes", &out), 0);
	ck_assert_int_eq(count_matches(out, "^hash_mod +key sum folded"), 1);
	free(out);
	ck_assert_int_eq(tu_futexsim("list", &out), 2);
	free(out);
	ck_assert_int_eq(tu_futexsim("list colours", &out), 2);
	ck_assert_ptr_nonnull(strstr(out, "unknown list 'colours'"));
	free(out);
	ck_assert_int_eq(tu_futexsim("help list", &out), 0);
	ck_assert_ptr_nonnull(strstr(out, "usage: futexsim list"));
	free(out);
	ck_assert_int_eq(tu_futexsim("--help", &out), 0);
	ck_assert_ptr_nonnull(strstr(out, "FUTEXSIM_PATH"));
	ck_assert_ptr_nonnull(strstr(out, "list WHAT"));
	free(out);
	ck_assert_int_eq(tu_futexsim("run --help", &out), 0);
	ck_assert_ptr_nonnull(strstr(out, "--config-dir DIR"));
	free(out);
	ck_assert_int_eq(tu_futexsim("run " QUICK " --config-dir", &out), 2);
	free(out);
	/* --version names a revision: a commit (maybe -dirty) or unknown outside git */
	ck_assert_int_eq(tu_futexsim("--version", &out), 0);
	ck_assert_int_eq(count_matches(out, "^futexsim [0-9.]+ \\(git [0-9A-Za-z._-]+\\)$"), 1);
	free(out);
}
END_TEST

/* Standard output is a function of the scenario and the seed, byte for byte: the
 * wall-clock line goes to stderr. */
START_TEST(test_same_seed_same_output)
{
	char *a, *b, *c, *err;

	ck_assert_int_eq(tu_futexsim("run " QUICK " --seed 7 --set kernel.private_hash.buckets=2 2>/dev/null", &a), 0);
	ck_assert_int_eq(tu_futexsim("run " QUICK " --seed 7 --set kernel.private_hash.buckets=2 2>/dev/null", &b), 0);
	ck_assert_int_eq(tu_futexsim("run " QUICK " --seed 8 --set kernel.private_hash.buckets=2 2>/dev/null", &c), 0);
	ck_assert_str_eq(a, b);
	ck_assert_ptr_null(strstr(a, "wall time"));
	/* another seed moves the heap (ASLR) and the start times: another run */
	ck_assert_str_ne(a, c);
	ck_assert_int_eq(tu_futexsim("run " QUICK " --seed 7 2>&1 >/dev/null", &err), 0);
	ck_assert_int_eq(count_matches(err, "^  wall time [0-9.]+ s for [0-9]+ simulated ops and [0-9]+ events: "), 1);
	free(a);
	free(b);
	free(c);
	free(err);
}
END_TEST

/* --progress changes nothing on stdout and prints at least the final progress
 * line on stderr; --quiet prints nothing but errors; stdout is a pipe here, and
 * the header comes before the figures. */
START_TEST(test_progress_and_quiet)
{
	char *plain, *prog, *err, *quiet;

	ck_assert_int_eq(tu_futexsim("run " QUICK " --per-thread 2>/dev/null", &plain), 0);
	ck_assert_int_eq(tu_futexsim("run " QUICK " --per-thread --progress 2>/dev/null", &prog), 0);
	ck_assert_str_eq(plain, prog);
	ck_assert_int_eq(count_matches(plain, "^Run summary "), 1);
	ck_assert(strstr(plain, "Run summary ") < strstr(plain, "Averaged "));
	/* not a terminal: no progress unless asked */
	ck_assert_int_eq(tu_futexsim("run " QUICK " 2>&1 >/dev/null", &err), 0);
	ck_assert_int_eq(count_matches(err, "^progress: "), 0);
	free(err);
	ck_assert_int_eq(tu_futexsim("run " QUICK " --progress 2>&1 >/dev/null", &err), 0);
	ck_assert_msg(count_matches(err, "^progress: 0\\.22 of 0\\.22 ms simulated \\(100%\\), [0-9]+ events, "
					 "[0-9.]+ s$") == 1,
		      "%s", err);
	free(err);
	ck_assert_int_eq(tu_futexsim("run " QUICK " --quiet", &quiet), 0);
	ck_assert_str_eq(quiet, "");
	free(quiet);
	ck_assert_int_eq(tu_futexsim("run " QUICK " -q 2>/dev/null", &quiet), 0);
	ck_assert_str_eq(quiet, "");
	free(quiet);
	/* errors still show */
	ck_assert_int_eq(tu_futexsim("run " QUICK " --quiet --set workload.futexes=lots", &quiet), 3);
	ck_assert_ptr_nonnull(strstr(quiet, "workload.futexes=lots"));
	free(quiet);
	/* --quiet promises errors only: with --progress it is a usage error, and runs nothing */
	ck_assert_int_eq(tu_futexsim("run " QUICK " --quiet --progress", &quiet), 2);
	ck_assert_str_eq(quiet, "futexsim run: --quiet and --progress exclude each other (--quiet prints errors only)\n");
	free(quiet);
	ck_assert_int_eq(tu_futexsim("run --help", &quiet), 0);
	ck_assert_ptr_nonnull(strstr(quiet, "--progress"));
	ck_assert_ptr_nonnull(strstr(quiet, "--quiet"));
	free(quiet);
	free(plain);
	free(prog);
}
END_TEST

START_TEST(test_set_overrides)
{
	char *out;

	ck_assert_int_eq(tu_futexsim("run " QUICK " --set workload.threads=3 --per-thread", &out), 0);
	ck_assert_int_eq(count_matches(out, "^\\[thread"), 3);
	free(out);
	ck_assert_int_eq(tu_futexsim("run " QUICK " --set kernel=linux-6.15", &out), 0);
	ck_assert_ptr_nonnull(strstr(out, "kernel linux-6.15"));
	ck_assert_ptr_nonnull(strstr(out, "global hash bucket"));
	free(out);
	ck_assert_int_eq(tu_futexsim("run " QUICK " --set machine=configs/machines/e5-2650-2s.yaml "
				     "--set workload.threads=28",
				     &out),
			 0);
	ck_assert_ptr_nonnull(strstr(out, "machine e5-2650-2s"));
	free(out);
}
END_TEST

/* run --check: silent and writes nothing when the run would start; an error the
 * models meet only while being built (the workload's setup) comes out too */
START_TEST(test_check_only)
{
	char *out;

	ck_assert_int_eq(tu_shellf(&out, "d=$(mktemp -d) && cd $d && \"%s\" run $OLDPWD/scenarios/quickstart.yaml --check; "
				  "echo rc=$?; ls -A | wc -l; cd / && rm -rf $d", tu_bin()),
			 0);
	ck_assert_str_eq(out, "rc=0\n0\n");
	free(out);
	ck_assert_int_eq(tu_futexsim("run scenarios/quickstart.yaml --check --set workload.futex2_numa=true", &out), 3);
	ck_assert_str_eq(out, "futexsim: workload.futex2_numa needs per-node global tables (kernel.global_hash.per_node "
			      "on a machine with more than one node)\n");
	free(out);
	ck_assert_int_eq(tu_futexsim("run scenarios/quickstart.yaml --check --set run.duration=abc", &out), 3);
	ck_assert_ptr_nonnull(strstr(out, "--set run.duration=abc:1:14: "));
	free(out);
}
END_TEST

/* explain: the classes add up to the total; on hash-bench nearly every moment of
 * the threads' time in the window is accounted for; a file without the breakdown
 * is refused. */
START_TEST(test_explain)
{
	char dir[64], *out, *p;
	double total, measured, share, sum = 0, v, steps = 0, kernel = 0;

	tu_mkdtemp(dir, "futexsim-explain");
	ck_assert_int_eq(tu_shellf(&out, "\"%s\" run scenarios/quickstart.yaml --set run.duration=200us "
				  "--set run.warmup=20us -q -o %s/a.h5 && \"%s\" explain %s/a.h5", tu_bin(), dir, tu_bin(), dir),
			 0);
	ck_assert_ptr_nonnull(strstr(out, "where the 8 threads' time in the 0.2 ms window went"));
	for (p = strstr(out, "share\n") + 6; strncmp(p, "  total", 7); p = strchr(p, '\n') + 1) {
		ck_assert_int_eq(sscanf(strchr(p + (p[2] == ' ' ? 4 : 2), ' '), "%lf", &v), 1);
		if (p[2] == ' ') { /* kernel_work's split by path step */
			steps += v;
			continue;
		}
		if (!strncmp(p, "  kernel_work ", 14))
			kernel = v;
		sum += v;
	}
	/* the steps add up to the kernel's work, the syscall among them */
	ck_assert_ptr_nonnull(strstr(out, "\n    syscall "));
	ck_assert_ptr_nonnull(strstr(out, "\n    hash_lookup "));
	ck_assert_double_eq_tol(steps, kernel, 0.1 * 8);
	ck_assert_int_eq(sscanf(p, "  total %lf", &total), 1);
	ck_assert_double_eq_tol(sum, total, 0.1 * 12); /* rounding of each printed row */
	p = strstr(out, "measured: ");
	ck_assert_int_eq(sscanf(p, "measured: %lf ns per op (threads x window / ops); the classes account for %lf%%",
				&measured, &share), 2);
	ck_assert(share > 95 && share < 101); /* a last micro-op may reach past the window */
	ck_assert_double_eq_tol(total, measured * share / 100, 0.1 + 0.001 * total);
	/* then what the line classes were made of */
	ck_assert_ptr_nonnull(strstr(out, "\n  line transfers per op: "));
	ck_assert_ptr_nonnull(strstr(out, "\n  lines: private hash of process 0 bucket "));
	free(out);
	ck_assert_int_eq(tu_shellf(&out, "/usr/bin/python3 -c \"import h5py; del h5py.File('%s/a.h5', 'r+')['threads/time']\" "
				  "&& \"%s\" explain %s/a.h5", dir, tu_bin(), dir),
			 3);
	ck_assert_ptr_nonnull(strstr(out, "has no time breakdown"));
	free(out);
	/* threads on two nodes: the classes of each node's threads apart, as many ops
	 * weighted as the overall figure (node rows average to the overall row) */
	ck_assert_int_eq(tu_shellf(&out, "\"%s\" run scenarios/e5-2650-hashbench.yaml --set run.duration=100us "
				  "--set run.warmup=20us -q -o %s/e.h5 && \"%s\" explain %s/e.h5", tu_bin(), dir, tu_bin(), dir),
			 0);
	p = strstr(out, "by the node the threads run on (ns per op of that node's threads):\n");
	ck_assert_ptr_nonnull(p);
	ck_assert_ptr_nonnull(strstr(p, "node 0"));
	ck_assert_ptr_nonnull(strstr(p, "node 1"));
	{
		double all, n0, n1;

		ck_assert_int_eq(sscanf(strstr(out, "\n  kernel_work ") + 1, "  kernel_work %lf", &all), 1);
		ck_assert_int_eq(sscanf(strstr(p, "\n  kernel_work ") + 1, "  kernel_work %lf %lf", &n0, &n1), 2);
		ck_assert(all >= fmin(n0, n1) - 0.1 && all <= fmax(n0, n1) + 0.1);
	}
	free(out);
	/* threads with roles (schbench's message threads and workers): each role's time
	 * per op of the run, the columns adding up to the overall row; the roles in the
	 * file (threads/role), which hash-bench's file, all threads alike, lacks */
	ck_assert_int_eq(tu_shellf(&out, "\"%s\" run scenarios/workloads/schbench.yaml --set workload.workers=8 "
				  "--set run.duration=200us --set run.warmup=50us -q -o %s/s.h5 && \"%s\" explain %s/s.h5",
				  tu_bin(), dir, tu_bin(), dir),
			 0);
	p = strstr(out, "by the threads' role (their time per op of the run: the columns add up to the total):\n");
	ck_assert_ptr_nonnull(p);
	{
		double all, msg, worker;
		unsigned nmsg, nworker;

		ck_assert_ptr_nonnull(strstr(p, "\n  class               message       worker\n"));
		ck_assert_int_eq(sscanf(strstr(p, "\n  threads ") + 1, "  threads %u %u", &nmsg, &nworker), 2);
		ck_assert_uint_eq(nmsg, 4);
		ck_assert_uint_eq(nworker, 32);
		for (const char *cls = "kernel_work\0lock\0"; *cls; cls += strlen(cls) + 1) {
			char row[32], fmt[48];

			snprintf(row, sizeof(row), "\n  %s ", cls);
			snprintf(fmt, sizeof(fmt), "  %s %%lf", cls);
			ck_assert_int_eq(sscanf(strstr(out, row) + 1, fmt, &all), 1);
			snprintf(fmt, sizeof(fmt), "  %s %%lf %%lf", cls);
			ck_assert_int_eq(sscanf(strstr(p, row) + 1, fmt, &msg, &worker), 2);
			ck_assert_double_eq_tol(msg + worker, all, 0.15);
		}
	}
	free(out);
	ck_assert_int_eq(tu_shellf(&out, "/usr/bin/python3 -c \"import h5py; f = h5py.File('%s/s.h5', 'r'); "
				  "r = list(f['threads/role'].asstr()[()]); print(r.count('message'), r.count('worker'), "
				  "'threads/role' in h5py.File('%s/e.h5', 'r'))\"", dir, dir),
			 0);
	ck_assert_str_eq(out, "4 32 False\n");
	free(out);
	ck_assert_int_eq(tu_futexsim("explain", &out), 2);
	free(out);
	/* an option it does not have is named, before or after the file (issue 36) */
	ck_assert_int_eq(tu_futexsimf(&out, "explain --json %s/s.h5", dir), 2);
	ck_assert_msg(strstr(out, "unknown option '--json'"), "%s", out);
	free(out);
	ck_assert_int_eq(tu_futexsimf(&out, "explain %s/s.h5 -x", dir), 2);
	ck_assert_msg(strstr(out, "unknown option '-x'"), "%s", out);
	free(out);
	/* the analysis tools' --help is on stdout: nothing on stderr */
	ck_assert_int_eq(tu_shellf(&out, "\"$(dirname '%s')/futexsim-claims\" --help 2>&1 >/dev/null | wc -c", tu_bin()), 0);
	ck_assert_str_eq(out, "0\n");
	free(out);
	ck_assert_int_eq(tu_shellf(&out, "\"$(dirname '%s')/futexsim-claims\" --help | head -1", tu_bin()), 0);
	ck_assert_msg(!strncmp(out, "usage: futexsim-claims", 22), "%s", out);
	free(out);
	ck_assert_int_eq(tu_shellf(&out, "\"$(dirname '%s')/futexsim-claims\" --bogus 2>/dev/null | wc -c", tu_bin()), 0);
	ck_assert_str_eq(out, "0\n");
	free(out);
	tu_rmtree(dir);
}
END_TEST

/* c2c: rows ranked by the chosen key, shares of all transfers that cannot exceed
 * 100%, the row's classes adding up to its transfers, a bucket's fields naming the
 * steps that touch them; bad arguments and files refused. */
static void c2c_rows(const char *out, int key_column, int *rows, double *share_sum)
{
	double prev = 1e300;
	const char *p = strstr(out, "what; path steps\n");

	ck_assert_ptr_nonnull(p);
	*rows = 0;
	*share_sum = 0;
	for (p = strchr(p, '\n') + 1; strncmp(p, "\n", 1) && strncmp(p, "  (no line", 10); p = strchr(p, '\n') + 1) {
		unsigned k, home;
		unsigned long long addr, transfers, remote, node, smt, reads, writes;
		double share, waited, key;

		ck_assert_msg(sscanf(p, "%u 0x%llx %u %llu %lf%% %llu %llu %llu %llu %llu %lf", &k, &addr, &home,
				     &transfers, &share, &remote, &node, &smt, &reads, &writes, &waited) == 11,
			      "a row that does not parse: %.80s", p);
		ck_assert_uint_eq(k, (unsigned)*rows + 1);
		ck_assert_uint_eq(remote + node + smt, transfers);
		key = key_column == 0 ? (double)transfers : key_column == 1 ? (double)remote : waited;
		ck_assert(key <= prev);
		prev = key;
		*share_sum += share;
		(*rows)++;
	}
}

/* Breakdowns known by construction: a lone thread with its private hash never waits
 * for the bucket lock (the lock costs one atomic on its own line: small-1node's
 * atomic_hit, 20 cycles at 3.0 GHz) and moves no line; two threads on the E5's two
 * nodes (CPUs 0 and 8) sharing one mutex move its bucket's line only across nodes. */
START_TEST(test_breakdown_by_construction)
{
	char dir[64], *out, *p;
	double lock, core, node, remote;
	unsigned k, home;
	unsigned long long addr, transfers, xremote, xnode, xsmt;
	double share;

	tu_mkdtemp(dir, "futexsim-construction");
	ck_assert_int_eq(tu_shellf(&out, "\"%s\" run scenarios/quickstart.yaml --set workload.threads=1 "
				  "--set run.duration=200us --set run.warmup=20us -q -o %s/one.h5 && \"%s\" explain %s/one.h5",
				  tu_bin(), dir, tu_bin(), dir),
			 0);
	ck_assert_int_eq(sscanf(strstr(out, "\n  lock ") + 1, "  lock %lf", &lock), 1);
	ck_assert_double_eq_tol(lock, 20 / 3.0, 0.2);
	p = strstr(out, "line transfers per op: ");
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(sscanf(p, "line transfers per op: %lf within a core, %lf within a node, %lf across nodes", &core,
				&node, &remote),
			 3);
	ck_assert(core == 0 && node == 0 && remote == 0);
	free(out);
	ck_assert_int_eq(tu_shellf(&out, "\"%s\" run scenarios/workloads/mutex.yaml --set workload.threads=2 "
				  "--set workload.mutexes=1 --set workload.cpus=0,8 --set run.duration=200us "
				  "--set run.warmup=20us -q -o %s/two.h5 && \"%s\" c2c %s/two.h5",
				  tu_bin(), dir, tu_bin(), dir),
			 0);
	p = strstr(out, "private hash of process 0 bucket ");
	ck_assert_ptr_nonnull(p);
	while (p > out && p[-1] != '\n')
		p--;
	ck_assert_int_eq(sscanf(p, "%u 0x%llx %u %llu %lf%% %llu %llu %llu", &k, &addr, &home, &transfers, &share,
				&xremote, &xnode, &xsmt),
			 8);
	ck_assert_uint_gt(transfers, 0);
	ck_assert_uint_eq(xremote, transfers);
	ck_assert_uint_eq(xnode + xsmt, 0);
	free(out);
	tu_rmtree(dir);
}
END_TEST

START_TEST(test_c2c)
{
	char dir[64], *out;
	int rows;
	double shares;

	tu_mkdtemp(dir, "futexsim-c2c");
	ck_assert_int_eq(tu_shellf(&out, "\"%s\" run scenarios/quickstart.yaml --set run.duration=200us "
				  "--set run.warmup=20us -q -o %s/a.h5 && \"%s\" c2c %s/a.h5 -n 7", tu_bin(), dir, tu_bin(), dir),
			 0);
	c2c_rows(out, 0, &rows, &shares);
	ck_assert_int_eq(rows, 7);
	ck_assert(shares > 0 && shares <= 100.05);
	ck_assert_ptr_nonnull(strstr(out, "(waiters,lock,chain,priv); waiters_inc/dec, lock/unlock"));
	free(out);
	ck_assert_int_eq(tu_futexsimf(&out, "c2c %s/a.h5 -n 5 --sort remote", dir), 0);
	c2c_rows(out, 1, &rows, &shares);
	ck_assert_int_le(rows, 5);
	free(out);
	ck_assert_int_eq(tu_futexsimf(&out, "c2c %s/a.h5 --sort waiting", dir), 0);
	c2c_rows(out, 2, &rows, &shares);
	free(out);
	ck_assert_int_eq(tu_futexsimf(&out, "c2c %s/a.h5 --sort hot", dir), 2);
	free(out);
	ck_assert_int_eq(tu_futexsimf(&out, "c2c %s/a.h5 -n 0", dir), 2);
	free(out);
	ck_assert_int_eq(tu_futexsim("c2c", &out), 2);
	free(out);
	ck_assert_int_eq(tu_futexsimf(&out, "c2c %s/missing.h5", dir), 3);
	free(out);
	tu_rmtree(dir);
}
END_TEST

START_TEST(test_errors_name_the_place)
{
	char *out, args[512];
	char *path = tu_write_temp("machine: small-1node\nkernel: linux-6.18\nworkload:\n  type: hash-bench\n"
				   "  treads: 4\n");

	snprintf(args, sizeof(args), "run %s", path);
	ck_assert_int_eq(tu_futexsim(args, &out), 3);
	ck_assert_msg(strstr(out, path) && strstr(out, ":5:3: unknown key 'treads'") &&
			      strstr(out, "did you mean 'threads'"),
		      "%s", out);
	free(out);
	ck_assert_int_eq(tu_futexsim("run " QUICK " --set workload.futexes=lots", &out), 3);
	ck_assert_ptr_nonnull(strstr(out, "--set workload.futexes=lots:1:"));
	free(out);
	/* a field under a scalar: the map is the --set's doing, so it names the --set */
	ck_assert_int_eq(tu_futexsim("run " QUICK " --set run.duration.x=1", &out), 3);
	ck_assert_str_eq(out, "futexsim: --set run.duration.x=1:1:5: duration: expected a duration, got a map\n");
	free(out);
	ck_assert_int_eq(tu_futexsim("run " QUICK " --set noequals", &out), 3);
	ck_assert_ptr_nonnull(strstr(out, "noequals"));
	free(out);
	ck_assert_int_eq(tu_futexsim("run /nonexistent/scenario.yaml", &out), 3);
	ck_assert_ptr_nonnull(strstr(out, "/nonexistent/scenario.yaml"));
	free(out);
	ck_assert_int_eq(tu_futexsim("run " QUICK " --seed -1", &out), 2);
	free(out);
	unlink(path);
	free(path);
}
END_TEST

/* Inputs that are no YAML files (issue 38): a FIFO, a directory or a device given as
 * the scenario or a preset is refused at once (a FIFO's open would block: timeout(1)
 * turns a block into a failure, status 124); a file that is no config is not quoted
 * in the error (--set kernel=/etc/shadow printed the file's first line). */
START_TEST(test_inputs_not_yaml)
{
	char dir[64], *out;

	tu_mkdtemp(dir, "futexsim-cli");
	ck_assert_int_eq(tu_shellf(&out, "mkfifo %s/fifo.yaml && mkdir %s/dir.yaml", dir, dir), 0);
	free(out);
	ck_assert_int_eq(tu_shellf(&out, "timeout 20 '%s' run %s/fifo.yaml", tu_bin(), dir), 3);
	ck_assert_msg(strstr(out, "fifo.yaml: it is a FIFO, not a YAML file"), "%s", out);
	free(out);
	ck_assert_int_eq(tu_shellf(&out, "timeout 20 '%s' run %s/dir.yaml", tu_bin(), dir), 3);
	ck_assert_msg(strstr(out, "dir.yaml: it is a directory, not a YAML file"), "%s", out);
	free(out);
	ck_assert_int_eq(tu_shellf(&out, "timeout 20 '%s' run /dev/zero", tu_bin()), 3);
	ck_assert_msg(strstr(out, "/dev/zero: it is a device, not a YAML file"), "%s", out);
	free(out);
	ck_assert_int_eq(tu_shellf(&out, "timeout 20 '%s' run " QUICK " --set machine=%s/fifo.yaml", tu_bin(), dir), 3);
	ck_assert_msg(strstr(out, "is not a regular file"), "%s", out);
	free(out);
	/* /dev/null stays the empty scenario (bench and fit build theirs from --set alone) */
	ck_assert_int_eq(tu_futexsim("run /dev/null", &out), 3);
	ck_assert_str_eq(out, "futexsim: /dev/null:1:1: missing key 'machine' in scenario\n");
	free(out);
	ck_assert_int_eq(tu_shellf(&out, "printf 'root:$y$j9T$secrethash:20228:0:99999:7::\\ndaemon:*:1::\\n' > %s/shadow && "
				   "'%s' run " QUICK " --set kernel=%s/shadow", dir, tu_bin(), dir), 3);
	ck_assert_msg(strstr(out, "shadow:1:1: unknown key in kernel: not a name, so not shown (39 bytes; expected one of: ") &&
			      !strstr(out, "secret") && !strstr(out, "root"),
		      "%s", out);
	free(out);
	tu_rmtree(dir);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("cli");
	TCase *tc = tcase_create("futexsim");

	tcase_add_test(tc, test_help);
	tcase_add_test(tc, test_summary_has_perf_shape);
	tcase_add_test(tc, test_same_seed_same_output);
	tcase_add_test(tc, test_progress_and_quiet);
	tcase_add_test(tc, test_set_overrides);
	tcase_add_test(tc, test_errors_name_the_place);
	tcase_add_test(tc, test_inputs_not_yaml);
	tcase_add_test(tc, test_check_only);
	tcase_add_test(tc, test_explain);
	tcase_add_test(tc, test_breakdown_by_construction);
	tcase_add_test(tc, test_c2c);
	tcase_add_test(tc, test_list);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run_suite(suite());
}
