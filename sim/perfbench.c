/* SPDX-License-Identifier: MIT */
#include "sim/perfbench.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sim/core/error.h"
#include "sim/results.h"
#include "sim/scenario.h"
#include "sim/sim.h"

/* The machine and kernel of scenarios/quickstart.yaml, and its seed. */
#define DEFAULT_MACHINE "small-1node"
#define DEFAULT_KERNEL "linux-6.18"
#define DEFAULT_SEED "1"
/* -r's default, in simulated seconds (perf's is 10 real seconds). */
#define DEFAULT_RUNTIME 0.01
#define MAX_RUNTIME 3600.0
#define MAX_BENCH_SETS 16

const char perfbench_usage[] =
	"usage: futexsim bench futex hash [-t N] [-f N] [-b N] [-S] [-s] [-r SECS] [-m] [-v]\n"
	"                                 [--machine NAME] [--kernel NAME] [--scenario FILE]\n"
	"                                 [--cpus LIST]\n"
	"\n"
	"perf bench futex hash, simulated: the same options and the same output, line for\n"
	"line (perf 6.16+): '# Running 'futex/hash' benchmark:', 'Run summary [PID 0]: ...',\n"
	"a per-thread line each (unless -s), 'Averaged N operations/sec (+- X%), total\n"
	"secs = S' and 'Futex hashing: ...' (global hash, N hash buckets, or auto resized to\n"
	"N buckets). Differences from perf: the PID is the simulated process's, 0; times\n"
	"are simulated seconds, printed as whole seconds as perf prints them (0 for the\n"
	"default 0.01 s: -v prints the exact times); standard output is the same, byte for\n"
	"byte, for the same options. No result file is written (futexsim run writes one).\n"
	"Only the futex hash benchmark is simulated.\n"
	"\n"
	"perf's options:\n"
	"  -t, --threads N    threads, each pinned to a CPU in turn (default: every CPU of\n"
	"                     the machine, or of --cpus)\n"
	"  -f, --futexes N    futexes per thread (default 1024)\n"
	"  -b, --buckets N    the private hash's buckets (kernel.private_hash.buckets=N);\n"
	"                     0: the global hash; -1 or absent: the kernel's own sizing\n"
	"  -S, --shared       shared futexes instead of private ones\n"
	"  -s, --silent       no per-thread lines\n"
	"  -r, --runtime SECS simulated seconds measured (default 0.01; perf's -r is whole\n"
	"                     real seconds, default 10); a warm-up of a tenth of it, at\n"
	"                     most 1 ms, comes first\n"
	"  -m, --mlockall     accepted; no effect (the simulated memory never pages)\n"
	"futexsim's options:\n"
	"  -v, --verbose      then futexsim's own figures (simulated times, total ops, line\n"
	"                     transfers, DRAM fills, hottest lines); the speed on stderr\n"
	"  --machine NAME     machine preset or file (default " DEFAULT_MACHINE ", quickstart's)\n"
	"  --kernel NAME      kernel preset or file (default " DEFAULT_KERNEL ", quickstart's)\n"
	"  --scenario FILE    take the machine, kernel, seed and other keys from FILE (its\n"
	"                     workload is replaced by the options above)\n"
	"  --cpus LIST        the CPUs the threads run on (workload.cpus: all, node0,\n"
	"                     0-13, ...), e.g. a node-bound run\n"
	"  -h, --help         show this help\n"
	"\n"
	"Not simulated: -I/--immutable (perf 6.16's immutable private hash; run a scenario\n"
	"with kernel.private_hash.refcount: none instead).\n"
	"Exit status: 0 success, 1 run failed, 2 bad option, 3 bad scenario, machine or\n"
	"kernel, 5 refused (resource limit), 130 interrupted.\n"
	"Example: futexsim bench futex hash -t 8 -b 16 -s\n";

/* perf's usage_with_options() after a bad option, on stderr. */
static const char perf_usage[] =
	"\n"
	" Usage: futexsim bench futex hash <options>\n"
	"\n"
	"    -r, --runtime <n>     Specify runtime (in simulated seconds, default 0.01)\n"
	"    -t, --threads <n>     Specify amount of threads\n"
	"    -f, --futexes <n>     Specify amount of futexes per threads\n"
	"    -b, --buckets <n>     Specify amount of hash buckets\n"
	"    -s, --silent          Silent mode: do not display data.\n"
	"    -S, --shared          Use shared futexes instead of private ones\n"
	"    -m, --mlockall        Lock all current and future memory (no effect)\n"
	"    -v, --verbose         Print futexsim's own figures too\n"
	"        --machine <name>  Machine preset or file\n"
	"        --kernel <name>   Kernel preset or file\n"
	"        --scenario <file> Base scenario\n"
	"        --cpus <list>     CPUs the threads run on\n"
	"\n";

