/* SPDX-License-Identifier: MIT */
/* bin/futexsim: the command line. Parses arguments, loads the scenario, runs it,
 * prints the summary and writes the result file; shows result files; the only
 * place that prints errors, picks exit codes and handles signals. */
#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "models/hashfn.h"
#include "models/refcount.h"
#include "models/spinlock.h"
#include "models/workload.h"
#include "sim/band.h"
#include "sim/core/error.h"
#include "sim/cliopt.h"
#include "sim/compare.h"
#include "sim/fit.h"
#include "sim/core/yamltree.h"
#include "sim/h5out.h"
#include "sim/h5read.h"
#include "sim/perfbench.h"
#include "sim/probe.h"
#include "sim/results.h"
#include "sim/revision.h"
#include "sim/scenario.h"
#include "sim/sim.h"

#define MAX_SETS 256
#define MAX_CONFIG_DIRS 16

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
	"See README.md and docs/ for the scenario, machine, kernel and result formats.\n";

static const char usage_run[] =
	"usage: futexsim run SCENARIO.yaml [--set KEY=VALUE]... [--seed N] [--per-thread]\n"
	"                    [--config-dir DIR]... [-o FILE.h5 | --no-output] [--quiet] [--progress]\n"
	"                    [--band] [--check]\n"
	"\n"
	"Simulates SCENARIO.yaml and prints perf bench futex hash's summary: optional\n"
	"per-thread lines, then 'Averaged N operations/sec (+- X%), total secs = T' where N is\n"
	"the mean over threads of each thread's simulated ops per simulated second and X the\n"
	"standard error of that mean in percent (as perf computes them), then futexsim's own\n"
	"figures: total ops, line transfers within an SMT core, within a node and across nodes,\n"
	"DRAM fills, for blocking workloads (mutex, condvar, ...) their waits, wakes, latency\n"
	"percentiles and resizes, and the hottest lines. An op is a FUTEX_WAIT call\n"
	"(hash-bench), a lock acquisition (mutex), a barrier passed or an item put or taken\n"
	"(condvar), a thread back from its wait (wake, wake-parallel, requeue: perf's lines\n"
	"per run and its summary line replace the Averaged line), a PI lock/unlock pair\n"
	"(lock-pi), a request (schbench: its latency percentiles and average rps instead\n"
	"of the Averaged line). The header is printed before the run, the figures after it; standard\n"
	"output is line-buffered and the same, byte for byte, for the same scenario and seed.\n"
	"Standard error gets the simulation speed ('  wall time W s for O simulated ops and\n"
	"E events: ...'), where the results went, the progress, and errors.\n"
	"\n"
	"Writes every figure, a time series per output.interval and the run's provenance\n"
	"to one HDF5 file (docs/results-format.md), by default\n"
	"results/SCENARIO-SEED-YYYYmmddTHHMMSSZ-PID.h5 (results/ is created when missing).\n"
	"The file appears only when complete; SIGINT, SIGTERM or SIGHUP stops the run early,\n"
	"writes the figures so far to a file marked incomplete (NAME.incomplete.h5 instead\n"
	"when NAME.h5 exists: an earlier result is never replaced), and exits with 130.\n"
	"\n"
	"Options:\n"
	"  --set KEY=VALUE  override a scenario key by its dotted path; VALUE is YAML\n"
	"                   (repeatable, applied in order). Examples:\n"
	"                     --set workload.threads=28\n"
	"                     --set kernel.private_hash.buckets=128\n"
	"                     --set kernel=linux-6.17\n"
	"                     --set machine=configs/machines/e5-2650-2s.yaml\n"
	"                     --set run.duration=50ms\n"
	"                     --set output.interval=10us\n"
	"                   A key under a preset name (kernel: linux-6.18) turns it into\n"
	"                   {preset: linux-6.18, ...} with the field overridden.\n"
	"  --seed N         same as --set run.seed=N (all random choices derive from it)\n"
	"  --per-thread     print perf's per-thread lines (also output.per_thread: true)\n"
	"  --config-dir DIR look for machine and kernel presets by name in DIR/machines/ and\n"
	"                   DIR/kernels/ first (repeatable, searched in order), then in the\n"
	"                   directories of $FUTEXSIM_PATH, then in the default one\n"
	"                   (futexsim --help); an unknown name lists every directory tried\n"
	"  -o FILE.h5, --output FILE.h5\n"
	"                   write the result file to FILE.h5: a new name, or a regular file it\n"
	"                   replaces (never a device, FIFO, directory or the scenario itself;\n"
	"                   a symbolic link only with --force, which replaces the link)\n"
	"  --force          let -o replace a symbolic link\n"
	"  --no-output, -o -  write no result file\n"
	"  -q, --quiet      print errors only: no summary on stdout, no speed, progress or\n"
	"                   note on stderr (the exit status says how it went)\n"
	"  --progress       print the progress on stderr even when it is not a terminal (a\n"
	"                   line per update; on a terminal it is shown by default, one line\n"
	"                   rewritten): simulated time done, events, the time left at the\n"
	"                   run's rate so far; about once a second, and a last line at the\n"
	"                   end. It changes no result\n"
	"  --band           also run the scenario at the fitted machine costs moved by one\n"
	"                   standard deviation either way along each principal axis of the\n"
	"                   fit's covariance (the machine config's calibration block, written\n"
	"                   by make calibrate; 2 runs per axis, 12 for e5-2650-2s), or, on a\n"
	"                   machine built from hardware facts, each cost of its uncertainty\n"
	"                   block moved by the spread of a uniform draw over its range; print\n"
	"                   the Averaged figure's 1-sigma band ('band' line; in the file as\n"
	"                   summary/ops_per_sec_band). The band covers the costs' uncertainty,\n"
	"                   not the model's own errors. docs/calibration.md\n"
	"  --check          load the scenario with its overrides and build its models as\n"
	"                   the run would (keys, values, presets, limits, the workload's\n"
	"                   setup), then stop: print nothing, run nothing, write nothing;\n"
	"                   exit 0 when the run would start (sweeps check their grid so)\n"
	"  -h, --help       show this help\n"
	"\n"
	"Scenario keys: name, description, machine, kernel, workload (type: hash-bench,\n"
	"mutex, condvar, wake, wake-parallel, requeue, lock-pi or schbench), run {duration, warmup, seed, aslr, max_memory, max_events},\n"
	"output {per_thread, hottest_lines, interval}.\n"
	"See docs/scenario.md.\n";

