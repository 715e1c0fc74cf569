/* SPDX-License-Identifier: MIT */
/* bin/futexsim: the command line's dispatch to its commands (sim/cmd/, one file each;
 * bench in sim/perfbench.c, fit in sim/fit.c), the help, and the signal handlers: the
 * commands are the only place that prints errors and picks exit codes. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "sim/cmd/cmd.h"
#include "sim/fit.h"
#include "sim/perfbench.h"
#include "sim/revision.h"
#include "sim/sim.h"

/* Set by SIGINT, SIGTERM and SIGHUP; the engine reads it between events (sim/core/engine.h)
 * and the run then ends with what it has. The program's one piece of global
 * mutable state: a signal handler can reach nothing else. */
static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

static void install_signal_handlers(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL); /* a closed terminal: the same clean stop, temporary file removed */
	/* past a file size limit a write then fails (EFBIG) and is reported like a
	 * full disk, instead of the signal killing the process mid-file */
	signal(SIGXFSZ, SIG_IGN);
}

static const char usage_main[] =
	"usage: futexsim COMMAND [ARGS]\n"
	"\n"
	"A discrete-event simulator of Linux futex hashing on NUMA machines.\n"
	"\n"
	"Commands:\n"
	"  run SCENARIO.yaml [OPTIONS]   simulate a scenario, print a perf-style summary and\n"
	"                                write the results to an HDF5 file\n"
	"  show FILE.h5... [OPTIONS]     print a result file's summary, hottest lines and buckets,\n"
	"                                or several files' figures as CSV or JSON\n"
	"  compare A.h5 B.h5... [OPTIONS]\n"
	"                                compare result files with the first (A): every figure's\n"
	"                                delta, the lines and buckets that changed most; gate on\n"
	"                                thresholds (--fail-if) for CI\n"
	"  explain FILE.h5               where the threads' simulated time went, per op, by what\n"
	"                                they did (work, line accesses, the bucket lock, ...)\n"
	"  c2c FILE.h5 [-n N] [--sort K] a perf-c2c-like report of a run's hottest cache lines\n"
	"  list WHAT                     list the machines, kernels, workloads, hashes,\n"
	"                                refcounts or spinlocks a scenario can name, a line each\n"
	"  probe -o FILE.yaml [OPTIONS]  model this machine: read its topology, measure its costs,\n"
	"                                write a machine file (docs/probe.md)\n"
	"  record -o TRACE -- PROGRAM ...\n"
	"                                record a program's futex calls (strace or perf) as a\n"
	"                                trace that workload.type: trace replays (docs/trace.md)\n"
	"  bench [-r N] futex SUITE ...  perf bench futex (hash, wake, wake-parallel, requeue,\n"
	"                                lock-pi), simulated: perf's options\n"
	"                                (-t -f -b -S -s -r -m) and its output, line for line\n"
	"  fit MEASUREMENTS.yaml -o MACHINE.yaml\n"
	"                                fit a machine's CPU-side costs to its stock kernel's\n"
	"                                perf bench futex rows (docs/calibration.md)\n"
	"  help [COMMAND]                show help\n"
	"\n"
	"Options:\n"
	"  -h, --help      show this help\n"
	"  --version       print the version and git revision\n"
	"\n"
	"Exit status: 0 success, 1 run failed, 2 bad command line, 3 bad input (YAML,\n"
	"--set or a result file; YAML messages start with FILE:LINE:COL), 4 output could\n"
	"not be written, 5 scenario refused (resource limit), 130 interrupted.\n"
	"\n"
	"Machine and kernel presets are found by name in the directories of run --config-dir,\n"
	"then of $FUTEXSIM_PATH (colon-separated; each holds machines/ and kernels/), then\n"
	"in %s (FUTEXSIM_CONFIGS replaces this one).\n"
	"A scenario is a file or a name (run quickstart, run workloads/mutex: futexsim list\n"
	"scenarios), found in DIR/scenarios/ of those directories but the last, then in the\n"
	"installed or source tree's scenarios/ (FUTEXSIM_DATA replaces the tree).\n"
	"See README.md and docs/ for the scenario, machine, kernel and result formats.\n"
	"\n"
	"Examples:\n"
	"  $ futexsim run quickstart\n"
	"  $ futexsim bench futex hash -t 4 -b 16\n"
	"  $ futexsim list scenarios\n";

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : NULL;
	char dirbuf[4096];

	/* a line at a time, also into a pipe: a long run's header shows at once */
	setvbuf(stdout, NULL, _IOLBF, 0);

	if (!cmd) {
		fprintf(stderr, usage_main, scenario_default_config_dir(dirbuf, sizeof(dirbuf)));
		return FS_ERR_USAGE;
	}
	if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || (!strcmp(cmd, "help") && argc == 2)) {
		printf(usage_main, scenario_default_config_dir(dirbuf, sizeof(dirbuf)));
		return FS_OK;
	}
	if (!strcmp(cmd, "--version")) {
		printf("futexsim %s (git %s)\n", FUTEXSIM_VERSION, futexsim_git_rev);
		return FS_OK;
	}
	if (!strcmp(cmd, "help")) {
		const char *usage = !strcmp(argv[2], "run")     ? usage_run
				    : !strcmp(argv[2], "show")  ? usage_show
				    : !strcmp(argv[2], "compare") ? usage_compare
				    : !strcmp(argv[2], "explain") ? usage_explain
				    : !strcmp(argv[2], "c2c")   ? usage_c2c
				    : !strcmp(argv[2], "probe") ? usage_probe
				    : !strcmp(argv[2], "record") ? usage_record
				    : !strcmp(argv[2], "list")  ? usage_list
				    : !strcmp(argv[2], "bench") ? perfbench_usage
				    : !strcmp(argv[2], "fit")   ? fit_usage
								: NULL;

		if (!usage || argc > 3) {
			if (!usage)
				fprintf(stderr, "futexsim help: unknown command '%s' (commands: run, show, compare, explain, c2c, list, probe, record, bench, fit)\n", argv[2]);
			else
				fprintf(stderr, "futexsim help: one command at a time\n");
			return FS_ERR_USAGE;
		}
		fputs(usage, stdout);
		return FS_OK;
	}
	if (!strcmp(cmd, "run"))
		{
		install_signal_handlers();
		return cmd_run(argc, argv, &interrupted);
	}
	if (!strcmp(cmd, "show"))
		return cmd_show(argc, argv);
	if (!strcmp(cmd, "compare"))
		return cmd_compare(argc, argv);
	if (!strcmp(cmd, "explain"))
		return cmd_explain(argc, argv);
	if (!strcmp(cmd, "c2c"))
		return cmd_c2c(argc, argv);
	if (!strcmp(cmd, "probe"))
		return cmd_probe(argc, argv);
	if (!strcmp(cmd, "record"))
		return cmd_record(argc, argv);
	if (!strcmp(cmd, "list"))
		return cmd_list(argc, argv);
	if (!strcmp(cmd, "fit"))
		return fit_command(argc, argv);
	if (!strcmp(cmd, "bench")) {
		install_signal_handlers();
		return perfbench_command(argc, argv, &interrupted);
	}
	fprintf(stderr, "futexsim: unknown command '%s' (see futexsim --help)\n", cmd);
	return FS_ERR_USAGE;
}