struct bench_opts {
	unsigned threads;     /* 0: every CPU */
	unsigned futexes;
	long buckets;         /* -1: the kernel's */
	bool buckets_given, shared, silent, verbose;
	double runtime;
	const char *machine, *kernel, *scenario, *cpus;
};

enum opt_id { O_RUNTIME, O_THREADS, O_FUTEXES, O_BUCKETS, O_SILENT, O_SHARED, O_MLOCK, O_VERBOSE,
	      O_MACHINE, O_KERNEL, O_SCENARIO, O_CPUS, O_HELP, O_IMMUTABLE };

static const struct bench_option {
	char short_name;
	const char *long_name;
	bool takes_value;
	enum opt_id id;
} options[] = {
	{ 'r', "runtime", true, O_RUNTIME },   { 't', "threads", true, O_THREADS },
	{ 'f', "futexes", true, O_FUTEXES },   { 'b', "buckets", true, O_BUCKETS },
	{ 's', "silent", false, O_SILENT },    { 'S', "shared", false, O_SHARED },
	{ 'm', "mlockall", false, O_MLOCK },   { 'v', "verbose", false, O_VERBOSE },
	{ 0, "machine", true, O_MACHINE },     { 0, "kernel", true, O_KERNEL },
	{ 0, "scenario", true, O_SCENARIO },   { 0, "cpus", true, O_CPUS },
	{ 'h', "help", false, O_HELP },        { 'I', "immutable", false, O_IMMUTABLE },
};
#define NOPTIONS (sizeof(options) / sizeof(options[0]))

static int bad_option(const char *fmt, const char *what)
{
	fputs(" Error: ", stderr);
	fprintf(stderr, fmt, what);
	fputc('\n', stderr);
	fputs(perf_usage, stderr);
	return FS_ERR_USAGE;
}

static int parse_uint(const char *v, unsigned long max, unsigned long *out)
{
	char *end;
	unsigned long n;

	if (!v || !*v || *v == '-' || *v == '+')
		return -1;
	errno = 0;
	n = strtoul(v, &end, 10);
	if (errno || *end || n > max)
		return -1;
	*out = n;
	return 0;
}

/* One option with its value (NULL for a flag); 1 when --help was asked. */
static int apply_option(struct bench_opts *o, const struct bench_option *opt, const char *v)
{
	char name[64];
	unsigned long n;

	if (opt->short_name)
		snprintf(name, sizeof(name), "-%c/--%s", opt->short_name, opt->long_name);
	else
		snprintf(name, sizeof(name), "--%s", opt->long_name);
	switch (opt->id) {
	case O_RUNTIME: {
		char *end;

		errno = 0;
		o->runtime = v && *v ? strtod(v, &end) : 0;
		if (!v || !*v || errno || *end || !(o->runtime >= 1e-6) || o->runtime > MAX_RUNTIME)
			return bad_option("%s needs simulated seconds from 0.000001 to 3600", name);
		break;
	}
	case O_THREADS:
		if (parse_uint(v, 1u << 16, &n) < 0)
			return bad_option("%s needs a number of threads (0: every CPU)", name);
		o->threads = (unsigned)n;
		break;
	case O_FUTEXES:
		if (parse_uint(v, 1u << 20, &n) < 0 || !n)
			return bad_option("%s needs a number of futexes from 1 to 1048576", name);
		o->futexes = (unsigned)n;
		break;
	case O_BUCKETS:
		if (v && !strcmp(v, "-1")) {
			o->buckets = -1;
			o->buckets_given = false;
		} else if (parse_uint(v, 1ul << 30, &n) < 0) {
			return bad_option("%s needs a number of buckets (0: the global hash, -1: the kernel's)", name);
		} else {
			o->buckets = (long)n;
			o->buckets_given = true;
		}
		break;
	case O_SILENT:
		o->silent = true;
		break;
	case O_SHARED:
		o->shared = true;
		break;
	case O_MLOCK:
		break; /* nothing of the simulated memory pages */
	case O_VERBOSE:
		o->verbose = true;
		break;
	case O_MACHINE:
	case O_KERNEL:
	case O_SCENARIO:
	case O_CPUS:
		if (!v || !*v)
			return bad_option("%s needs a value", name);
		*(opt->id == O_MACHINE	  ? &o->machine
		  : opt->id == O_KERNEL	  ? &o->kernel
		  : opt->id == O_SCENARIO ? &o->scenario
					  : &o->cpus) = v;
		break;
	case O_HELP:
		return 1;
	case O_IMMUTABLE:
		return bad_option("%s is not simulated: perf 6.16's immutable private hash is a kernel "
				  "setting here (kernel.private_hash.refcount: none, with --scenario)",
				  name);
	}
	return 0;
}