static const char usage_list[] =
	"usage: futexsim list machines|kernels|workloads|hashes|refcounts|spinlocks\n"
	"\n"
	"Prints one line each: the name a scenario uses and what it is.\n"
	"  machines   machine presets (machine: NAME), from their description: key, in the\n"
	"             preset directories (futexsim --help); a name found in more than one\n"
	"             lists the one that is used\n"
	"  kernels    kernel design presets (kernel: NAME), likewise\n"
	"  workloads  workload types (workload.type)\n"
	"  hashes     hash functions (kernel.global_hash.hash, kernel.private_hash.hash)\n"
	"  refcounts  private hash reference counting modes (kernel.private_hash.refcount)\n"
	"  spinlocks  queued spinlock variants of the bucket lock (kernel.spinlock)\n"
	"Options:\n"
	"  --config-dir DIR  also look in DIR first, as run --config-dir does (repeatable)\n"
	"  -h, --help        show this help\n";

static const char usage_c2c[] =
	"usage: futexsim c2c FILE.h5 [-n N] [--sort transfers|remote|waiting]\n"
	"\n"
	"A perf-c2c-like report of a run: its N hottest cache lines (default 20), ranked by\n"
	"transfers (default), by transfers across nodes, or by the time requests queued for\n"
	"them. Each line: its address and home node; its transfers (perf c2c's HITM), their\n"
	"share of all, and how many crossed nodes, stayed in a node or in a core; its reads\n"
	"and writes; the time requests waited for it; what lives on it (object, element,\n"
	"fields) and the futex path steps that touch those fields (docs/kernel.md). From\n"
	"the result file's lines/ group, which holds every line that saw traffic.\n"
	"Exit status: 0, 2 bad command line, 3 the file cannot be read or has no lines.\n";

static const char usage_explain[] =
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
	"Exit status: 0, 2 bad command line, 3 the file cannot be read or has no breakdown.\n";

static const char usage_show[] =
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
	"See docs/results-format.md for the columns and keys.\n";

static const char usage_compare[] =
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
	"the lines and buckets are those of each directory's first run.\n"
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
	"message lists the names), 3 a file cannot be read.\n";

