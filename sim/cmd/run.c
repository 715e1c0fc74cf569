/* SPDX-License-Identifier: MIT */
/* futexsim run: a scenario simulated, its summary printed and its result file written (with
 * --band, the runs of its band too). */
#include "sim/cmd/cmd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sim/band.h"
#include "sim/cliopt.h"
#include "sim/h5out.h"
#include "sim/results.h"
#include "sim/runpool.h"
#include "sim/scenario.h"
#include "sim/sim.h"
#include "sim/views/text.h"
#include "sim/tracesum.h"

const char usage_run[] =
	"usage: futexsim run SCENARIO.yaml [--set KEY=VALUE]... [--seed N] [--per-thread]\n"
	"                    [--config-dir DIR]... [-o FILE.h5 | --no-output] [--quiet] [--progress]\n"
	"                    [--band] [--check | --print-scenario]\n"
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
	"of the Averaged line), a replayed futex call (trace: its calls by kind instead of\n"
	"the Averaged line, and last the line 'trace: N calls replayed of M recorded; ...',\n"
	"docs/trace.md). The header is printed before the run, the figures after it; standard\n"
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
	"                   replaces (never a device, FIFO, directory or a file the run reads:\n"
	"                   the scenario, a machine or kernel file or preset; a symbolic link\n"
	"                   only with --force, which replaces the link)\n"
	"  --force          let -o replace a symbolic link\n"
	"  --no-output, -o -  write no result file\n"
	"  -q, --quiet      print errors only: no summary on stdout, no speed, progress or\n"
	"                   note on stderr (the exit status says how it went); not with\n"
	"                   --progress\n"
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
	"                   not the model's own errors. Its runs go on every host CPU at once\n"
	"                   (the figures do not depend on how many). docs/calibration.md\n"
	"  --check          load the scenario with its overrides and build its models as\n"
	"                   the run would (keys, values, presets, limits, the workload's\n"
	"                   setup), then stop: print nothing, run nothing, write nothing;\n"
	"                   exit 0 when the run would start (sweeps check their grid so)\n"
	"  --print-scenario as --check, then print the scenario as resolved: what show\n"
	"                   --scenario prints of the result file this run would write\n"
	"                   (sweep --resume compares them)\n"
	"  -h, --help       show this help\n"
	"\n"
	"Scenario keys: name, description, machine, kernel, workload (type: hash-bench,\n"
	"mutex, condvar, wake, wake-parallel, requeue, lock-pi, schbench, locktorture or\n"
	"trace), run {duration, warmup, seed, aslr, max_memory, max_events},\n"
	"output {per_thread, hottest_lines, interval}.\n"
	"See docs/scenario.md.\n"
	"\n"
	"Examples:\n"
	"  $ futexsim run quickstart -o quick.h5 && futexsim show quick.h5\n"
	"  $ futexsim run quickstart --set kernel.private_hash.buckets=16 --seed 3 --no-output\n"
	"  $ futexsim run workloads/mutex --set run.duration=2ms --per-thread --no-output\n"
	"  $ futexsim run quickstart --print-scenario > mine.yaml && futexsim run mine.yaml --check\n";

