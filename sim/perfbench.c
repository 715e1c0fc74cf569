/* SPDX-License-Identifier: MIT */
#include "sim/perfbench.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sim/cmd/cmd.h"
#include "sim/core/error.h"
#include "sim/h5out.h"
#include "sim/results.h"
#include "sim/scenario.h"
#include "sim/sim.h"
#include "sim/views/text.h"

/* The machine and kernel of scenarios/quickstart.yaml, and its seed. */
#define DEFAULT_MACHINE "small-1node"
#define DEFAULT_KERNEL "linux-6.18"
#define DEFAULT_SEED "1"
/* -r's default, in simulated seconds (perf's is 10 real seconds). */
#define DEFAULT_RUNTIME 0.01
#define MAX_RUNTIME 3600.0
#define MAX_REPEAT 100000u
/* The repeated-run suites end when their runs are done; the simulated time allowed. */
#define SUITE_TIME_LIMIT "10s"

const char perfbench_usage[] =
	"usage: futexsim bench [-r N] futex SUITE [OPTIONS] [-v] [--machine NAME] [--kernel NAME]\n"
	"                      [--scenario FILE] [--cpus LIST] [-o FILE.h5] [--quiet] [--progress]\n"
	"                      [--print-scenario]\n"
	"\n"
	"perf bench futex, simulated: perf's suites, options and output, line for line.\n"
	"SUITE: hash, wake, wake-parallel, requeue or lock-pi. Differences from perf: the PID is the simulated\n"
	"process's, 0, and addresses are simulated ones; times are simulated, printed\n"
	"with perf's resolution (hash: whole seconds, 0 for the default 0.01 s; the other\n"
	"wake suites: whole microseconds, as perf's tv_usec), -v prints the exact figures;\n"
	"standard output is the same, byte for byte, for the same options. No result file\n"
	"is written unless -o names one (the suites are workload.type hash-bench, wake,\n"
	"wake-parallel, requeue and lock-pi: --print-scenario prints the scenario for\n"
	"futexsim run).\n"
	"\n"
	"perf bench's option:\n"
	"  -r, --repeat N     wake, wake-parallel, requeue: runs (default 10)\n"
	"Every suite's options (perf's):\n"
	"  -t, --threads N    threads, thread i pinned to CPU i mod N (default: every CPU\n"
	"                     of the machine, or of --cpus)\n"
	"  -b, --buckets N    the private hash's buckets (kernel.private_hash.buckets=N);\n"
	"                     0: the global hash; -1 or absent: the kernel's own sizing\n"
	"  -S, --shared       shared futexes instead of private ones\n"
	"  -s, --silent       no per-thread (hash) or per-run lines\n"
	"  -m, --mlockall     accepted; no effect (the simulated memory never pages)\n"
	"hash and lock-pi:\n"
	"  -r, --runtime SECS simulated seconds measured (default 0.01; perf's -r is whole\n"
	"                     real seconds, default 10); a warm-up of a tenth of it, at\n"
	"                     most 1 ms, comes first\n"
	"hash:          -f, --futexes N  futexes per thread (default 1024)\n"
	"lock-pi:       -M, --multi      a futex per thread instead of one for all\n"
	"wake:          -w, --nwakes N   threads woken per FUTEX_WAKE (default 1)\n"
	"wake-parallel: -w, --nwakers N  waker threads, each waking threads/N (default: the\n"
	"                                threads, each waking 1, as perf's)\n"
	"requeue:       -q, --nrequeue N threads requeued per FUTEX_CMP_REQUEUE (default 1)\n"
	"               -B, --broadcast  requeue them all at once\n"
	"               -p, --pi         FUTEX_WAIT_REQUEUE_PI and FUTEX_CMP_REQUEUE_PI\n"
	"futexsim's options:\n"
	"  -v, --verbose      then futexsim's own figures; the speed on stderr\n"
	"  --machine NAME     machine preset or file (default " DEFAULT_MACHINE ", quickstart's)\n"
	"  --kernel NAME      kernel preset or file (default " DEFAULT_KERNEL ", quickstart's)\n"
	"  --scenario FILE    take the machine, kernel, seed and other keys from FILE (its\n"
	"                     workload is replaced by the options above)\n"
	"  --cpus LIST        the CPUs the threads run on (workload.cpus: all, node0,\n"
	"                     0-13, ...), e.g. a node-bound run\n"
	"  --node N           the CPUs of node N only (--cpus nodeN), as perf's node-bound\n"
	"                     runs restrict the online CPUs\n"
	"  -o FILE.h5, --output FILE.h5\n"
	"                     write the result file as futexsim run -o writes it (every\n"
	"                     figure, the time series, the provenance: futexsim show,\n"
	"                     explain and c2c read it), with run's protections: a new name\n"
	"                     or a regular file it replaces, never a device, FIFO,\n"
	"                     directory or a file the run reads, a symbolic link only with\n"
	"                     --force; - for none. Standard output stays perf's lines\n"
	"  --force            let -o replace a symbolic link\n"
	"  --quiet            print errors only, as futexsim run --quiet: nothing on stdout,\n"
	"                     no progress or note on stderr; not with --progress or -v\n"
	"                     (no -q: requeue's -q is perf's)\n"
	"  --progress         print the progress on stderr even when it is not a terminal,\n"
	"                     as futexsim run --progress (on a terminal it is shown by\n"
	"                     default); it changes no result\n"
	"  --print-scenario   build the scenario the options stand for, print it as resolved\n"
	"                     (as futexsim run --print-scenario: YAML that futexsim run\n"
	"                     takes), run nothing\n"
	"  -h, --help         show this help\n"
	"\n"
	"Not simulated: -I/--immutable (perf 6.16's immutable private hash; run a scenario\n"
	"with kernel.private_hash.refcount: none instead).\n"
	"Exit status: 0 success, 1 run failed, 2 bad option, 3 bad scenario, machine or\n"
	"kernel, 4 the result file cannot be written, 5 refused (resource limit), 130\n"
	"interrupted. Abbreviated long options mean what they mean to perf: futexsim's own\n"
	"options abbreviate only where none of perf's matches.\n"
	"\n"
	"Examples:\n"
	"  $ futexsim bench futex hash -t 8 -b 16 -s\n"
	"  $ futexsim bench -r 5 futex wake -t 16 -w 4\n"
	"  $ futexsim bench futex lock-pi -t 4 -r 0.05\n"
	"  $ futexsim bench futex hash -t 4 -o hash.h5 && futexsim c2c hash.h5 -n 5\n"
	"  $ futexsim bench futex hash -b 16 --print-scenario > hash.yaml && futexsim run hash.yaml\n";

