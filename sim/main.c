/* bin/futexsim: the command line. Parses arguments, loads the scenario, runs it,
 * prints the summary; the only place that prints errors and picks exit codes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sim/error.h"
#include "sim/results.h"
#include "sim/scenario.h"
#include "sim/sim.h"

#define MAX_SETS 256

static const char usage_main[] =
	"usage: futexsim COMMAND [ARGS]\n"
	"\n"
	"A discrete-event simulator of Linux futex hashing on NUMA machines.\n"
	"\n"
	"Commands:\n"
	"  run SCENARIO.yaml [OPTIONS]   simulate a scenario and print a perf-style summary\n"
	"  help [COMMAND]                show help\n"
	"\n"
	"Options:\n"
	"  -h, --help      show this help\n"
	"  --version       print the version and git revision\n"
	"\n"
	"Exit status: 0 success, 1 run failed, 2 bad command line, 3 bad input (YAML or\n"
	"--set; the message starts with FILE:LINE:COL), 4 output could not be written,\n"
	"5 scenario refused (resource limit), 130 interrupted.\n"
	"\n"
	"Presets are read from %s (set FUTEXSIM_CONFIGS to use another directory).\n"
	"See README.md and docs/ for the scenario, machine and kernel formats.\n";

static const char usage_run[] =
	"usage: futexsim run SCENARIO.yaml [--set KEY=VALUE]... [--seed N] [--per-thread]\n"
	"\n"
	"Simulates SCENARIO.yaml and prints perf bench futex hash's summary: optional\n"
	"per-thread lines, then 'Averaged N operations/sec (+- X%%), total secs = T' where N is\n"
	"the mean over threads of each thread's simulated ops per simulated second and X the\n"
	"standard error of that mean in percent (as perf computes them), then futexsim's own\n"
	"figures: total ops, line transfers within an SMT core, within a node and across nodes,\n"
	"DRAM fills, the hottest lines, and the simulation speed.\n"
	"\n"
	"Options:\n"
	"  --set KEY=VALUE  override a scenario key by its dotted path; VALUE is YAML\n"
	"                   (repeatable, applied in order). Examples:\n"
	"                     --set workload.threads=28\n"
	"                     --set kernel.private_hash.buckets=128\n"
	"                     --set kernel=linux-6.17\n"
	"                     --set machine=configs/machines/e5-2650-2s.yaml\n"
	"                     --set run.duration=50ms\n"
	"                   A key under a preset name (kernel: linux-6.18) turns it into\n"
	"                   {preset: linux-6.18, ...} with the field overridden.\n"
	"  --seed N         same as --set run.seed=N (all random choices derive from it)\n"
	"  --per-thread     print perf's per-thread lines (also output.per_thread: true)\n"
	"  -h, --help       show this help\n"
	"\n"
	"Scenario keys: name, description, machine, kernel, workload, run {duration,\n"
	"warmup, seed, aslr, user_memory_node}, output {per_thread, hottest_lines}.\n"
	"See docs/scenario.md.\n";

static int cmd_run(int argc, char **argv)
{
	const char *sets[MAX_SETS + 1];
	char seed_set[64];
	const char *path = NULL;
	size_t nsets = 0;
	int per_thread = 0, status = FS_OK;
	struct fs_error err = { 0 };
	struct scenario sc;
	struct results res;
	struct sim s;
	struct timespec t0, t1;

	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(usage_run, stdout);
			return FS_OK;
		} else if (!strcmp(a, "--set") || !strncmp(a, "--set=", 6)) {
			const char *v = a[5] == '=' ? a + 6 : (i + 1 < argc ? argv[++i] : NULL);

			if (!v) {
				fprintf(stderr, "futexsim run: --set needs KEY=VALUE\n");
				return FS_ERR_USAGE;
			}
			if (nsets == MAX_SETS) {
				fprintf(stderr, "futexsim run: more than %d --set options\n", MAX_SETS);
				return FS_ERR_USAGE;
			}
			sets[nsets++] = v;
		} else if (!strcmp(a, "--seed") || !strncmp(a, "--seed=", 7)) {
			const char *v = a[6] == '=' ? a + 7 : (i + 1 < argc ? argv[++i] : NULL);

			if (!v || !*v || strspn(v, "0123456789") != strlen(v) || strlen(v) > 20) {
				fprintf(stderr, "futexsim run: --seed needs a non-negative integer\n");
				return FS_ERR_USAGE;
			}
			if (nsets == MAX_SETS) {
				fprintf(stderr, "futexsim run: more than %d --set options\n", MAX_SETS);
				return FS_ERR_USAGE;
			}
			snprintf(seed_set, sizeof(seed_set), "run.seed=%s", v);
			sets[nsets++] = seed_set;
		} else if (!strcmp(a, "--per-thread")) {
			per_thread = 1;
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr, "futexsim run: unknown option '%s' (see futexsim run --help)\n", a);
			return FS_ERR_USAGE;
		} else if (path) {
			fprintf(stderr, "futexsim run: one scenario at a time ('%s' and '%s')\n", path, a);
			return FS_ERR_USAGE;
		} else {
			path = a;
		}
	}
	if (!path) {
		fprintf(stderr, "futexsim run: missing SCENARIO.yaml (see futexsim run --help)\n");
		return FS_ERR_USAGE;
	}

	if (scenario_load(&sc, path, sets, nsets, &err) < 0) {
		fprintf(stderr, "futexsim: %s\n", err.msg);
		scenario_free(&sc);
		return err.status ? err.status : FS_ERR_INPUT;
	}
	if (sim_build(&s, &sc, &err) < 0) {
		status = err.status ? err.status : FS_ERR_RUNTIME;
		goto out;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (sim_run(&s, &err) < 0) {
		status = err.status ? err.status : FS_ERR_RUNTIME;
		goto out;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (results_from_sim(&res, &s, sc.hottest_lines,
			     (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9) < 0) {
		results_free(&res);
		status = fs_fail(&err, FS_ERR_RUNTIME, "out of memory gathering results") < 0 ? FS_ERR_RUNTIME : 0;
		goto out;
	}
	results_print_summary(&res, per_thread || sc.per_thread, stdout);
	results_free(&res);
	if (fflush(stdout) != 0)
		status = fs_fail(&err, FS_ERR_OUTPUT, "cannot write the summary to standard output") < 0
				 ? FS_ERR_OUTPUT
				 : 0;
out:
	if (status)
		fprintf(stderr, "futexsim: %s\n", err.msg);
	sim_free(&s);
	scenario_free(&sc);
	return status;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : NULL;

	if (!cmd) {
		fprintf(stderr, usage_main, scenario_config_dir());
		return FS_ERR_USAGE;
	}
	if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || (!strcmp(cmd, "help") && argc == 2)) {
		printf(usage_main, scenario_config_dir());
		return FS_OK;
	}
	if (!strcmp(cmd, "--version")) {
		printf("futexsim %s (git %s)\n", FUTEXSIM_VERSION, FUTEXSIM_GIT_REV);
		return FS_OK;
	}
	if (!strcmp(cmd, "help") && argc == 3 && !strcmp(argv[2], "run")) {
		fputs(usage_run, stdout);
		return FS_OK;
	}
	if (!strcmp(cmd, "run"))
		return cmd_run(argc - 2, argv + 2);
	fprintf(stderr, "futexsim: unknown command '%s' (see futexsim --help)\n", cmd);
	return FS_ERR_USAGE;
}