/* --set overrides a run takes at most */
#define MAX_SETS 256

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
	bool print_scenario;  /* --print-scenario: --check, then print the resolved scenario */
	const char *config_dirs[CLI_MAX_CONFIG_DIRS + 1]; /* --config-dir, NULL-terminated */
	size_t nconfig_dirs;
};

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
			if (cli_add_config_dir("run", argc, argv, &i, a->config_dirs, &a->nconfig_dirs) < 0)
				return FS_ERR_USAGE;
		} else if (!strcmp(arg, "-o") || cli_is_option(arg, "--output")) {
			v = cli_option_value(argc, argv, &i, "--output");
			if (!run_output_name_ok(v)) {
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
		} else if (!strcmp(arg, "--print-scenario")) {
			a->check = a->print_scenario = true;
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
	return run_check_quiet("run", a->quiet, a->progress);
}

int run_check_quiet(const char *cmd, bool quiet, bool progress)
{
	/* --quiet promises errors only */
	if (quiet && progress) {
		fprintf(stderr, "futexsim %s: --quiet and --progress exclude each other (--quiet prints errors only)\n",
			cmd);
		return FS_ERR_USAGE;
	}
	return 0;
}

bool run_output_name_ok(const char *v)
{
	return v && *v && !(v[0] == '-' && v[1]);
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
	while (!s->eng.stop && !*s->eng.interrupt && engine_next_time(&s->eng) < s->end) {
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

int run_simulate(struct sim *s, bool quiet, bool progress, struct fs_error *e)
{
	return progress || (!quiet && isatty(STDERR_FILENO)) ? run_with_progress(s, isatty(STDERR_FILENO), e)
							     : sim_run(s, e);
}

int run_print_resolved(const struct scenario *sc, struct fs_error *e)
{
	/* as the result file records it (h5out_open, after sim_build too) */
	char *text = yt_emit_string(sc->resolved);
	int rc = 0;

	if (!text)
		rc = fs_fail(e, FS_ERR_RUNTIME, "out of memory");
	else if (fputs(text, stdout) < 0 || fflush(stdout) != 0)
		rc = fs_fail(e, FS_ERR_OUTPUT, "cannot write to standard output");
	free(text);
	return rc;
}

int run_output_open(struct h5out *out, const char *output, bool force, struct scenario *sc, struct sim *s,
		    const struct h5out_origin *origin, struct fs_error *e)
{
	char default_path[4096];
	const char *path = output;

	/* before the run, so an unwritable place fails at once */
	if (!path && h5out_default_path(default_path, sizeof(default_path), sc->name, sc->seed, origin->start, e) < 0)
		return -1;
	if (!path)
		path = default_path;
	/* never over a file the run read (the scenario, a machine or kernel file) */
	if (output && h5out_check_path(path, force, (const char *const *)sc->inputs, e) < 0)
		return -1;
	if (h5out_open(out, path, sc, &s->series, origin, e) < 0)
		return -1;
	series_set_sink(&s->series, h5out_append, out);
	return 0;
}

void run_output_note(const struct h5out *out, const struct sim *s)
{
	fprintf(stderr, "futexsim: results in %s%s\n", out->published, s->interrupted ? " (marked incomplete)" : "");
}

/* One band run, in a worker of the run pool: the scenario with run r's moves after
 * the user's overrides; perf's Averaged figure, or -1 (said on stderr) when it
 * failed or was interrupted. */
struct band_ctx {
	const struct run_args *a;
	const struct band_plan *plan;
	volatile sig_atomic_t *interrupt;
};

static double band_run(size_t r, void *ctx)
{
	const struct band_ctx *c = ctx;
	const struct run_args *a = c->a;
	const struct band_plan *plan = c->plan;
	const char *sets[MAX_SETS + BAND_MAX_PARAMS + 1];
	struct fs_error e = { 0 };
	struct scenario bsc;
	struct sim bs;
	struct results br;
	double figure = -1;
	size_t n = 0;

	for (size_t i = 0; i < a->nsets; i++)
		sets[n++] = a->sets[i];
	for (uint32_t i = 0; i < plan->nparams; i++)
		sets[n++] = plan->sets[r][i];
	sets[n] = NULL;
	if (!a->quiet) {
		/* one write a line: the workers' lines do not interleave */
		char line[64 + BAND_MAX_PARAMS * BAND_SET_LEN];
		int at = snprintf(line, sizeof(line), "band: run %zu of %u:", r + 1, plan->nruns);

		for (uint32_t i = 0; i < plan->nparams && at > 0 && (size_t)at < sizeof(line); i++)
			at += snprintf(line + at, sizeof(line) - (size_t)at, " %s", plan->sets[r][i] + strlen("machine."));
		fprintf(stderr, "%s\n", line);
	}
	if (scenario_load_dirs(&bsc, a->path, sets, n, a->config_dirs, &e) == 0 && sim_build(&bs, &bsc, &e) == 0) {
		bs.eng.interrupt = c->interrupt;
		if (sim_run(&bs, &e) == 0 && !bs.interrupted) {
			if (results_from_sim(&br, &bs, 0, 0) == 0)
				figure = (double)br.avg.mean;
			else
				fs_fail(&e, FS_ERR_RUNTIME, "out of memory gathering results");
			results_free(&br);
		}
		sim_free(&bs);
	}
	scenario_free(&bsc);
	if (figure < 0 && e.msg[0])
		fprintf(stderr, "futexsim: band run %zu: %s\n", r + 1, e.msg);
	return figure;
}

/* run --band: the scenario again with each move of `plan` (sim/band.h) after
 * the user's overrides, the runs on every host CPU (sim/runpool.h: the figures do
 * not depend on how many); the band of perf's Averaged figure into `res`. 0 when
 * done, 1 when interrupted (no band), -1 on error. */
static int run_band(const struct run_args *a, const struct band_plan *plan, struct results *res,
		    volatile sig_atomic_t *interrupt, struct fs_error *e)
{
	double figures[2 * BAND_MAX_PARAMS];
	struct band_ctx c = { a, plan, interrupt };
	int rc = runpool_map(plan->nruns, band_run, &c, 0, figures, e);

	if (*interrupt)
		return 1;
	if (rc < 0)
		return -1;
	band_combine(plan, (double)res->avg.mean, figures, &res->band_lo, &res->band_hi);
	res->band_runs = plan->nruns;
	res->band_basis = plan->basis;
	return 0;
}

int cmd_run(int argc, char **argv, volatile sig_atomic_t *interrupt)
{
	struct run_args a;
	int status = FS_OK, writing, rc = parse_run_args(argc, argv, &a);
	struct h5out_origin origin = { argc, argv, time(NULL) };
	struct fs_error err = { 0 }, write_err = { 0 };
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
		if (!status && a.print_scenario && run_print_resolved(&sc, &err) < 0) {
			fprintf(stderr, "futexsim: %s\n", err.msg);
			status = err.status;
		}
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
	if (writing && run_output_open(&out, a.output, a.force, &sc, &s, &origin, &err) < 0) {
		status = FS_ERR_OUTPUT;
		goto out;
	}
	s.eng.interrupt = interrupt;
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
	if (run_simulate(&s, a.quiet, a.progress, &err) < 0) {
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
		int band = run_band(&a, plan, &res, interrupt, &err);

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
	if (!a.quiet) {
		results_print_figures(&res, a.per_thread || sc.per_thread, stdout);
		tracesum_print(&res, stdout); /* a replayed trace's last line */
	}
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
		run_output_note(&out, &s);
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
