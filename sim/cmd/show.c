/* SPDX-License-Identifier: MIT */
/* futexsim show: a result file's summary, or several files' figures as CSV or JSON. */
#include "sim/cmd/cmd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/cliopt.h"
#include "sim/h5read.h"
#include "sim/results.h"
#include "sim/views/csv.h"
#include "sim/views/json.h"
#include "sim/views/text.h"

const char usage_show[] =
	"usage: futexsim show FILE.h5 [--per-thread] [--top N]\n"
	"       futexsim show --csv | --json [--top N] FILE.h5...\n"
	"       futexsim show --scenario FILE.h5\n"
	"\n"
	"Prints the summary the run printed (from the file; the wall-clock line on\n"
	"stderr, as the run does), then the buckets whose lock was waited for longest.\n"
	"\n"
	"Options:\n"
	"  --per-thread  print perf's per-thread lines (the default when the run did)\n"
	"  --top N       list N hottest lines and buckets (default: as many lines as the\n"
	"                run listed, output.hottest_lines)\n"
	"  --csv         one header line, then a line per file: every figure of the\n"
	"                summary (names, seed, threads, window, ops/s, transfers, DRAM\n"
	"                fills, the file, blocking totals, resizes, speed), a column per workload\n"
	"                figure of any file (empty for the others), 'complete' last\n"
	"  --json        a JSON array, one object per file: the same figures, the workload\n"
	"                figures with their units, resizes, hottest lines and buckets,\n"
	"                per-thread ops. A file that cannot be read is reported on stderr\n"
	"                and left out (exit status 3)\n"
	"  --scenario    print the scenario as resolved (presets, overrides and defaults\n"
	"                filled in): YAML that `futexsim run` accepts\n"
	"  -h, --help    show this help\n"
	"See docs/results-format.md for the columns and keys.\n"
	"\n"
	"Examples:\n"
	"  $ futexsim run quickstart -o quick.h5 --quiet\n"
	"  $ futexsim show quick.h5\n"
	"  $ futexsim show --csv quick.h5\n"
	"  $ futexsim show --scenario quick.h5 > again.yaml && futexsim run again.yaml --no-output\n";

#define MAX_SHOW_FIGURES 256

/* show --csv and --json over `paths`: every file read and printed in turn; one
 * that cannot be read is reported on stderr and left out (exit status of the
 * first such failure). CSV reads every file twice: first for the names of the
 * workload figures, the columns, then for the rows; a file refused in the first
 * pass is not read again (one time limit per file, as show gives it). */
static int show_table(char **paths, size_t n, uint32_t top, bool json)
{
	char *figs[MAX_SHOW_FIGURES];
	size_t nfigs = 0, shown = 0;
	int status = FS_OK;
	bool *refused = calloc(n ? n : 1, sizeof(*refused));

	if (!refused) {
		fprintf(stderr, "futexsim: out of memory\n");
		return FS_ERR_RUNTIME;
	}
	for (size_t pass = json ? 1 : 0; pass < 2; pass++) {
		for (size_t i = 0; i < n; i++) {
			struct fs_error err = { 0 };
			struct h5read_info info;
			struct results r;

			if (refused[i])
				continue;
			if (h5read_results(paths[i], top, &r, &info, &err) < 0) {
				refused[i] = true;
				fprintf(stderr, "futexsim: %s\n", err.msg);
				if (!status)
					status = err.status ? err.status : FS_ERR_INPUT;
			} else if (pass == 0) {
				for (uint32_t k = 0; k < r.nfigures; k++) {
					size_t j = 0;

					while (j < nfigs && strcmp(figs[j], r.figures[k].name))
						j++;
					if (j == nfigs && nfigs < MAX_SHOW_FIGURES && (figs[nfigs] = strdup(r.figures[k].name)))
						nfigs++;
				}
			} else if (json) {
				fputs(shown++ ? ",\n" : "[\n", stdout);
				results_print_json(&r, paths[i], stdout);
			} else {
				if (!shown++)
					results_print_csv_header((const char *const *)figs, nfigs, stdout);
				results_print_csv_row(&r, paths[i], (const char *const *)figs, nfigs, stdout);
			}
			results_free(&r);
		}
	}
	if (json)
		fputs(shown ? "\n]\n" : "[]\n", stdout);
	for (size_t j = 0; j < nfigs; j++)
		free(figs[j]);
	free(refused);
	return status;
}