static const char usage_probe[] =
	"usage: futexsim probe -o FILE.yaml [--seconds N] [--name NAME]\n"
	"       futexsim probe --check [--machine FILE.yaml] [--kernel PRESET] [--name NAME]\n"
	"                              [--seconds N] [-o TABLE.csv] [--no-anchor]\n"
	"       futexsim probe --topology [--root DIR]\n"
	"\n"
	"Models the machine it runs on. Reads the topology from sysfs (online CPUs, their\n"
	"cores and SMT siblings, NUMA nodes and distances, last-level caches, clock, CPU\n"
	"model, kernel release), then measures with micro-benchmarks pinned to chosen CPUs\n"
	"(sched_setaffinity): the syscall entry and exit (a loop of getppid), L1 and atomic\n"
	"hits, one-way line hand-offs by CAS ping-pong between SMT siblings, cores of a node\n"
	"and of other nodes, DRAM latency by node (a pointer chase over a random cycle larger\n"
	"than the last-level cache) and the SMT slowdown (a loop with its sibling idle and\n"
	"busy). Writes a machine file (docs/machine.md) whose every constant says how it was\n"
	"measured: median and spread over the trials, date, CPU model and kernel; what cannot\n"
	"be measured is labelled [A] or [D] with the reason. The file is checked by loading\n"
	"it as the simulator does and appears only when complete. Prints the kernel preset\n"
	"nearest to the running kernel and the mitigations it reports.\n"
	"\n"
	"A topology the machine schema cannot express (unequal cores per node, a CPU\n"
	"numbering neither cores-first nor smt-adjacent, ...) is refused: nothing written.\n"
	"\n"
	"Options:\n"
	"  -o FILE.yaml, --output FILE.yaml\n"
	"                   the machine file to write (replaced if it exists; - for standard\n"
	"                   output); its name is FILE unless --name is given\n"
	"  --seconds N      measuring budget (default 20); trials scale with it, at least 5\n"
	"                   per value, so a small budget may take somewhat longer\n"
	"  --name NAME      the machine's name in the file\n"
	"  --topology       only read and print the topology, kernel preset and mitigations\n"
	"  --root DIR       with --topology: read DIR/sys and DIR/proc instead of /sys, /proc\n"
	"  -h, --help       show this help\n"
	"\n"
	"Progress goes to standard error, a line per value. Exit status: 0 written, 1 a\n"
	"benchmark failed (e.g. sched_setaffinity not permitted), 2 bad command line, 3 the\n"
	"topology cannot be read or expressed, 4 the file cannot be written.\n"
	"Use the file: futexsim run SCENARIO.yaml --set machine=FILE.yaml\n"
	"\n"
	"--check: runs perf's futex hash loop for real on this machine (1 thread, 1 per core,\n"
	"all CPUs; private and shared; private hashes of 2, 16, 128 slots and the global hash\n"
	"where the kernel has PR_FUTEX_HASH; and perf bench futex hash itself when perf is\n"
	"installed), simulates the same scenarios on the probed machine file (--machine, else\n"
	"it probes into results/host-machine.yaml first) with the kernel preset nearest to this\n"
	"kernel (--kernel), and prints real vs simulated with the error of each and their\n"
	"median; -o writes the table as CSV (default results/host-check.csv). Then, anchored:\n"
	"the machine file fitted (futexsim fit) to the real figures of the scenarios without -b\n"
	"(TABLE-stock-rows.yaml, MACHINE-anchored.yaml) and every scenario simulated again on it,\n"
	"the -b rows as predictions (TABLE-anchored.csv); --no-anchor skips that. docs/probe.md.\n";

/* "--opt VALUE" or "--opt=VALUE": the value, advancing *i past it; NULL when absent. */
struct run_args {
	const char *path;
	const char *sets[MAX_SETS + 1];
	char seed_set[64];
	size_t nsets;
	int per_thread;
	const char *output;   /* -o FILE; NULL: the default name */
	int no_output;
	bool force;           /* --force: -o may replace a symbolic link */
	bool quiet;           /* --quiet: errors only */
	bool progress;        /* --progress: progress on stderr even when it is no terminal */
	bool band;            /* --band: the fit's 1-sigma band (sim/band.h) */
	bool check;           /* --check: load and check only */
	const char *config_dirs[MAX_CONFIG_DIRS + 1]; /* --config-dir, NULL-terminated */
	size_t nconfig_dirs;
};

/* --config-dir DIR (or =DIR) into dirs; -1 after printing the error. */
static int add_config_dir(const char *cmd, int argc, char **argv, int *i, const char **dirs, size_t *n)
{
	const char *v = cli_option_value(argc, argv, i, "--config-dir");

	if (!v || !*v || (v[0] == '-' && v[1])) {
		fprintf(stderr, "futexsim %s: --config-dir needs a directory\n", cmd);
		return -1;
	}
	if (*n == MAX_CONFIG_DIRS) {
		fprintf(stderr, "futexsim %s: more than %d --config-dir options\n", cmd, MAX_CONFIG_DIRS);
		return -1;
	}
	dirs[(*n)++] = v;
	dirs[*n] = NULL;
	return 0;
}

