/* SPDX-License-Identifier: MIT */
/* futexsim compare: result files against the first, or two directories of runs, with CI
 * thresholds. */
#include "sim/cmd/cmd.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sim/cliopt.h"
#include "sim/compare.h"
#include "sim/h5read.h"
#include "sim/results.h"
#include "sim/views/json.h"

const char usage_compare[] =
	"usage: futexsim compare A.h5 B.h5 [C.h5...] [--fail-if 'FIGURE OP VALUE']... [--json]\n"
	"       futexsim compare DIR_A DIR_B [--fail-if ...]... [--json]\n"
	"\n"
	"Compares each result file after the first with the first, the base A: for every\n"
	"figure its base value, value, delta (value - base) and relative delta (%): ops_per_sec\n"
	"(perf's Averaged mean), stderr_pct, total_ops, transfers_smt, transfers_node,\n"
	"transfers_remote and their sum transfers, transfers_per_op, remote_transfers_per_op,\n"
	"dram_fills, directory_reads (home-snoop machines), for blocking workloads the\n"
	"blocking_* totals (futex calls, wake-ups, chain entries walked, requeued, asleep %,\n"
	"context switches), and every workload figure present in both files, by name with\n"
	"its units. The names are show --csv's columns. Then the 5 lines whose transfers\n"
	"changed most (matched by description; where the runs lay an element out\n"
	"differently, one line per bucket against two, its lines are matched as one:\n"
	"\"bucket 6 (its lines)\") and the 5 buckets whose lock wait changed most (matched\n"
	"by table name and bucket index).\n"
	"\n"
	"Two directories: the result files (*.h5) in each are the runs of one design (its\n"
	"seeds, say); every figure is the mean over a directory's runs, with the sample\n"
	"standard deviation, and p, Welch's two-sided t-test of a difference of the means\n"
	"(blank with fewer than 2 runs on a side); deltas and --fail-if apply to the means;\n"
	"the lines and buckets are those of each directory's first run. A file marked\n"
	"incomplete (an interrupted run) is left out, with a line on stderr.\n"
	"\n"
	"Options:\n"
	"  --fail-if 'FIGURE OP VALUE'\n"
	"               a threshold (repeatable): OP is < or >, VALUE a number; with % it is\n"
	"               compared with the relative delta, without with the delta. The\n"
	"               threshold fails when the change is beyond it, e.g.\n"
	"                 --fail-if 'ops_per_sec < -5%'     B more than 5% slower than A\n"
	"                 --fail-if 'remote_transfers_per_op > +10%'\n"
	"                 --fail-if 'dram_fills > 1000'     more than 1000 more fills\n"
	"               Each threshold prints a line on stderr, for a failed one:\n"
	"                 compare: FAILED ops_per_sec -7.30% < -5% (A 2345678, B 2174512)\n"
	"  --json       the comparison as one JSON object on stdout: {\"base\": FILE,\n"
	"               \"comparisons\": [{\"file\", \"figures\": {NAME: {base, value, delta,\n"
	"               rel, units}}, \"lines\", \"buckets\"}...]} (rel null when the base is 0\n"
	"               and the value is not)\n"
	"  -h, --help   show this help\n"
	"\n"
	"Files are labelled A, B, C, ... in the order given. Exit status: 0 every threshold\n"
	"passed, 1 one failed, 2 bad command line, bad expression or unknown figure name (the\n"
	"message lists the names), 3 a file cannot be read.\n"
	"\n"
	"Examples:\n"
	"  $ futexsim run quickstart -o a.h5 --quiet\n"
	"  $ futexsim run quickstart --set kernel=linux-6.17 -o b.h5 --quiet\n"
	"  $ futexsim compare a.h5 b.h5 --fail-if 'ops_per_sec < -10%'\n";

#define MAX_THRESHOLDS 64