int cmd_show(int argc, char **argv)
{
	char **paths = calloc((size_t)argc, sizeof(*paths));
	size_t npaths = 0;
	int per_thread = 0, csv = 0, json = 0, scenario = 0, status = FS_OK;
	uint32_t top = 0;
	struct fs_error err = { 0 };
	struct h5read_info info;
	struct results r;

	if (!paths) {
		fprintf(stderr, "futexsim: out of memory\n");
		return FS_ERR_RUNTIME;
	}
	for (int i = 2; i < argc; i++) {
		const char *arg = argv[i];

		if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
			fputs(usage_show, stdout);
			free(paths);
			return FS_OK;
		} else if (!strcmp(arg, "--per-thread")) {
			per_thread = 1;
		} else if (!strcmp(arg, "--csv")) {
			csv = 1;
		} else if (!strcmp(arg, "--json")) {
			json = 1;
		} else if (!strcmp(arg, "--scenario")) {
			scenario = 1;
		} else if (cli_is_option(arg, "--top")) {
			const char *v = cli_option_value(argc, argv, &i, "--top");

			if (!v || !*v || strspn(v, "0123456789") != strlen(v) || strlen(v) > 4 || !atoi(v)) {
				fprintf(stderr, "futexsim show: --top needs a number from 1 to 9999\n");
				free(paths);
				return FS_ERR_USAGE;
			}
			top = (uint32_t)atoi(v);
		} else if (arg[0] == '-' && arg[1]) {
			fprintf(stderr, "futexsim show: unknown option '%s' (see futexsim show --help)\n", arg);
			free(paths);
			return FS_ERR_USAGE;
		} else {
			paths[npaths++] = argv[i];
		}
	}
	if (!npaths || csv + json + scenario > 1 || (npaths > 1 && !csv && !json)) {
		fprintf(stderr, "futexsim show: %s (see futexsim show --help)\n",
			!npaths			  ? "missing FILE.h5"
			: csv + json + scenario > 1 ? "--csv, --json and --scenario exclude each other"
						    : "several files only with --csv or --json");
		free(paths);
		return FS_ERR_USAGE;
	}
	if (csv || json) {
		status = show_table(paths, npaths, top, json);
	} else if (scenario) {
		char *text = h5read_text(paths[0], "provenance/scenario_resolved", &err);

		if (!text) {
			fprintf(stderr, "futexsim: %s\n", err.msg);
			free(paths);
			return err.status ? err.status : FS_ERR_INPUT;
		}
		fputs(text, stdout);
		free(text);
	} else if (h5read_results(paths[0], top, &r, &info, &err) < 0) {
		results_free(&r);
		fprintf(stderr, "futexsim: %s\n", err.msg);
		free(paths);
		return err.status ? err.status : FS_ERR_INPUT;
	} else {
		results_print_summary(&r, per_thread || info.per_thread, stdout);
		/* as the run printed it: the wall-clock line on stderr */
		fflush(stdout);
		results_print_speed(&r, stderr);
		/* none asked for (output.hottest_lines: 0) is not "none waited" */
		if (top || info.hottest_lines)
			results_print_buckets(&r, stdout);
		results_free(&r);
	}
	free(paths);
	if (fflush(stdout) != 0) {
		fprintf(stderr, "futexsim: cannot write to standard output\n");
		return FS_ERR_OUTPUT;
	}
	return status;
}