enum suite { S_HASH, S_WAKE, S_WAKE_PARALLEL, S_REQUEUE, S_LOCK_PI, S_NSUITES };
static const char *const suite_names[S_NSUITES] = { "hash", "wake", "wake-parallel", "requeue", "lock-pi" };
#define ALL_SUITES ((1u << S_NSUITES) - 1)
#define SUITE(x) (1u << (x))

struct bench_opts {
	enum suite suite;
	unsigned threads;     /* 0: every CPU */
	unsigned futexes;
	unsigned nwake;       /* wake -w, wake-parallel -w, requeue -q; 0: the suite's default */
	unsigned repeat;      /* perf bench -r: runs of the wake suites */
	long buckets;         /* -1: the kernel's */
	bool buckets_given, shared, silent, verbose, broadcast, multi, pi;
	bool force, quiet, progress, print_scenario; /* as futexsim run's */
	double runtime;
	const char *machine, *kernel, *scenario, *cpus;
	const char *output;   /* -o FILE.h5: the result file, as futexsim run -o writes it; NULL: none */
	char node_cpus[16];   /* --node N as a CPU list: nodeN */
	char error[256];      /* a bad option's message */
	const char *own_option; /* the last of futexsim's own options given (not perf's), or NULL */
	bool as_long;           /* the option being applied was given by its long name */
};

#define PERF_USAGE_STATUS 129 /* perf's usage_with_options() after -h */

enum opt_id { O_RUNTIME, O_THREADS, O_FUTEXES, O_BUCKETS, O_SILENT, O_SHARED, O_MLOCK, O_VERBOSE,
	      O_MACHINE, O_KERNEL, O_SCENARIO, O_CPUS, O_HELP, O_IMMUTABLE, O_NWAKES, O_NWAKERS, O_NREQUEUE,
	      O_BROADCAST, O_PI, O_NODE, O_MULTI, O_OUTPUT, O_FORCE, O_QUIET, O_PROGRESS, O_PRINT_SCENARIO };

static const struct bench_option {
	char short_name;
	const char *long_name;
	bool takes_value;
	enum opt_id id;
	unsigned suites;      /* the suites that have it */
	const char *help;     /* perf's usage line text */
} options[] = {
	{ 'r', "runtime", true, O_RUNTIME, SUITE(S_HASH) | SUITE(S_LOCK_PI),
	  "Specify runtime (in simulated seconds, default 0.01)" },
	{ 'M', "multi", false, O_MULTI, SUITE(S_LOCK_PI), "Use multiple futexes" },
	{ 't', "threads", true, O_THREADS, ALL_SUITES, "Specify amount of threads" },
	{ 'f', "futexes", true, O_FUTEXES, SUITE(S_HASH), "Specify amount of futexes per threads" },
	{ 'w', "nwakes", true, O_NWAKES, SUITE(S_WAKE), "Specify amount of threads to wake at once" },
	{ 'w', "nwakers", true, O_NWAKERS, SUITE(S_WAKE_PARALLEL), "Specify amount of waking threads" },
	{ 'q', "nrequeue", true, O_NREQUEUE, SUITE(S_REQUEUE), "Specify amount of threads to requeue at once" },
	{ 'B', "broadcast", false, O_BROADCAST, SUITE(S_REQUEUE), "Requeue all threads at once" },
	{ 'p', "pi", false, O_PI, SUITE(S_REQUEUE), "Use PI-aware variants of FUTEX_CMP_REQUEUE" },
	{ 'b', "buckets", true, O_BUCKETS, ALL_SUITES, "Specify amount of hash buckets" },
	{ 's', "silent", false, O_SILENT, ALL_SUITES, "Silent mode: do not display data." },
	{ 'S', "shared", false, O_SHARED, ALL_SUITES, "Use shared futexes instead of private ones" },
	{ 'm', "mlockall", false, O_MLOCK, ALL_SUITES, "Lock all current and future memory (no effect)" },
	{ 'v', "verbose", false, O_VERBOSE, ALL_SUITES, "Print futexsim's own figures too" },
	{ 0, "machine", true, O_MACHINE, ALL_SUITES, "Machine preset or file" },
	{ 0, "kernel", true, O_KERNEL, ALL_SUITES, "Kernel preset or file" },
	{ 0, "scenario", true, O_SCENARIO, ALL_SUITES, "Base scenario" },
	{ 0, "cpus", true, O_CPUS, ALL_SUITES, "CPUs the threads run on" },
	{ 0, "node", true, O_NODE, ALL_SUITES, "Only the CPUs of this node (--cpus nodeN)" },
	{ 'o', "output", true, O_OUTPUT, ALL_SUITES, "Write the result file, as futexsim run -o" },
	{ 0, "force", false, O_FORCE, ALL_SUITES, "Let -o replace a symbolic link" },
	{ 0, "quiet", false, O_QUIET, ALL_SUITES, "Print errors only" },
	{ 0, "progress", false, O_PROGRESS, ALL_SUITES, "Print the progress on stderr" },
	{ 0, "print-scenario", false, O_PRINT_SCENARIO, ALL_SUITES, "Print the scenario as resolved, run nothing" },
	{ 'h', "help", false, O_HELP, ALL_SUITES, NULL },
	{ 'I', "immutable", false, O_IMMUTABLE, SUITE(S_HASH), NULL },
};
#define NOPTIONS (sizeof(options) / sizeof(options[0]))