/* "A", "B", ... for the i-th file of compare. */
static void compare_label(char *buf, size_t size, size_t i)
{
	if (i < 26)
		snprintf(buf, size, "%c", (char)('A' + i));
	else
		snprintf(buf, size, "F%zu", i + 1);
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The result files (*.h5, not hidden) directly in `dir`, sorted: malloc'd paths. */
static int list_h5(const char *dir, char ***out, size_t *n)
{
	DIR *d = opendir(dir);
	struct dirent *ent;
	size_t cap = 0;

	*out = NULL;
	*n = 0;
	if (!d)
		return -1;
	while ((ent = readdir(d))) {
		size_t len = strlen(ent->d_name);
		char **grown;

		if (ent->d_name[0] == '.' || len < 4 || strcmp(ent->d_name + len - 3, ".h5"))
			continue;
		if (*n == cap) {
			cap = cap ? cap * 2 : 16;
			grown = realloc(*out, cap * sizeof(**out));
			if (!grown)
				break;
			*out = grown;
		}
		(*out)[*n] = malloc(strlen(dir) + len + 2);
		if (!(*out)[*n])
			break;
		sprintf((*out)[(*n)++], "%s/%s", dir, ent->d_name);
	}
	closedir(d);
	if (*n)
		qsort(*out, *n, sizeof(**out), cmp_name);
	return 0;
}

/* The thresholds against comparison c, a line each on stderr ("compare: FAILED
 * ..." or "compare: passed ..."), labelled `a` and `b`; `file` names b when set;
 * a group comparison adds its p. Then stdout is flushed. The exit status: 0, 1
 * when a threshold failed, 4 when stdout could not be written. */
static int check_thresholds(const struct compare_threshold *thr, size_t nthr, const struct compare *c,
			    const char *a, const char *b, const char *file)
{
	int failed = 0;

	for (size_t t = 0; t < nthr; t++) {
		const struct compare_figure *f = compare_find(c, thr[t].figure);
		bool bad = compare_threshold_failed(&thr[t], f);

		fputs(bad ? "compare: FAILED " : "compare: passed ", stderr);
		compare_print_threshold(&thr[t], f, bad, a, b, stderr);
		if (f->base_n)
			fprintf(stderr, " [means; p = %.3g]", f->p);
		if (file)
			fprintf(stderr, " [%s: %s]", b, file);
		fputc('\n', stderr);
		failed += bad;
	}
	if (fflush(stdout) != 0) {
		fprintf(stderr, "futexsim: cannot write to standard output\n");
		return FS_ERR_OUTPUT;
	}
	return failed ? FS_ERR_RUNTIME : FS_OK;
}

/* compare DIR_A DIR_B: the runs of each directory as a group (sim/compare.h:
 * compare_groups), thresholds on the means. */
static int compare_dirs(const char *da, const char *db, const struct compare_threshold *thr, size_t nthr, bool json)
{
	const char *dirs[2] = { da, db };
	char **files[2] = { NULL, NULL };
	size_t n[2] = { 0, 0 }, nread[2] = { 0, 0 }, nkept[2] = { 0, 0 };
	struct results *res[2] = { NULL, NULL };
	struct compare cmp = { 0 };
	struct fs_error err = { 0 };
	int status = FS_OK;

	for (int g = 0; g < 2; g++) {
		if (list_h5(dirs[g], &files[g], &n[g]) < 0 || !n[g]) {
			fprintf(stderr, "futexsim compare: %s: %s\n", dirs[g], n[g] ? strerror(errno) : "no result files (*.h5) in it");
			status = FS_ERR_INPUT;
			goto out;
		}
		res[g] = calloc(n[g], sizeof(*res[g]));
		if (!res[g]) {
			status = FS_ERR_RUNTIME;
			goto out;
		}
		for (; nread[g] < n[g]; nread[g]++) {
			struct h5read_info info;
			struct results *r = &res[g][nkept[g]];

			if (h5read_results(files[g][nread[g]], 0, r, &info, &err) < 0) {
				results_free(r);
				fprintf(stderr, "futexsim: %s\n", err.msg);
				status = err.status ? err.status : FS_ERR_INPUT;
				goto out;
			}
			/* an interrupted run's figures cover part of its window: not one of the runs */
			if (r->incomplete) {
				fprintf(stderr, "futexsim compare: leaving out %s: marked incomplete (an interrupted run)\n",
					files[g][nread[g]]);
				results_free(r);
				continue;
			}
			nkept[g]++;
		}
		if (!nkept[g]) {
			fprintf(stderr, "futexsim compare: %s: no complete result files (*.h5) in it\n", dirs[g]);
			status = FS_ERR_INPUT;
			goto out;
		}
	}
	if (compare_groups(res[0], nkept[0], res[1], nkept[1], &cmp) < 0) {
		fprintf(stderr, "futexsim: out of memory comparing %s with %s\n", db, da);
		status = FS_ERR_RUNTIME;
		goto out;
	}
	for (size_t t = 0; t < nthr; t++)
		if (!compare_find(&cmp, thr[t].figure) || !compare_find(&cmp, thr[t].figure)->shown) {
			char names[4096];

			compare_names(&cmp, names, sizeof(names));
			fprintf(stderr, "futexsim compare: --fail-if: unknown figure '%s' (not in every run); known figures: %s\n",
				thr[t].figure, names);
			status = FS_ERR_USAGE;
			goto out;
		}
	if (json) {
		fputs("{\n  \"base\": ", stdout);
		results_json_str(stdout, da);
		fputs(",\n  \"comparisons\": [\n", stdout);
		compare_print_json(&cmp, db, stdout);
		fputs("\n  ]\n}\n", stdout);
	} else {
		compare_print(&cmp, da, db, stdout);
	}
	fflush(stdout);
	status = check_thresholds(thr, nthr, &cmp, "A", "B", NULL);
out:
	compare_free(&cmp);
	for (int g = 0; g < 2; g++) {
		for (size_t i = 0; i < nkept[g]; i++)
			results_free(&res[g][i]);
		for (size_t i = 0; i < n[g]; i++)
			free(files[g][i]);
		free(files[g]);
		free(res[g]);
	}
	return status;
}

int cmd_compare(int argc, char **argv)
{
	char **paths = calloc((size_t)argc, sizeof(*paths));
	struct compare_threshold *thr = calloc(MAX_THRESHOLDS, sizeof(*thr));
	struct results *res = NULL;
	struct compare *cmp = NULL;
	size_t npaths = 0, nthr = 0, nread = 0, ncmp = 0;
	bool json = false;
	int status = FS_OK;
	struct fs_error err = { 0 };

	if (!paths || !thr) {
		fprintf(stderr, "futexsim: out of memory\n");
		status = FS_ERR_RUNTIME;
		goto out;
	}
	for (int i = 2; i < argc; i++) {
		const char *arg = argv[i];

		if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
			fputs(usage_compare, stdout);
			goto out;
		} else if (!strcmp(arg, "--json")) {
			json = true;
		} else if (cli_is_option(arg, "--fail-if")) {
			const char *v = cli_option_value(argc, argv, &i, "--fail-if");

			if (!v) {
				fprintf(stderr, "futexsim compare: --fail-if needs 'FIGURE OP VALUE'\n");
				status = FS_ERR_USAGE;
				goto out;
			}
			if (nthr == MAX_THRESHOLDS) {
				fprintf(stderr, "futexsim compare: more than %d --fail-if options\n", MAX_THRESHOLDS);
				status = FS_ERR_USAGE;
				goto out;
			}
			if (compare_parse_threshold(v, &thr[nthr++], &err) < 0) {
				fprintf(stderr, "futexsim compare: %s\n", err.msg);
				status = FS_ERR_USAGE;
				goto out;
			}
		} else if (arg[0] == '-' && arg[1]) {
			fprintf(stderr, "futexsim compare: unknown option '%s' (see futexsim compare --help)\n", arg);
			status = FS_ERR_USAGE;
			goto out;
		} else {
			paths[npaths++] = argv[i];
		}
	}
	if (npaths < 2) {
		fprintf(stderr, "futexsim compare: needs two result files or more, the base first "
				"(see futexsim compare --help)\n");
		status = FS_ERR_USAGE;
		goto out;
	}
	{
		struct stat sa, sb;

		if (npaths == 2 && stat(paths[0], &sa) == 0 && stat(paths[1], &sb) == 0 && S_ISDIR(sa.st_mode) &&
		    S_ISDIR(sb.st_mode)) {
			status = compare_dirs(paths[0], paths[1], thr, nthr, json);
			goto out;
		}
	}
	res = calloc(npaths, sizeof(*res));
	cmp = calloc(npaths - 1, sizeof(*cmp));
	if (!res || !cmp) {
		fprintf(stderr, "futexsim: out of memory\n");
		status = FS_ERR_RUNTIME;
		goto out;
	}
	for (; nread < npaths; nread++) {
		struct h5read_info info;

		if (h5read_results(paths[nread], 0, &res[nread], &info, &err) < 0) {
			results_free(&res[nread]);
			fprintf(stderr, "futexsim: %s\n", err.msg);
			status = err.status ? err.status : FS_ERR_INPUT;
			goto out;
		}
	}
	for (; ncmp < npaths - 1; ncmp++) {
		if (compare_results(&res[0], &res[ncmp + 1], &cmp[ncmp]) < 0) {
			compare_free(&cmp[ncmp]);
			fprintf(stderr, "futexsim: out of memory comparing %s with %s\n", paths[ncmp + 1], paths[0]);
			status = FS_ERR_RUNTIME;
			goto out;
		}
	}
	/* every threshold names a figure of every comparison */
	for (size_t t = 0; t < nthr; t++)
		for (size_t k = 0; k < ncmp; k++)
			if (!compare_find(&cmp[k], thr[t].figure)) {
				char names[4096];

				compare_names(&cmp[k], names, sizeof(names));
				fprintf(stderr, "futexsim compare: --fail-if: unknown figure '%s' (not in both %s and %s); "
						"known figures: %s\n",
					thr[t].figure, paths[0], paths[k + 1], names);
				status = FS_ERR_USAGE;
				goto out;
			}
	if (json) {
		fputs("{\n  \"base\": ", stdout);
		results_json_str(stdout, paths[0]);
		fputs(",\n  \"comparisons\": [\n", stdout);
		for (size_t k = 0; k < ncmp; k++) {
			if (k)
				fputs(",\n", stdout);
			compare_print_json(&cmp[k], paths[k + 1], stdout);
		}
		fputs("\n  ]\n}\n", stdout);
	} else {
		for (size_t k = 0; k < ncmp; k++) {
			if (k)
				putchar('\n');
			compare_print(&cmp[k], paths[0], paths[k + 1], stdout);
		}
	}
	fflush(stdout);
	for (size_t k = 0; k < ncmp; k++) {
		char a[24], b[24];
		int st;

		compare_label(a, sizeof(a), 0);
		compare_label(b, sizeof(b), k + 1);
		st = check_thresholds(thr, nthr, &cmp[k], a, b, ncmp > 1 ? paths[k + 1] : NULL);
		if (st > status)
			status = st;
	}
out:
	for (size_t k = 0; k < ncmp; k++)
		compare_free(&cmp[k]);
	for (size_t i = 0; i < nread; i++)
		results_free(&res[i]);
	free(cmp);
	free(res);
	free(thr);
	free(paths);
	return status;
}