static int parse_run_args(int argc, char **argv, struct run_args *a)
{
	memset(a, 0, sizeof(*a));
	for (int i = 2; i < argc; i++) {
		const char *arg = argv[i], *v;

		if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
			fputs(usage_run, stdout);
			return -1;
		} else if (cli_is_option(arg, "--set") || cli_is_option(arg, "--seed")) {
			int seed = cli_is_option(arg, "--seed");

			v = cli_option_value(argc, argv, &i, seed ? "--seed" : "--set");
			if (!v || (seed && (!*v || strspn(v, "0123456789") != strlen(v) || strlen(v) > 20))) {
				fprintf(stderr, "futexsim run: %s\n",
					seed ? "--seed needs a non-negative integer" : "--set needs KEY=VALUE");
				return FS_ERR_USAGE;
			}
			if (a->nsets == MAX_SETS) {
				fprintf(stderr, "futexsim run: more than %d --set options\n", MAX_SETS);
				return FS_ERR_USAGE;
			}
			if (seed) {
				snprintf(a->seed_set, sizeof(a->seed_set), "run.seed=%s", v);
				v = a->seed_set;
			}
			a->sets[a->nsets++] = v;
		} else if (!strcmp(arg, "--per-thread")) {
			a->per_thread = 1;
		} else if (cli_is_option(arg, "--config-dir")) {
			if (add_config_dir("run", argc, argv, &i, a->config_dirs, &a->nconfig_dirs) < 0)
				return FS_ERR_USAGE;
		} else if (!strcmp(arg, "-o") || cli_is_option(arg, "--output")) {
			v = cli_option_value(argc, argv, &i, "--output");
			if (!v || !*v || (v[0] == '-' && v[1])) {
				fprintf(stderr, "futexsim run: %s needs a file name (or - for none)%s%s\n", arg,
					v && *v ? ", got the option " : "", v && *v ? v : "");
				return FS_ERR_USAGE;
			}
			a->output = v;
			a->no_output = !strcmp(v, "-");
		} else if (!strcmp(arg, "--no-output")) {
			a->no_output = 1;
		} else if (!strcmp(arg, "--force")) {
			a->force = true;
		} else if (!strcmp(arg, "--quiet") || !strcmp(arg, "-q")) {
			a->quiet = true;
		} else if (!strcmp(arg, "--progress")) {
			a->progress = true;
		} else if (!strcmp(arg, "--band")) {
			a->band = true;
		} else if (!strcmp(arg, "--check")) {
			a->check = true;
		} else if (arg[0] == '-' && arg[1]) {
			fprintf(stderr, "futexsim run: unknown option '%s' (see futexsim run --help)\n", arg);
			return FS_ERR_USAGE;
		} else if (a->path) {
			fprintf(stderr, "futexsim run: one scenario at a time ('%s' and '%s')\n", a->path, arg);
			return FS_ERR_USAGE;
		} else {
			a->path = arg;
		}
	}
	if (!a->path) {
		fprintf(stderr, "futexsim run: missing SCENARIO.yaml (see futexsim run --help)\n");
		return FS_ERR_USAGE;
	}
	return 0;
}