/* perf's usage_with_options() after a bad option, on stderr: the suite's options. */
static void print_perf_usage(enum suite suite)
{
	fprintf(stderr, "\n Usage: futexsim bench futex %s <options>\n\n", suite_names[suite]);
	for (size_t k = 0; k < NOPTIONS; k++) {
		const struct bench_option *opt = &options[k];
		char lhs[64];

		if (!opt->help || !(opt->suites & SUITE(suite)))
			continue;
		if (opt->short_name)
			snprintf(lhs, sizeof(lhs), "-%c, --%s%s", opt->short_name, opt->long_name,
				 !opt->takes_value ? "" : opt->id == O_OUTPUT ? " <file>" : " <n>");
		else
			snprintf(lhs, sizeof(lhs), "    --%s%s", opt->long_name, opt->takes_value ? " <name>" : "");
		fprintf(stderr, "    %-22s%s\n", lhs, opt->help);
	}
	fputc('\n', stderr);
}

/* A bad option: its message kept for the caller (perf's " Error: " line and usage
 * on the command line, FILE:LINE:COL in a measurements file). */
static int bad_option(struct bench_opts *o, const char *fmt, const char *what)
{
	snprintf(o->error, sizeof(o->error), fmt, what);
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

/* futexsim's own options: not perf's, so not in a command line of a real run */
static bool futexsim_only(enum opt_id id)
{
	return id == O_VERBOSE || id == O_MACHINE || id == O_KERNEL || id == O_SCENARIO || id == O_CPUS ||
	       id == O_NODE || id == O_OUTPUT || id == O_FORCE || id == O_QUIET || id == O_PROGRESS ||
	       id == O_PRINT_SCENARIO;
}

/* The warm-up before -r SECS measured: a tenth of it, at most 1 ms. */
static double bench_warmup(double runtime)
{
	return runtime / 10 < 0.001 ? runtime / 10 : 0.001;
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
	if (futexsim_only(opt->id))
		o->own_option = opt->long_name;
	if (opt->takes_value && (!v || !*v))
		return !o->as_long ? bad_option(o, "switch `%s' requires a value", (char[2]){ opt->short_name, 0 })
				       : bad_option(o, "option `%s' requires a value", opt->long_name);
	if (opt->takes_value && !(opt->id == O_MACHINE || opt->id == O_KERNEL || opt->id == O_SCENARIO ||
				  opt->id == O_CPUS || opt->id == O_OUTPUT)) {
		char *end;

		errno = 0;
		(void)strtod(v, &end);
		if (*end || end == v) /* perf: "switch `t' expects a numerical value" */
			return !o->as_long
				       ? bad_option(o, "switch `%s' expects a numerical value", (char[2]){ opt->short_name, 0 })
				       : bad_option(o, "option `%s' expects a numerical value", opt->long_name);
	}
	switch (opt->id) {
	case O_RUNTIME: {
		/* decimal seconds only (strtod alone would take 0x10, 1e3 or inf) */
		size_t whole = v ? strspn(v, "0123456789") : 0;
		bool decimal = v && (whole || v[0] == '.') &&
			       (!v[whole] || (v[whole] == '.' && v[whole + 1] &&
					      strspn(v + whole + 1, "0123456789") == strlen(v + whole + 1)));

		o->runtime = decimal ? strtod(v, NULL) : 0;
		if (!decimal || !(o->runtime >= 1e-6) || o->runtime + bench_warmup(o->runtime) > MAX_RUNTIME) {
			snprintf(o->error, sizeof(o->error), "%s needs decimal simulated seconds from 0.000001 to 3599.999 "
				 "(with its warm-up, at most 3600 s), not '%.64s'", name, v ? v : "");
			return FS_ERR_USAGE;
		}
		break;
	}
	case O_THREADS:
		if (parse_uint(v, 1u << 16, &n) < 0)
			return bad_option(o, "%s needs a number of threads (0: every CPU)", name);
		o->threads = (unsigned)n;
		break;
	case O_FUTEXES:
		if (parse_uint(v, 1u << 20, &n) < 0 || !n)
			return bad_option(o, "%s needs a number of futexes from 1 to 1048576", name);
		o->futexes = (unsigned)n;
		break;
	case O_NWAKES:
	case O_NWAKERS:
	case O_NREQUEUE:
		if (parse_uint(v, 1u << 16, &n) < 0 || !n)
			return bad_option(o, "%s needs a number from 1 to 65536", name);
		o->nwake = (unsigned)n;
		break;
	case O_BROADCAST:
		o->broadcast = true;
		break;
	case O_MULTI:
		o->multi = true;
		break;
	case O_BUCKETS:
		if (v && !strcmp(v, "-1")) {
			o->buckets = -1;
			o->buckets_given = false;
		} else if (parse_uint(v, 1ul << 30, &n) < 0) {
			return bad_option(o, "%s needs a number of buckets (0: the global hash, -1: the kernel's)", name);
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
			return bad_option(o, "%s needs a value", name);
		*(opt->id == O_MACHINE	  ? &o->machine
		  : opt->id == O_KERNEL	  ? &o->kernel
		  : opt->id == O_SCENARIO ? &o->scenario
					  : &o->cpus) = v;
		break;
	case O_NODE:
		if (parse_uint(v, 255, &n) < 0)
			return bad_option(o, "%s needs a node number", name);
		snprintf(o->node_cpus, sizeof(o->node_cpus), "node%lu", n);
		o->cpus = o->node_cpus;
		break;
	case O_HELP:
		return 1;
	case O_IMMUTABLE:
		return bad_option(o, "%s is not simulated: perf 6.16's immutable private hash is a kernel "
				     "setting here (kernel.private_hash.refcount: none, with --scenario)",
				  name);
	case O_PI:
		o->pi = true;
		break;
	case O_OUTPUT: /* as futexsim run's -o: a file name, or - for none */
		if (!run_output_name_ok(v))
			return bad_option(o, "%s needs a file name (or - for none)", name);
		o->output = strcmp(v, "-") ? v : NULL;
		break;
	case O_FORCE:
		o->force = true;
		break;
	case O_QUIET:
		o->quiet = true;
		break;
	case O_PROGRESS:
		o->progress = true;
		break;
	case O_PRINT_SCENARIO:
		o->print_scenario = true;
		break;
	}
	return 0;
}

/* The suite's option of that long name, or short letter. */
static const struct bench_option *find_option(enum suite suite, const char *name, size_t len, char letter)
{
	for (size_t k = 0; k < NOPTIONS; k++) {
		const struct bench_option *opt = &options[k];

		if (!(opt->suites & SUITE(suite)))
			continue;
		if (name ? strlen(opt->long_name) == len && !strncmp(opt->long_name, name, len)
			 : opt->short_name == letter)
			return opt;
	}
	return NULL;
}

/* A long option as perf's parse_long_opt() finds it: the exact name, else the only
 * option it abbreviates; "no-NAME" (abbreviated too) negates one of perf's options.
 * An abbreviation is looked for among perf's options first, so that it means what it
 * means to perf (requeue's --p is --pi, not --progress); futexsim's own options are
 * abbreviated only when none of perf's matches. NULL with o->error set when none or
 * several match. */
static const struct bench_option *find_long_option(struct bench_opts *o, const char *name, size_t len,
						   bool *negated)
{
	const struct bench_option *hit = NULL, *other = NULL;
	bool no = len > 3 && !strncmp(name, "no-", 3);

	*negated = false;
	if ((hit = find_option(o->suite, name, len, 0)))
		return hit;
	/* pass 0: perf's options; pass 1: futexsim's (never negated) */
	for (int own = 0; own < 2 && !hit && !(own && no); own++)
		for (size_t k = 0; k < NOPTIONS; k++) {
			const struct bench_option *opt = &options[k];
			const char *n = no ? name + 3 : name;
			size_t l = no ? len - 3 : len;

			if (!(opt->suites & SUITE(o->suite)) || !opt->help || strncmp(opt->long_name, n, l) ||
			    futexsim_only(opt->id) != (own == 1))
				continue;
			if (!no && strlen(opt->long_name) == l)
				return opt;
			if (!hit)
				hit = opt;
			else if (!other)
				other = opt;
		}
	if (other) {
		snprintf(o->error, sizeof(o->error), "Ambiguous option: %.*s (could be --%s%s or --%s%s)", (int)len, name,
			 no ? "no-" : "", hit->long_name, no ? "no-" : "", other->long_name);
		return NULL;
	}
	if (!hit)
		snprintf(o->error, sizeof(o->error), "unknown option `%.*s'", (int)len, name);
	*negated = no && hit;
	return hit;
}

/* --no-NAME: a flag off, a value back to the suite's default (perf's unset). */
static void negate_option(struct bench_opts *o, const struct bench_option *opt)
{
	switch (opt->id) {
	case O_SILENT: o->silent = false; break;
	case O_SHARED: o->shared = false; break;
	case O_BROADCAST: o->broadcast = false; break;
	case O_MULTI: o->multi = false; break;
	case O_PI: o->pi = false; break;
	case O_THREADS: o->threads = 0; break;
	case O_FUTEXES: o->futexes = 1024; break;
	case O_NWAKES:
	case O_NWAKERS:
	case O_NREQUEUE: o->nwake = 0; break;
	case O_BUCKETS: o->buckets = -1, o->buckets_given = false; break;
	case O_RUNTIME: o->runtime = DEFAULT_RUNTIME; break;
	default: break; /* -m has no effect; -v, --machine ... are futexsim's */
	}
}

/* perf's parse_options() conventions: -t 2, -t2, -sS, --threads 2, --threads=2, --thr 2
 * (an abbreviation), --no-silent. Returns 0, 1 for --help, or the exit status of a
 * bad option (printed). */
static int parse_options(int argc, char **argv, int first, struct bench_opts *o)
{
	for (int i = first; i < argc; i++) {
		const char *arg = argv[i];
		int rc;

		if (arg[0] != '-' || !arg[1])
			return bad_option(o, "unexpected argument `%s'", arg);
		/* perf's parse_options: -- ends the options; perf bench futex takes no arguments */
		if (!strcmp(arg, "--")) {
			if (i + 1 < argc)
				return bad_option(o, "unexpected argument `%s'", argv[i + 1]);
			break;
		}
		if (arg[1] == '-') {
			const char *name = arg + 2, *eq = strchr(name, '=');
			size_t len = eq ? (size_t)(eq - name) : strlen(name);
			bool negated;
			const struct bench_option *opt = find_long_option(o, name, len, &negated);

			if (!opt)
				return FS_ERR_USAGE;
			if ((!opt->takes_value || negated) && eq)
				return bad_option(o, "option `%s' takes no value", opt->long_name);
			if (negated) {
				negate_option(o, opt);
				continue;
			}
			o->as_long = true;
			rc = apply_option(o, opt, opt->takes_value ? (eq ? eq + 1 : i + 1 < argc ? argv[++i] : NULL)
								   : NULL);
			if (rc)
				return rc;
			continue;
		}
		for (const char *c = arg + 1; *c; c++) {
			const struct bench_option *opt = find_option(o->suite, NULL, 0, *c);
			char sw[2] = { *c, 0 };

			if (!opt)
				return bad_option(o, "unknown switch `%s'", sw);
			o->as_long = false;
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

static void add_set(struct perfbench_sets *b, const char *key, const char *value)
{
	snprintf(b->buf[b->n], sizeof(b->buf[b->n]), "%s=%s", key, value);
	b->v[b->n] = b->buf[b->n];
	b->n++;
}

static void add_set_u(struct perfbench_sets *b, const char *key, unsigned long value)
{
	char num[32];

	snprintf(num, sizeof(num), "%lu", value);
	add_set(b, key, num);
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

/* perf bench's own options before the suite: -r/--repeat N. Returns the index of
 * "futex" (or of what stands there), or -1 with the message in o->error. */
static int parse_bench_options(int argc, char **argv, struct bench_opts *o)
{
	int i = 2;

	while (i < argc && argv[i][0] == '-' && strcmp(argv[i], "-h") && strcmp(argv[i], "--help")) {
		const char *v = NULL;
		unsigned long n;

		if (!strcmp(argv[i], "-r") || !strcmp(argv[i], "--repeat"))
			v = i + 1 < argc ? argv[++i] : NULL;
		else if (!strncmp(argv[i], "--repeat=", 9))
			v = argv[i] + 9;
		else if (!strncmp(argv[i], "-r", 2))
			v = argv[i] + 2;
		else {
			snprintf(o->error, sizeof(o->error), "unknown option `%s' of perf bench", argv[i]);
			return -1;
		}
		if (parse_uint(v, MAX_REPEAT, &n) < 0 || !n) {
			snprintf(o->error, sizeof(o->error), "-r/--repeat needs a number of runs from 1 to %u", MAX_REPEAT);
			return -1;
		}
		o->repeat = (unsigned)n;
		i++;
	}
	return i;
}

enum parsed { PARSED_RUN, PARSED_HELP, PARSED_SUITE_HELP, PARSED_NO_SUITE, PARSED_BAD_BENCH, PARSED_BAD_OPTION };

/* perf bench's command line after "bench" (argv[2] on): the suite and its options
 * into o. PARSED_BAD_BENCH and PARSED_BAD_OPTION leave the message in o->error. */
static enum parsed parse_command(int argc, char **argv, struct bench_opts *o)
{
	const char *name;
	int rc, first = parse_bench_options(argc, argv, o);

	if (first < 0)
		return PARSED_BAD_BENCH;
	if (first >= argc)
		return PARSED_NO_SUITE;
	if (!strcmp(argv[first], "-h") || !strcmp(argv[first], "--help"))
		return PARSED_HELP;
	if (strcmp(argv[first], "futex")) {
		snprintf(o->error, sizeof(o->error),
			 "%s is not simulated: only perf bench's futex suites are (see futexsim bench --help)",
			 argv[first]);
		return PARSED_BAD_BENCH;
	}
	name = first + 1 < argc ? argv[first + 1] : "(no benchmark)";
	if (!strcmp(name, "-h") || !strcmp(name, "--help"))
		return PARSED_HELP;
	for (o->suite = 0; o->suite < S_NSUITES && strcmp(name, suite_names[o->suite]); o->suite++)
		;
	if (o->suite == S_NSUITES) {
		snprintf(o->error, sizeof(o->error),
			 "futex %s is not simulated: the suites are hash, wake, wake-parallel, requeue and lock-pi "
			 "(see futexsim bench --help)",
			 name);
		return PARSED_BAD_BENCH;
	}
	rc = parse_options(argc, argv, first + 2, o);
	return rc == 1 ? PARSED_SUITE_HELP : rc ? PARSED_BAD_OPTION : PARSED_RUN;
}

/* The workload of the suite, as --set overrides. */
static void add_workload(struct perfbench_sets *b, const struct bench_opts *o)
{
	static const char *const types[S_NSUITES] = { "{type: hash-bench}", "{type: wake}", "{type: wake-parallel}",
						     "{type: requeue}", "{type: lock-pi}" };

	add_set(b, "workload", types[o->suite]);
	add_set(b, "workload.shared", o->shared ? "true" : "false");
	if (o->cpus)
		add_set(b, "workload.cpus", o->cpus);
	if (o->threads)
		add_set_u(b, "workload.threads", o->threads);
	if (o->suite == S_HASH || o->suite == S_LOCK_PI) {
		char num[64];
		double warmup = bench_warmup(o->runtime);

		if (o->suite == S_HASH)
			add_set_u(b, "workload.futexes", o->futexes);
		else
			add_set(b, "workload.multi", o->multi ? "true" : "false");
		snprintf(num, sizeof(num), "%.0fns", o->runtime * 1e9);
		add_set(b, "run.duration", num);
		snprintf(num, sizeof(num), "%.0fns", warmup * 1e9);
		add_set(b, "run.warmup", num);
		return;
	}
	add_set_u(b, "workload.runs", o->repeat);
	if (o->suite == S_WAKE_PARALLEL && !o->nwake && o->threads)
		add_set_u(b, "workload.wakers", o->threads); /* perf: nthreads wakers, each waking 1 */
	else if (o->nwake)
		add_set_u(b,
			  o->suite == S_WAKE	       ? "workload.nwake"
			  : o->suite == S_WAKE_PARALLEL ? "workload.wakers"
							: "workload.nrequeue",
			  o->nwake);
	if (o->broadcast)
		add_set(b, "workload.broadcast", "true");
	if (o->pi)
		add_set(b, "workload.pi", "true");
	/* the runs end the simulation; this bounds it */
	add_set(b, "run.duration", SUITE_TIME_LIMIT);
	add_set(b, "run.warmup", "0ns");
}

/* The scenario overrides of parsed options: the defaults' (or --scenario's) keys,
 * then the machine, the kernel, the suite's workload and the buckets. */
static void sets_of(const struct bench_opts *o, struct perfbench_sets *b)
{
	if (!o->scenario) {
		char scenario_name[64];

		snprintf(scenario_name, sizeof(scenario_name), "perf-bench-futex-%s", suite_names[o->suite]);
		add_set(b, "name", scenario_name);
		add_set(b, "machine", DEFAULT_MACHINE);
		add_set(b, "kernel", DEFAULT_KERNEL);
		add_set(b, "run.seed", DEFAULT_SEED);
	}
	if (o->machine)
		add_set(b, "machine", o->machine);
	if (o->kernel)
		add_set(b, "kernel", o->kernel);
	add_workload(b, o);
	if (o->buckets_given)
		add_set_u(b, "kernel.private_hash.buckets", (unsigned long)o->buckets);
	add_set(b, "output.per_thread", o->silent ? "false" : "true");
}

/* The perf option a scenario override came from, for messages: the user typed the
 * option, not the --set (NULL: none of perf's). */
static const char *option_of_set(const char *key, size_t len)
{
	static const struct {
		const char *key, *option;
	} named[] = {
		{ "workload.threads", "-t/--threads" },
		{ "workload.futexes", "-f/--futexes" },
		{ "workload.nwake", "-w/--nwakes" },
		{ "workload.wakers", "-w/--nwakers" },
		{ "workload.nrequeue", "-q/--nrequeue" },
		{ "workload.cpus", "--cpus" },
		{ "kernel.private_hash.buckets", "-b/--buckets" },
		{ "run.duration", "-r/--runtime" },
		{ "machine", "--machine" },
		{ "kernel", "--kernel" },
	};

	for (size_t i = 0; i < sizeof(named) / sizeof(named[0]); i++)
		if (strlen(named[i].key) == len && !strncmp(named[i].key, key, len))
			return named[i].option;
	return NULL;
}

/* A message located in one of b's overrides ("--set KEY=VALUE:LINE:COL: why") names
 * the option it came from instead ("-b/--buckets 3: why"). */
static void name_the_option(const struct perfbench_sets *b, char *msg, size_t size)
{
	static const char prefix[] = "--set ";
	char named[sizeof(((struct fs_error *)0)->msg)];

	if (strncmp(msg, prefix, sizeof(prefix) - 1))
		return;
	for (size_t i = 0; i < b->n; i++) {
		const char *set = b->v[i], *eq = strchr(set, '='), *rest = msg + sizeof(prefix) - 1 + strlen(set);
		const char *option = eq ? option_of_set(set, (size_t)(eq - set)) : NULL;
		unsigned line, col;
		int used = 0;

		if (!option || strncmp(msg + sizeof(prefix) - 1, set, strlen(set)) ||
		    sscanf(rest, ":%u:%u: %n", &line, &col, &used) != 2 || !used)
			continue;
		snprintf(named, sizeof(named), "%s %s: %s", option, eq + 1, rest + used);
		snprintf(msg, size, "%s", named);
		return;
	}
}

int perfbench_command(int argc, char **argv, volatile sig_atomic_t *interrupt)
{
	struct bench_opts o = { .futexes = 1024, .buckets = -1, .runtime = DEFAULT_RUNTIME, .repeat = 10 };
	struct perfbench_sets *b;
	struct fs_error err = { 0 }, write_err = { 0 };
	struct h5out_origin origin = { argc, argv, time(NULL) };
	struct h5out out = { .path = NULL }; /* h5out_abort does nothing until opened */
	struct scenario sc;
	struct results res;
	struct sim s;
	struct timespec t0, t1;
	int status = FS_OK;
	bool writing;

	switch (parse_command(argc, argv, &o)) {
	case PARSED_NO_SUITE:
		fputs(perfbench_usage, stderr);
		return FS_ERR_USAGE;
	case PARSED_HELP:
		fputs(perfbench_usage, stdout);
		return FS_OK;
	case PARSED_SUITE_HELP: /* perf: its header, the suite's usage on stderr, exit 129 */
		printf("# Running 'futex/%s' benchmark:\n", suite_names[o.suite]);
		fflush(stdout);
		print_perf_usage(o.suite);
		return PERF_USAGE_STATUS;
	case PARSED_BAD_BENCH:
		fprintf(stderr, "futexsim bench: %s\n", o.error);
		return FS_ERR_USAGE;
	case PARSED_BAD_OPTION:
		fprintf(stderr, " Error: %s\n", o.error);
		print_perf_usage(o.suite);
		return FS_ERR_USAGE;
	case PARSED_RUN:
		break;
	}
	/* as futexsim run: --quiet prints errors only */
	if (run_check_quiet("bench", o.quiet, o.progress))
		return FS_ERR_USAGE;
	if (o.quiet && o.verbose) {
		fprintf(stderr, "futexsim bench: --quiet and -v exclude each other (--quiet prints errors only)\n");
		return FS_ERR_USAGE;
	}
	writing = o.output && !o.print_scenario; /* --print-scenario writes nothing, as run's */
	if (!(b = calloc(1, sizeof(*b)))) {
		fprintf(stderr, "futexsim: out of memory\n");
		return FS_ERR_RUNTIME;
	}
	sets_of(&o, b);

	memset(&s, 0, sizeof(s));
	if (scenario_load(&sc, o.scenario ? o.scenario : "/dev/null", b->v, b->n, &err) < 0) {
		name_the_option(b, err.msg, sizeof(err.msg));
		fprintf(stderr, "futexsim bench futex %s: %s\n", suite_names[o.suite], err.msg);
		scenario_free(&sc);
		free(b);
		return err.status ? err.status : FS_ERR_INPUT;
	}
	if (o.suite == S_WAKE_PARALLEL && !o.nwake && !o.threads) {
		/* perf's default wakers are the threads (every CPU without -t): the count the
		 * loaded scenario resolved, then loaded again with that many wakers */
		const struct yt_node *t = yt_get(yt_get(sc.resolved, "workload"), "threads");
		unsigned long n;

		if (t && t->kind == YT_SCALAR && parse_uint(t->scalar, 1u << 16, &n) == 0 && n) {
			scenario_free(&sc);
			o.threads = (unsigned)n;
			b->n = 0;
			sets_of(&o, b);
			if (scenario_load(&sc, o.scenario ? o.scenario : "/dev/null", b->v, b->n, &err) < 0) {
				name_the_option(b, err.msg, sizeof(err.msg));
				fprintf(stderr, "futexsim bench futex %s: %s\n", suite_names[o.suite], err.msg);
				scenario_free(&sc);
				free(b);
				return err.status ? err.status : FS_ERR_INPUT;
			}
		}
	}
	if (o.buckets_given && o.buckets > 0 && !sc.kernel.private_hash.enabled) {
		/* perf: prctl(PR_FUTEX_HASH) fails on a kernel without it */
		fprintf(stderr, "futexsim bench futex %s: -b %ld: kernel %s has no private futex hash (6.16+); "
				"-b 0 or another --kernel\n",
			suite_names[o.suite], o.buckets, sc.kernel.name);
		scenario_free(&sc);
		free(b);
		return FS_ERR_USAGE;
	}
	if (sim_build(&s, &sc, &err) < 0) {
		status = err.status ? err.status : FS_ERR_RUNTIME;
		name_the_option(b, err.msg, sizeof(err.msg));
		fprintf(stderr, "futexsim bench futex %s: %s\n", suite_names[o.suite], err.msg);
		goto out;
	}
	if (o.print_scenario) { /* as run --print-scenario: built, then printed; nothing run */
		if (run_print_resolved(&sc, &err) < 0) {
			fprintf(stderr, "futexsim bench futex %s: %s\n", suite_names[o.suite], err.msg);
			status = err.status;
		}
		goto out;
	}
	if (writing && run_output_open(&out, o.output, o.force, &sc, &s, &origin, &err) < 0) {
		fprintf(stderr, "futexsim bench futex %s: %s\n", suite_names[o.suite], err.msg);
		status = FS_ERR_OUTPUT;
		goto out;
	}
	s.eng.interrupt = interrupt;
	/* perf's header, before the run as perf prints it */
	if (!o.quiet) {
		printf("# Running 'futex/%s' benchmark:\n", suite_names[o.suite]);
		if (o.suite == S_HASH)
			printf("Run summary [PID 0]: %u threads, each operating on %u [%s] futexes for %d secs.\n\n",
			       s.nthreads, o.futexes, o.shared ? "shared" : "private", (int)o.runtime);
		else
			sc.wl_type->print_header(sc.wl_params, s.wl, o.runtime, stdout);
		fflush(stdout);
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (run_simulate(&s, o.quiet, o.progress, &err) < 0) {
		status = err.status ? err.status : FS_ERR_RUNTIME;
		fprintf(stderr, "futexsim bench futex %s: %s\n", suite_names[o.suite], err.msg);
		goto out;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (results_from_sim(&res, &s, sc.hottest_lines,
			     (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9) < 0) {
		results_free(&res);
		fprintf(stderr, "futexsim bench futex %s: out of memory gathering results\n", suite_names[o.suite]);
		status = FS_ERR_RUNTIME;
		goto out;
	}
	/* the file first, as run writes it: the lines are printed even when writing it failed */
	if (writing && h5out_finish(&out, &sc, &res, &write_err) < 0)
		writing = false;
	if (!o.quiet) {
		results_print_perf(&res, o.silent, stdout);
		if (o.suite == S_HASH)
			print_hashing(&o, &s, stdout);
	}
	if (o.verbose) {
		fputc('\n', stdout);
		results_print_own_figures(&res, stdout);
		fflush(stdout);
		results_print_speed(&res, stderr);
	}
	if (!o.quiet && o.suite != S_HASH && o.suite != S_LOCK_PI && !s.tasks.finished && !s.interrupted)
		fprintf(stderr, "futexsim: the %u runs did not end within %s simulated; the figures cover those that did\n",
			o.repeat, SUITE_TIME_LIMIT);
	results_free(&res);
	if (write_err.status) {
		fprintf(stderr, "futexsim bench futex %s: %s\n", suite_names[o.suite], write_err.msg);
		status = FS_ERR_OUTPUT;
	} else if (writing && !o.quiet) {
		run_output_note(&out, &s);
	}
	if (fflush(stdout) != 0) {
		fprintf(stderr, "futexsim: cannot write to standard output\n");
		status = FS_ERR_OUTPUT;
	} else if (!status && s.interrupted) {
		fprintf(stderr, "futexsim: interrupted at %.6g ms of %.6g ms simulated; the figures cover that time\n",
			(double)s.eng.now / 1e9, (double)s.end / 1e9);
		status = FS_ERR_INTERRUPTED;
	}
out:
	h5out_abort(&out);
	sim_free(&s);
	scenario_free(&sc);
	free(b);
	return status;
}


int perfbench_line_sets(const char *line, const char *machine, const char *kernel, const char *cpus,
			struct perfbench_sets *b, enum perfbench_figure *figure, char *msg, size_t msgsize)
{
	struct bench_opts o = { .futexes = 1024, .buckets = -1, .runtime = DEFAULT_RUNTIME, .repeat = 10 };
	char words[1024], *argv[64];
	int argc = 0;

	if (strlen(line) >= sizeof(words)) {
		snprintf(msg, msgsize, "the command line is longer than %zu characters", sizeof(words) - 1);
		return -1;
	}
	strcpy(words, line);
	argv[argc++] = "futexsim";
	for (char *w = strtok(words, " \t"); w; w = strtok(NULL, " \t")) {
		if (argc == (int)(sizeof(argv) / sizeof(argv[0])) - 1) {
			snprintf(msg, msgsize, "more than %d words", argc - 1);
			return -1;
		}
		if (strpbrk(w, "'\"\\$`|;&<>")) {
			snprintf(msg, msgsize, "'%.40s': only perf's words, without quotes, pipes or redirections", w);
			return -1;
		}
		argv[argc++] = w;
	}
	argv[argc] = NULL;
	if (argc < 3 || strcmp(argv[1], "perf") || strcmp(argv[2], "bench")) {
		snprintf(msg, msgsize, "expected perf's command line as typed: perf bench [-r N] futex SUITE [OPTIONS]");
		return -1;
	}
	/* parse_command reads perf bench's arguments from argv[2] on */
	switch (parse_command(argc - 1, argv + 1, &o)) {
	case PARSED_RUN:
		break;
	case PARSED_HELP:
	case PARSED_SUITE_HELP:
	case PARSED_NO_SUITE:
		snprintf(msg, msgsize, "no benchmark run: expected perf bench [-r N] futex SUITE [OPTIONS]");
		return -1;
	default:
		snprintf(msg, msgsize, "%s", o.error);
		return -1;
	}
	if (o.own_option) {
		snprintf(msg, msgsize, "--%s is futexsim's option, not perf's (the row's machine, kernel and cpus keys say that)",
			 o.own_option);
		return -1;
	}
	memset(b, 0, sizeof(*b));
	o.silent = true;
	o.machine = machine;
	o.kernel = kernel;
	o.cpus = cpus;
	sets_of(&o, b);
	*figure = o.suite == S_HASH || o.suite == S_LOCK_PI ? PERF_FIGURE_OPS_PER_SEC : PERF_FIGURE_MS;
	return 0;
}

int perfbench_output_figure(const char *text, enum perfbench_figure figure, double *out)
{
	bool found = false;

	/* perf's summary line: print_summary() of futex-hash.c and futex-lock-pi.c ("Averaged
	 * %ld operations/sec"), of futex-wake.c, -wake-parallel.c and -requeue.c (" in %.4f ms");
	 * the last such line, after any per-thread or per-run lines */
	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		const char *in;
		double v;
		char *end;

		if (figure == PERF_FIGURE_OPS_PER_SEC && !strncmp(l, "Averaged ", 9)) {
			v = strtod(l + 9, &end);
			if (end != l + 9 && !strncmp(end, " operations/sec", 15) && v >= 0 && v < 1e15) {
				*out = v;
				found = true;
			}
		} else if (figure == PERF_FIGURE_MS && (in = strstr(l, " in ")) && (!strchr(l, '\n') || in < strchr(l, '\n')) &&
			   l[0] != '[') {
			v = strtod(in + 4, &end);
			if (end != in + 4 && !strncmp(end, " ms", 3) && v >= 0 && v < 1e12) {
				*out = v;
				found = true;
			}
		}
	}
	return found ? 0 : -1;
}
