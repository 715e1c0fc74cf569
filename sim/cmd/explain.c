/* SPDX-License-Identifier: MIT */
/* futexsim explain: where a run's simulated time went, per op. */
#include "sim/cmd/cmd.h"

#include <stdio.h>
#include <string.h>

#include "sim/h5read.h"
#include "sim/results.h"
#include "sim/views/explain.h"

const char usage_explain[] =
	"usage: futexsim explain FILE.h5\n"
	"\n"
	"Where the reported threads' simulated time in the measured window went, per op: the\n"
	"time of each micro-op, from its start to the next's (its waits included), summed by\n"
	"class: kernel_work (local work on the futex path, then split by path step: syscall\n"
	"entry and exit, get_key, hash_lookup, ...), user_work (the workload's own), bucket_lines and other_lines (accesses to\n"
	"hash bucket lines and to other kernel lines, transfers included), waiters, lock\n"
	"(taking the bucket lock, waiting included), unlock, user_access (the futex word),\n"
	"mmap_lock, chain (queueing, walking) and asleep; in ns per op and as a share; and\n"
	"how much of the threads' time in the window the classes account for; the classes of\n"
	"each node's threads apart when they run on several nodes, and of each role when the\n"
	"workload's threads have roles (schbench's message threads and workers, producers and\n"
	"consumers, perf's wakers and blocked threads: threads/role); then the line\n"
	"transfers per op by distance, DRAM fills per op and the three hottest lines (futexsim\n"
	"c2c lists them all). Recorded by every run (threads/time and summary/kernel_work_steps\n"
	"in the result file); files of earlier versions lack them.\n"
	"Exit status: 0, 2 bad command line, 3 the file cannot be read or has no breakdown.\n"
	"\n"
	"Examples:\n"
	"  $ futexsim run workloads/mutex --set run.duration=2ms -o mutex.h5 --quiet\n"
	"  $ futexsim explain mutex.h5\n";

int cmd_explain(int argc, char **argv)
{
	struct fs_error err = { 0 };
	struct h5read_info info;
	struct results r;
	int status = FS_OK;

	for (int i = 2; i < argc; i++) /* -h wherever it is, as every command takes it */
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			fputs(usage_explain, stdout);
			return FS_OK;
		}
	for (int i = 2; i < argc; i++)
		if (argv[i][0] == '-') {
			fprintf(stderr, "futexsim explain: unknown option '%s' (see futexsim explain --help)\n", argv[i]);
			return FS_ERR_USAGE;
		}
	if (argc != 3) {
		fprintf(stderr, "futexsim explain: needs one result file (see futexsim explain --help)\n");
		return FS_ERR_USAGE;
	}
	if (h5read_results(argv[2], 0, &r, &info, &err) < 0) {
		fprintf(stderr, "futexsim: %s\n", err.msg);
		status = err.status ? err.status : FS_ERR_INPUT;
	} else if (results_print_explain(&r, stdout) < 0) {
		fprintf(stderr, "futexsim explain: %s has no time breakdown (written by an earlier futexsim, or no "
				"ops in its window)\n", argv[2]);
		status = FS_ERR_INPUT;
	}
	results_free(&r);
	return status;
}
