/* SPDX-License-Identifier: MIT */
/* futexsim c2c: a perf-c2c-like report of a run's hottest cache lines. */
#include "sim/cmd/cmd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/h5read.h"
#include "sim/results.h"
#include "sim/views/c2c.h"

const char usage_c2c[] =
	"usage: futexsim c2c FILE.h5 [-n N] [--sort transfers|remote|waiting]\n"
	"\n"
	"A perf-c2c-like report of a run: its N hottest cache lines (default 20), ranked by\n"
	"transfers (default), by transfers across nodes, or by the time requests queued for\n"
	"them. Each line: its address and home node; its transfers (perf c2c's HITM), their\n"
	"share of all, and how many crossed nodes, stayed in a node or in a core; its reads\n"
	"and writes; the time requests waited for it; what lives on it (object, element,\n"
	"fields) and the futex path steps that touch those fields (docs/kernel.md). From\n"
	"the result file's lines/ group, which holds every line that saw traffic.\n"
	"Exit status: 0, 2 bad command line, 3 the file cannot be read or has no lines.\n"
	"\n"
	"Examples:\n"
	"  $ futexsim run workloads/mutex --set run.duration=2ms -o mutex.h5 --quiet\n"
	"  $ futexsim c2c mutex.h5 -n 5 --sort remote\n";

int cmd_c2c(int argc, char **argv)
{
	struct fs_error err = { 0 };
	struct h5read_info info;
	struct results r;
	const char *path = NULL;
	enum c2c_sort sort = C2C_BY_TRANSFERS;
	unsigned long n = 20;
	int status = FS_OK;

	for (int i = 2; i < argc; i++) {
		char *end;

		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			fputs(usage_c2c, stdout);
			return FS_OK;
		} else if (!strcmp(argv[i], "-n") && i + 1 < argc) {
			errno = 0;
			n = strtoul(argv[++i], &end, 10);
			if (errno || *end || !n || n > 100000 || argv[i][0] == '-') {
				fprintf(stderr, "futexsim c2c: -n needs a number of lines from 1 to 100000, not '%s'\n",
					argv[i]);
				return FS_ERR_USAGE;
			}
		} else if (!strcmp(argv[i], "--sort") && i + 1 < argc) {
			const char *k = argv[++i];

			if (!strcmp(k, "transfers"))
				sort = C2C_BY_TRANSFERS;
			else if (!strcmp(k, "remote"))
				sort = C2C_BY_REMOTE;
			else if (!strcmp(k, "waiting"))
				sort = C2C_BY_WAITING;
			else {
				fprintf(stderr, "futexsim c2c: --sort takes transfers, remote or waiting, not '%s'\n", k);
				return FS_ERR_USAGE;
			}
		} else if (argv[i][0] != '-' && !path) {
			path = argv[i];
		} else {
			fprintf(stderr, "futexsim c2c: unexpected '%s' (see futexsim c2c --help)\n", argv[i]);
			return FS_ERR_USAGE;
		}
	}
	if (!path) {
		fprintf(stderr, "futexsim c2c: needs one result file (see futexsim c2c --help)\n");
		return FS_ERR_USAGE;
	}
	if (h5read_results(path, 0, &r, &info, &err) < 0) {
		fprintf(stderr, "futexsim: %s\n", err.msg);
		status = err.status ? err.status : FS_ERR_INPUT;
	} else if (results_print_c2c(&r, (uint32_t)n, sort, stdout) < 0) {
		fprintf(stderr, "futexsim c2c: %s has no line with traffic\n", path);
		status = FS_ERR_INPUT;
	}
	results_free(&r);
	return status;
}