/* perf's parse_options() conventions: -t 2, -t2, -sS, --threads 2, --threads=2.
 * Returns 0, 1 for --help, or the exit status of a bad option (printed). */
static int parse_options(int argc, char **argv, int first, struct bench_opts *o)
{
	for (int i = first; i < argc; i++) {
		const char *arg = argv[i];
		int rc;

		if (arg[0] != '-' || !arg[1])
			return bad_option("unexpected argument `%s'", arg);
		if (arg[1] == '-') {
			const char *name = arg + 2, *eq = strchr(name, '=');
			size_t len = eq ? (size_t)(eq - name) : strlen(name);
			const struct bench_option *opt = NULL;

			for (size_t k = 0; k < NOPTIONS; k++)
				if (strlen(options[k].long_name) == len && !strncmp(options[k].long_name, name, len))
					opt = &options[k];
			if (!opt)
				return bad_option("unknown option `%s'", name);
			if (!opt->takes_value && eq)
				return bad_option("option `%s' takes no value", opt->long_name);
			rc = apply_option(o, opt, opt->takes_value ? (eq ? eq + 1 : i + 1 < argc ? argv[++i] : NULL)
								   : NULL);
			if (rc)
				return rc;
			continue;
		}
		for (const char *c = arg + 1; *c; c++) {
			const struct bench_option *opt = NULL;
			char sw[2] = { *c, 0 };

			for (size_t k = 0; k < NOPTIONS; k++)
				if (options[k].short_name == *c)
					opt = &options[k];
			if (!opt)
				return bad_option("unknown switch `%s'", sw);
			if (opt->takes_value) {
				rc = apply_option(o, opt, c[1] ? c + 1 : i + 1 < argc ? argv[++i] : NULL);
				if (rc)
					return rc;
				break;
			}
			if ((rc = apply_option(o, opt, NULL)))
				return rc;
		}
	}
	return 0;
}

struct bench_sets {
	const char *v[MAX_BENCH_SETS];
	char buf[MAX_BENCH_SETS][4200];
	size_t n;
};

static void add_set(struct bench_sets *b, const char *key, const char *value)
{
	snprintf(b->buf[b->n], sizeof(b->buf[b->n]), "%s=%s", key, value);
	b->v[b->n] = b->buf[b->n];
	b->n++;
}

/* The "Futex hashing:" line of futex_print_nbuckets() (tools/perf/bench/futex.c, 6.16+). */
static void print_hashing(const struct bench_opts *o, const struct sim *s, FILE *out)
{
	const struct futex_table *ph = s->ft.nprocs ? s->ft.procs[0].phash : NULL;

	if (o->buckets_given && o->buckets == 0)
		fputs("Futex hashing: global hash\n", out);
	else if (o->buckets_given)
		fprintf(out, "Futex hashing: %u hash buckets\n", ph ? ph->size : 0);
	else if (!ph)
		fputs("Futex hashing: global hash\n", out);
	else
		fprintf(out, "Futex hashing: auto resized to %u buckets\n", ph->size);
}