static double seconds_between(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

/* Progress on stderr: simulated time done, events, and the time left at the
 * run's own rate so far. On a terminal one line rewritten in place, otherwise a
 * line per update. */
static void print_progress(const struct sim *s, simtime_t done, double elapsed, bool tty, bool final)
{
	double frac = s->end ? (double)done / (double)s->end : 1.0;

	fprintf(stderr, "%sprogress: %.6g of %.6g ms simulated (%.0f%%), %llu events, ", tty ? "\r" : "",
		(double)done / 1e9, (double)s->end / 1e9, 100.0 * frac, (unsigned long long)s->eng.events);
	if (final)
		fprintf(stderr, "%.1f s%s", elapsed, tty ? "\033[K\n" : "\n");
	else if (frac > 0)
		fprintf(stderr, "ETA %.0f s%s", elapsed * (1.0 - frac) / frac, tty ? "\033[K" : "\n");
	else
		fprintf(stderr, "ETA unknown%s", tty ? "\033[K" : "\n");
	fflush(stderr);
}

/* sim_run in steps of simulated time sized from the measured rate (about 0.1 s
 * of wall time each), printing the progress about once a second and at the end.
 * The events handled, and so every result, are those of sim_run: sim_advance
 * only chooses where the engine pauses. */
static int run_with_progress(struct sim *s, bool tty, struct fs_error *e)
{
	simtime_t t = 0, step = s->end / 10000 ? s->end / 10000 : 1;
	struct timespec t0, prev, last, now;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	prev = last = t0;
	sim_start(s);
	while (!s->eng.stop && !interrupted && engine_next_time(&s->eng) < s->end) {
		double dt;

		t = step < s->end - t ? t + step : s->end;
		sim_advance(s, t);
		clock_gettime(CLOCK_MONOTONIC, &now);
		dt = seconds_between(&prev, &now);
		prev = now;
		/* aim at 0.1 s per step, changing it at most 4 times per step */
		if (dt < 0.025)
			step = step < SIMTIME_MAX / 4 ? step * 4 : step;
		else if (dt > 0.4)
			step = step / 4 ? step / 4 : 1;
		else
			step = (simtime_t)((double)step * 0.1 / dt) + 1;
		if (seconds_between(&last, &now) >= 1.0) {
			print_progress(s, t, seconds_between(&t0, &now), tty, false);
			last = now;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &now);
	print_progress(s, s->eng.now > t ? s->eng.now : t, seconds_between(&t0, &now), tty, true);
	return sim_finish(s, e);
}

/* run --band: the scenario again with each move of `plan` (sim/band.h) after
 * the user's overrides; the band of perf's Averaged figure into `res`. 0 when
 * done, 1 when interrupted (no band), -1 on error. */
static int run_band(const struct run_args *a, const struct band_plan *plan, struct results *res, struct fs_error *e)
{
	double figures[2 * BAND_MAX_PARAMS];
	int rc = -1;

	for (uint32_t r = 0; r < plan->nruns; r++) {
		const char *sets[MAX_SETS + BAND_MAX_PARAMS + 1];
		size_t n = 0;
		struct scenario bsc;
		struct sim bs;
		struct results br;
		int ok;

		for (size_t i = 0; i < a->nsets; i++)
			sets[n++] = a->sets[i];
		for (uint32_t i = 0; i < plan->nparams; i++)
			sets[n++] = plan->sets[r][i];
		sets[n] = NULL;
		if (!a->quiet) {
			fprintf(stderr, "band: run %u of %u:", r + 1, plan->nruns);
			for (uint32_t i = 0; i < plan->nparams; i++)
				fprintf(stderr, " %s", plan->sets[r][i] + strlen("machine."));
			fputc('\n', stderr);
		}
		if (scenario_load_dirs(&bsc, a->path, sets, n, a->config_dirs, e) < 0) {
			scenario_free(&bsc);
			goto out;
		}
		ok = sim_build(&bs, &bsc, e) == 0;
		bs.eng.interrupt = &interrupted;
		ok = ok && sim_run(&bs, e) == 0;
		if (ok && bs.interrupted) {
			rc = 1;
		} else if (ok) {
			ok = results_from_sim(&br, &bs, 0, 0) == 0;
			if (ok)
				figures[r] = (double)br.avg.mean;
			else
				fs_fail(e, FS_ERR_RUNTIME, "out of memory gathering results");
			results_free(&br);
		}
		sim_free(&bs);
		scenario_free(&bsc);
		if (!ok || rc == 1)
			goto out;
	}
	band_combine(plan, (double)res->avg.mean, figures, &res->band_lo, &res->band_hi);
	res->band_runs = plan->nruns;
	res->band_basis = plan->basis;
	rc = 0;
out:
	return rc;
}

static int cmd_run(int argc, char **argv)
{
	struct run_args a;
	int status = FS_OK, writing, rc = parse_run_args(argc, argv, &a);
	struct h5out_origin origin = { argc, argv, time(NULL) };
	struct fs_error err = { 0 }, write_err = { 0 };
	char default_path[4096];
	const char *path = NULL;
	struct h5out out = { .path = NULL }; /* h5out_abort does nothing until opened */
	struct scenario sc;
	struct results res;
	struct sim s;
	struct timespec t0, t1;
	bool band_stopped = false;
	struct band_plan *plan = NULL;

	if (rc)
		return rc < 0 ? FS_OK : rc;
	writing = !a.no_output;
	install_signal_handlers();
	if (scenario_load_dirs(&sc, a.path, a.sets, a.nsets, a.config_dirs, &err) < 0) {
		fprintf(stderr, "futexsim: %s\n", err.msg);
		scenario_free(&sc);
		return err.status ? err.status : FS_ERR_INPUT;
	}
	if (a.check) {
		/* built as the run would build it, then freed: every error the run could meet
		 * before its first event */
		status = sim_build(&s, &sc, &err) < 0 ? (err.status ? err.status : FS_ERR_INPUT) : FS_OK;
		if (status)
			fprintf(stderr, "futexsim: %s\n", err.msg);
		sim_free(&s);
		scenario_free(&sc);
		return status;
	}
	/* the band's plan first: a machine without a calibration fails at once */
	if (a.band && (!(plan = malloc(sizeof(*plan))) ? fs_fail(&err, FS_ERR_LIMIT, "out of memory")
			: band_plan_from_machine(plan, yt_get(sc.resolved, "machine"), &err)) < 0) {
		status = err.status ? err.status : FS_ERR_INPUT;
		free(plan);
		scenario_free(&sc);
		fprintf(stderr, "futexsim: %s\n", err.msg);
		return status;
	}
	if (sim_build(&s, &sc, &err) < 0) {
		status = err.status ? err.status : FS_ERR_RUNTIME;
		goto out;
	}
	if (writing) {
		/* before the run, so an unwritable place fails at once */
		path = a.output;
		if (!path && h5out_default_path(default_path, sizeof(default_path), sc.name, sc.seed, origin.start,
						&err) == 0)
			path = default_path;
		if (path && a.output) {
			const char *const inputs[] = { a.path, NULL };

			if (h5out_check_path(path, a.force, inputs, &err) < 0)
				path = NULL;
		}
		if (!path || h5out_open(&out, path, &sc, &s.series, &origin, &err) < 0) {
			status = FS_ERR_OUTPUT;
			goto out;
		}
		series_set_sink(&s.series, h5out_append, &out);
	}
	s.eng.interrupt = &interrupted;
	if (!a.quiet) {
		/* the header at once (perf prints it before the run too) */
		if (results_header_from_sim(&res, &s) < 0) {
			results_free(&res);
			fs_fail(&err, FS_ERR_RUNTIME, "out of memory printing the header");
			status = FS_ERR_RUNTIME;
			goto out;
		}
		results_print_header(&res, stdout);
		results_free(&res);
		fflush(stdout);
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if ((a.progress || (!a.quiet && isatty(STDERR_FILENO)))
		    ? run_with_progress(&s, isatty(STDERR_FILENO), &err) < 0
		    : sim_run(&s, &err) < 0) {
		status = err.status ? err.status : FS_ERR_RUNTIME;
		goto out;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (results_from_sim(&res, &s, sc.hottest_lines, seconds_between(&t0, &t1)) < 0) {
		results_free(&res);
		fs_fail(&err, FS_ERR_RUNTIME, "out of memory gathering results");
		status = FS_ERR_RUNTIME;
		goto out;
	}
	/* the file and the band runs need none of the run's model state */
	sim_release_models(&s);
	if (a.band && !s.interrupted) {
		int band = run_band(&a, plan, &res, &err);

		if (band < 0) {
			results_free(&res);
			status = err.status ? err.status : FS_ERR_RUNTIME;
			goto out;
		}
		if (band > 0) {
			fprintf(stderr, "futexsim: interrupted during the band runs: the results have no band\n");
			band_stopped = true;
		}
	}
	/* the file first: the summary is printed even when writing it failed */
	if (writing && h5out_finish(&out, &sc, &res, &write_err) < 0)
		writing = 0;
	if (!a.quiet)
		results_print_figures(&res, a.per_thread || sc.per_thread, stdout);
	if (fflush(stdout) != 0) {
		fs_fail(&err, FS_ERR_OUTPUT, "cannot write the summary to standard output");
		status = FS_ERR_OUTPUT;
	}
	/* the wall-clock line on stderr: stdout is the same for the same scenario and seed */
	if (!a.quiet)
		results_print_speed(&res, stderr);
	results_free(&res);
	if (write_err.status) {
		err = write_err;
		status = FS_ERR_OUTPUT;
	} else if (writing && !a.quiet) {
		fprintf(stderr, "futexsim: results in %s%s\n", out.published, s.interrupted ? " (marked incomplete)" : "");
	}
	if (!status && s.interrupted) {
		fprintf(stderr, "futexsim: interrupted at %.6g ms of %.6g ms simulated; the figures cover that time\n",
			(double)s.eng.now / 1e9, (double)s.end / 1e9);
		status = FS_ERR_INTERRUPTED;
	}
	if (!status && band_stopped)
		status = FS_ERR_INTERRUPTED;
out:
	if (status && status != FS_ERR_INTERRUPTED)
		fprintf(stderr, "futexsim: %s\n", err.msg);
	h5out_abort(&out);
	sim_free(&s);
	scenario_free(&sc);
	free(plan);
	return status;
}

#define MAX_SHOW_FIGURES 256

/* show --csv and --json over `paths`: every file read and printed in turn; one
 * that cannot be read is reported on stderr and left out (exit status of the
 * first such failure). CSV reads every file twice: first for the names of the
 * workload figures, the columns, then for the rows. */
static int show_table(char **paths, size_t n, uint32_t top, bool json)
{
	char *figs[MAX_SHOW_FIGURES];
	size_t nfigs = 0, shown = 0;
	int status = FS_OK;

	for (size_t pass = json ? 1 : 0; pass < 2; pass++) {
		for (size_t i = 0; i < n; i++) {
			struct fs_error err = { 0 };
			struct h5read_info info;
			struct results r;

			if (h5read_results(paths[i], top, &r, &info, &err) < 0) {
				if (pass == 1) {
					fprintf(stderr, "futexsim: %s\n", err.msg);
					if (!status)
						status = err.status ? err.status : FS_ERR_INPUT;
				}
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
	return status;
}

static int cmd_show(int argc, char **argv)
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
	size_t n[2] = { 0, 0 }, nread[2] = { 0, 0 };
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

			if (h5read_results(files[g][nread[g]], 0, &res[g][nread[g]], &info, &err) < 0) {
				results_free(&res[g][nread[g]]);
				fprintf(stderr, "futexsim: %s\n", err.msg);
				status = err.status ? err.status : FS_ERR_INPUT;
				goto out;
			}
		}
	}
	if (compare_groups(res[0], n[0], res[1], n[1], &cmp) < 0) {
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
		for (size_t i = 0; i < nread[g]; i++)
			results_free(&res[g][i]);
		for (size_t i = 0; i < n[g]; i++)
			free(files[g][i]);
		free(files[g]);
		free(res[g]);
	}
	return status;
}

static int cmd_explain(int argc, char **argv)
{
	struct fs_error err = { 0 };
	struct h5read_info info;
	struct results r;
	int status = FS_OK;

	if (argc == 3 && (!strcmp(argv[2], "-h") || !strcmp(argv[2], "--help"))) {
		fputs(usage_explain, stdout);
		return FS_OK;
	}
	if (argc != 3 || argv[2][0] == '-') {
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

static int cmd_c2c(int argc, char **argv)
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

static int cmd_compare(int argc, char **argv)
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

static int cmp_preset(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The presets of KIND/ in every directory of the search path (the first of a name
 * wins, as in scenario_load), sorted, each with its description: key. */
static int list_presets(const char *kind_dir, const char *const *extra)
{
	struct config_path cp;
	char *names[1024];
	const char *dirs[1024];
	size_t n = 0;
	int status = FS_OK;

	scenario_config_path(&cp, extra);
	for (size_t d = 0; d < cp.n; d++) {
		char dir[4096];
		struct dirent *ent;
		DIR *dh;

		snprintf(dir, sizeof(dir), "%s/%s", cp.dirs[d], kind_dir);
		if (!(dh = opendir(dir)))
			continue;
		while ((ent = readdir(dh)) && n < 1024) {
			size_t len = strlen(ent->d_name), seen = 0;

			if (len <= 5 || strcmp(ent->d_name + len - 5, ".yaml"))
				continue;
			for (size_t i = 0; i < n; i++)
				seen |= strlen(names[i]) == len - 5 && !strncmp(names[i], ent->d_name, len - 5);
			if (!seen && (names[n] = strndup(ent->d_name, len - 5)))
				dirs[n++] = cp.dirs[d];
		}
		closedir(dh);
	}
	/* sort the names, carrying their directories along */
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && cmp_preset(&names[j - 1], &names[j]) > 0; j--) {
			char *t = names[j];
			const char *td = dirs[j];

			names[j] = names[j - 1], dirs[j] = dirs[j - 1];
			names[j - 1] = t, dirs[j - 1] = td;
		}
	for (size_t i = 0; i < n; i++) {
		char path[4096];
		struct fs_error err = { 0 };
		struct yt_doc *doc = yt_doc_new();
		const struct yt_node *tree, *desc = NULL;

		snprintf(path, sizeof(path), "%s/%s/%s.yaml", dirs[i], kind_dir, names[i]);
		tree = doc ? yt_load_file(doc, path, &err) : NULL;
		if (tree && tree->kind == YT_MAP)
			desc = yt_get(tree, "description");
		if (!tree) {
			fprintf(stderr, "futexsim: %s\n", doc ? err.msg : "out of memory");
			status = FS_ERR_INPUT;
		}
		printf("%-24s %s\n", names[i],
		       desc && desc->kind == YT_SCALAR && *desc->scalar ? desc->scalar
		       : tree						 ? "(no description: a part other presets inherit)"
									 : "(unreadable)");
		yt_doc_free(doc);
		free(names[i]);
	}
	if (!n)
		fprintf(stderr, "futexsim list: no %s presets found (futexsim --help: where presets are found)\n",
			kind_dir);
	return status;
}

static int cmd_list(int argc, char **argv)
{
	const char *what = NULL, *extra[MAX_CONFIG_DIRS + 1] = { NULL };
	size_t nextra = 0;

	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			fputs(usage_list, stdout);
			return FS_OK;
		} else if (cli_is_option(argv[i], "--config-dir")) {
			if (add_config_dir("list", argc, argv, &i, extra, &nextra) < 0)
				return FS_ERR_USAGE;
		} else if (argv[i][0] == '-' || what) {
			fprintf(stderr, "futexsim list: %s '%s' (see futexsim list --help)\n",
				what ? "one list at a time, not also" : "unknown option", argv[i]);
			return FS_ERR_USAGE;
		} else {
			what = argv[i];
		}
	}
	if (!what) {
		fputs(usage_list, stderr);
		return FS_ERR_USAGE;
	}
	if (!strcmp(what, "machines") || !strcmp(what, "kernels")) {
		int status = list_presets(what, extra);

		if (fflush(stdout) != 0)
			return FS_ERR_OUTPUT;
		return status;
	}
	if (!strcmp(what, "workloads")) {
		const char *names[WORKLOAD_MAX_TYPES + 1];

		workload_names(names);
		for (size_t i = 0; names[i]; i++)
			printf("%-24s %s\n", workload_at(i)->name, workload_at(i)->description);
	} else if (!strcmp(what, "hashes")) {
		const char *names[HASHFN_MAX + 1];

		hashfn_names(names);
		for (size_t i = 0; names[i]; i++)
			printf("%-24s %s\n", hashfn_at(i)->name, hashfn_at(i)->description);
	} else if (!strcmp(what, "refcounts")) {
		const char *names[REFCOUNT_MAX_MODES + 1];

		refcount_mode_names(names);
		for (size_t i = 0; names[i]; i++)
			printf("%-24s %s\n", refcount_mode_at(i)->name, refcount_mode_at(i)->description);
	} else if (!strcmp(what, "spinlocks")) {
		for (const struct spin_variant *v = spin_variants; v->name; v++)
			printf("%-24s %s\n", v->name, v->description);
	} else {
		fprintf(stderr,
			"futexsim list: unknown list '%s' (machines, kernels, workloads, hashes, refcounts or spinlocks)\n",
			what);
		return FS_ERR_USAGE;
	}
	if (fflush(stdout) != 0) {
		fprintf(stderr, "futexsim: cannot write to standard output\n");
		return FS_ERR_OUTPUT;
	}
	return FS_OK;
}

static int cmd_probe(int argc, char **argv)
{
	struct fs_error err = { 0 };
	int status;

	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			fputs(usage_probe, stdout);
			return FS_OK;
		}
	}
	status = probe_command(argc, argv, &err);
	if (status)
		fprintf(stderr, "%s%s\n", strncmp(err.msg, "futexsim", 8) ? "futexsim probe: " : "", err.msg);
	return status;
}

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
				    : !strcmp(argv[2], "list")  ? usage_list
				    : !strcmp(argv[2], "bench") ? perfbench_usage
				    : !strcmp(argv[2], "fit")   ? fit_usage
								: NULL;

		if (!usage || argc > 3) {
			if (!usage)
				fprintf(stderr, "futexsim help: unknown command '%s' (commands: run, show, compare, explain, c2c, list, probe, bench, fit)\n", argv[2]);
			else
				fprintf(stderr, "futexsim help: one command at a time\n");
			return FS_ERR_USAGE;
		}
		fputs(usage, stdout);
		return FS_OK;
	}
	if (!strcmp(cmd, "run"))
		return cmd_run(argc, argv);
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