int perfbench_command(int argc, char **argv, volatile sig_atomic_t *interrupt)
{
	struct bench_opts o = { .futexes = 1024, .buckets = -1, .runtime = DEFAULT_RUNTIME };
	struct bench_sets *b;
	struct fs_error err = { 0 };
	struct scenario sc;
	struct results res;
	struct sim s;
	struct timespec t0, t1;
	char num[64], dur[64];
	double warmup;
	int rc, status = FS_OK;

	if (argc < 3 || !strcmp(argv[2], "-h") || !strcmp(argv[2], "--help")) {
		fputs(perfbench_usage, argc < 3 ? stderr : stdout);
		return argc < 3 ? FS_ERR_USAGE : FS_OK;
	}
	if (strcmp(argv[2], "futex") || argc < 4 || strcmp(argv[3], "hash")) {
		bool futex = !strcmp(argv[2], "futex");

		if (futex && argc >= 4 && (!strcmp(argv[3], "-h") || !strcmp(argv[3], "--help"))) {
			fputs(perfbench_usage, stdout);
			return FS_OK;
		}
		fprintf(stderr, "futexsim bench: %s%s%s is not simulated: only 'futex hash' is (see futexsim bench --help)\n",
			futex ? "futex " : "", futex ? (argc >= 4 ? argv[3] : "(no benchmark)") : argv[2],
			futex ? "" : " (a perf bench suite)");
		return FS_ERR_USAGE;
	}
	rc = parse_options(argc, argv, 4, &o);
	if (rc == 1) {
		fputs(perfbench_usage, stdout);
		return FS_OK;
	}
	if (rc)
		return rc;
	if (!(b = calloc(1, sizeof(*b)))) {
		fprintf(stderr, "futexsim: out of memory\n");
		return FS_ERR_RUNTIME;
	}
	/* the scenario: --scenario's keys, or the defaults, with a fresh workload */
	if (!o.scenario) {
		add_set(b, "name", "perf-bench-futex-hash");
		add_set(b, "machine", DEFAULT_MACHINE);
		add_set(b, "kernel", DEFAULT_KERNEL);
		add_set(b, "run.seed", DEFAULT_SEED);
	}
	if (o.machine)
		add_set(b, "machine", o.machine);
	if (o.kernel)
		add_set(b, "kernel", o.kernel);
	add_set(b, "workload", "{type: hash-bench}");
	snprintf(num, sizeof(num), "%u", o.futexes);
	add_set(b, "workload.futexes", num);
	add_set(b, "workload.shared", o.shared ? "true" : "false");
	if (o.cpus)
		add_set(b, "workload.cpus", o.cpus);
	if (o.threads) {
		snprintf(num, sizeof(num), "%u", o.threads);
		add_set(b, "workload.threads", num);
	}
	if (o.buckets_given) {
		snprintf(num, sizeof(num), "%ld", o.buckets);
		add_set(b, "kernel.private_hash.buckets", num);
	}
	snprintf(dur, sizeof(dur), "%.0fns", o.runtime * 1e9);
	add_set(b, "run.duration", dur);
	warmup = o.runtime / 10 < 0.001 ? o.runtime / 10 : 0.001;
	snprintf(num, sizeof(num), "%.0fns", warmup * 1e9);
	add_set(b, "run.warmup", num);
	add_set(b, "output.per_thread", o.silent ? "false" : "true");

	memset(&s, 0, sizeof(s));
	if (scenario_load(&sc, o.scenario ? o.scenario : "/dev/null", b->v, b->n, &err) < 0) {
		fprintf(stderr, "futexsim bench futex hash: %s\n", err.msg);
		scenario_free(&sc);
		free(b);
		return err.status ? err.status : FS_ERR_INPUT;
	}
	if (o.buckets_given && o.buckets > 0 && !sc.kernel.private_hash.enabled) {
		/* perf: prctl(PR_FUTEX_HASH) fails on a kernel without it */
		fprintf(stderr, "futexsim bench futex hash: -b %ld: kernel %s has no private futex hash (6.16+); "
				"-b 0 or another --kernel\n",
			o.buckets, sc.kernel.name);
		scenario_free(&sc);
		free(b);
		return FS_ERR_USAGE;
	}
	if (sim_build(&s, &sc, &err) < 0) {
		status = err.status ? err.status : FS_ERR_RUNTIME;
		fprintf(stderr, "futexsim bench futex hash: %s\n", err.msg);
		goto out;
	}
	s.eng.interrupt = interrupt;
	/* perf's header, before the run as perf prints it */
	printf("# Running 'futex/hash' benchmark:\n");
	printf("Run summary [PID 0]: %u threads, each operating on %u [%s] futexes for %d secs.\n\n", s.nthreads,
	       o.futexes, o.shared ? "shared" : "private", (int)o.runtime);
	fflush(stdout);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (sim_run(&s, &err) < 0) {
		status = err.status ? err.status : FS_ERR_RUNTIME;
		fprintf(stderr, "futexsim bench futex hash: %s\n", err.msg);
		goto out;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (results_from_sim(&res, &s, sc.hottest_lines,
			     (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9) < 0) {
		results_free(&res);
		fprintf(stderr, "futexsim bench futex hash: out of memory gathering results\n");
		status = FS_ERR_RUNTIME;
		goto out;
	}
	results_print_perf(&res, o.silent, stdout);
	print_hashing(&o, &s, stdout);
	if (o.verbose) {
		fputc('\n', stdout);
		results_print_own_figures(&res, stdout);
		fflush(stdout);
		results_print_speed(&res, stderr);
	}
	results_free(&res);
	if (fflush(stdout) != 0) {
		fprintf(stderr, "futexsim: cannot write to standard output\n");
		status = FS_ERR_OUTPUT;
	} else if (s.interrupted) {
		fprintf(stderr, "futexsim: interrupted at %.6g ms of %.6g ms simulated; the figures cover that time\n",
			(double)s.eng.now / 1e9, (double)s.end / 1e9);
		status = FS_ERR_INTERRUPTED;
	}
out:
	sim_free(&s);
	scenario_free(&sc);
	free(b);
	return status;
}
