/* SPDX-License-Identifier: MIT */
#include "sim/fit.h"

#include <errno.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_matrix.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sim/core/config.h"
#include "sim/core/error.h"
#include "sim/core/yamltree.h"
#include "sim/perfbench.h"
#include "sim/results.h"
#include "sim/revision.h"
#include "sim/runpool.h"
#include "sim/scenario.h"
#include "sim/sim.h"
#include "sim/views/text.h"

#define FIT_MAX_ROWS 64
#define FIT_MAX_PARAMS 5
#define FIT_MAX_SETS (PERFBENCH_MAX_SETS + 8 + FIT_MAX_PARAMS)
/* A row's log error that counts as one sigma [A]: perf's Averaged figure moves by
 * about 1% between 10 s runs, and the model's own figure at the fit's window by
 * less; 2% leaves room for both. */
#define FIT_ROW_SIGMA 0.02
/* Finite differences step a parameter by this fraction of its range: well above
 * the figures' graininess at the fit's window, well below the range. */
#define FIT_STEP 0.05
#define FIT_MAX_ITERS 8
/* damped steps tried per iteration, each with ten times the damping of the last */
#define FIT_MAX_TRIES 5
/* The fit ends when an iteration lowers the loss by less than this, in units of one
 * row's sigma squared: half of one, finer than the rows' own noise */
#define FIT_TOL 0.5
/* A parameter whose spread after the fit is below this fraction of its prior's
 * is pinned by the rows; a pair correlated beyond FIT_CORR the rows cannot tell apart. */
#define FIT_PINNED 0.5
#define FIT_CORR 0.9
/* costs.key_shared's range when the machine's uncertainty block has none [A]: the
 * bounds analysis/calibration.yaml gives the kernel design's value */
#define KEY_SHARED_MIN_CYCLES 50.0
#define KEY_SHARED_MAX_CYCLES 1500.0

const char fit_usage[] =
	"usage: futexsim fit MEASUREMENTS.yaml -o MACHINE.yaml [--machine NAME] [--name NAME]\n"
	"                    [--duration TIME] [--warmup TIME] [-j N] [--cache DIR] [--quiet]\n"
	"\n"
	"Fits a machine's CPU-side costs to its stock kernel's perf bench futex rows and\n"
	"writes a machine file that inherits the hardware-facts machine with the fitted\n"
	"values ([F] labels), the rows and their residuals in its header, and the fit's\n"
	"covariance (its calibration block, which futexsim run --band reads).\n"
	"\n"
	"MEASUREMENTS names the hardware-facts machine and lists the runs:\n"
	"  machine: e5-2650-2s-hw\n"
	"  runs:\n"
	"    - {perf: \"perf bench futex hash -t 28\", cpus: all, kernel: linux-6.15, averaged: 2344905.8}\n"
	"perf: perf's command line as typed (every suite futexsim bench simulates); cpus: where\n"
	"the threads were bound (workload.cpus syntax: all, node0, 0-13); kernel: the preset of\n"
	"the kernel the run was made on; averaged: perf's summary figure, or output: | with\n"
	"perf's whole output pasted.\n"
	"\n"
	"Fitted, each within the machine file's uncertainty range for it (a cost without a\n"
	"range keeps its value): costs.syscall, costs.call_return (the mitigations' price of\n"
	"each call and return), costs.core_clock (the clock under load), costs.smt_slowdown\n"
	"and, with -S rows, costs.key_shared. Line transfers stay the machine file's.\n"
	"  -o FILE          the machine file to write (refuses the measurements and the\n"
	"                   machine it reads)\n"
	"  --machine NAME   the hardware-facts machine instead of the file's\n"
	"  --name NAME      the written machine's name (default: the machine's, with -fit)\n"
	"  --duration TIME  each simulated run's measured window (default 1ms)\n"
	"  --warmup TIME    its warm-up before it (default 500us, as make validate's: long\n"
	"                   enough for each thread's first pass over its futexes, whose\n"
	"                   misses a 10 s perf run does not see)\n"
	"  -j N             simulations at once (default: the online CPUs)\n"
	"  --cache DIR      keep each simulated figure in DIR (keyed by the revision and the\n"
	"                   resolved scenario) and reuse what DIR holds; a point is never\n"
	"                   simulated twice in one fit in any case\n"
	"  --quiet          no progress on stderr\n"
	"Exit status: 0 success, 1 a simulation failed, 2 usage, 3 bad measurements or\n"
	"machine, 4 cannot write the output.\n"
	"\n"
	"Examples:\n"
	"  $ printf 'machine: e5-2650-2s-hw\\nruns:\\n  - {perf: \"perf bench futex hash -t 4 -s\", cpus: node0, kernel: linux-6.15, averaged: 2500000}\\n' > rows.yaml\n"
	"  $ futexsim fit rows.yaml -o my-e5.yaml --quiet\n"
	"  $ futexsim run quickstart --set machine=my-e5.yaml --no-output\n";

enum unit { U_NS, U_CYCLES, U_FACTOR };
static const char *const unit_names[] = { "ns", "cycles", "factor" };

/* The CPU-side costs the fit may move, in the order they are reported. */
static const struct param_def {
	const char *key; /* under the machine's costs */
	enum unit unit;
	const char *what;
} param_defs[FIT_MAX_PARAMS] = {
	{ "syscall", U_NS, "syscall entry and exit under the kernel's mitigations" },
	{ "call_return", U_NS, "each call and return pair of the futex path under the kernel's mitigations" },
	{ "core_clock", U_FACTOR, "the clock the cores run at under load, x frequency" },
	{ "smt_slowdown", U_FACTOR, "local work while the sibling thread is busy" },
	{ "key_shared", U_CYCLES, "the shared key's path" },
};

struct row {
	const char *perf, *cpus, *kernel; /* owned by the measurements' doc */
	struct fs_mark at;
	struct perfbench_sets sets;
	enum perfbench_figure figure;
	bool shared;
	double measured, simulated;
};

struct param {
	const struct param_def *def;
	double lo, hi, prior, value; /* physical units */
	double sd;                   /* after the fit */
};

struct fit {
	const char *path, *machine, *name, *duration, *warmup;
	struct row *rows;
	size_t nrows;
	struct param params[FIT_MAX_PARAMS];
	size_t np;
	unsigned jobs, sims;          /* sims: simulations made (the cache's misses) */
	unsigned figures;             /* the rows' figures the fit used, simulated or reused */
	bool quiet;
	struct runcache *cache;
	/* the batch being simulated: nbatch parameter vectors (z, np each) x nrows */
	const double *batch;
	double loss, cov[FIT_MAX_PARAMS * FIT_MAX_PARAMS];
	char description[512];        /* the machine's, for the written one's */
};

/* ---- reading ------------------------------------------------------------------ */

static int read_row(const struct fit *f, struct row *r, const struct yt_node *n, struct fs_error *e)
{
	static const char *const keys[] = { "perf", "cpus", "kernel", "averaged", "output", NULL };
	const struct yt_node *avg, *out;
	char msg[512];

	if (cfg_expect(n, YT_MAP, "run", e) < 0 || cfg_check_keys(n, "run", keys, e) < 0 ||
	    cfg_require(n, "perf", "run", e) < 0 || cfg_require(n, "kernel", "run", e) < 0 ||
	    cfg_get_string(n, "perf", "", &r->perf, e) < 0 || cfg_get_string(n, "cpus", "all", &r->cpus, e) < 0 ||
	    cfg_get_string(n, "kernel", "", &r->kernel, e) < 0)
		return -1;
	r->at = n->mark;
	if (perfbench_line_sets(r->perf, f->machine, r->kernel, r->cpus, &r->sets, &r->figure, msg, sizeof(msg)) < 0)
		return fs_fail_at(e, &yt_get(n, "perf")->mark, "perf: %s", msg);
	r->shared = false;
	for (size_t i = 0; i < r->sets.n; i++)
		r->shared |= !strcmp(r->sets.v[i], "workload.shared=true");
	avg = yt_get(n, "averaged");
	out = yt_get(n, "output");
	if (!avg == !out)
		return fs_fail_at(e, &n->mark, "run: give perf's figure as averaged: or its whole output as output: "
					       "(one of them)");
	if (avg) {
		char *end;

		if (cfg_expect(avg, YT_SCALAR, "averaged", e) < 0)
			return -1;
		errno = 0;
		r->measured = strtod(avg->scalar, &end);
		if (errno || end == avg->scalar || *end || !(r->measured > 0) || !isfinite(r->measured) ||
		    strpbrk(avg->scalar, "xXpP"))
			return fs_fail_at(e, &avg->mark, "averaged: '%.40s' is not perf's figure (expected a positive "
							 "decimal number)",
					  avg->scalar);
	} else {
		if (cfg_expect(out, YT_SCALAR, "output", e) < 0)
			return -1;
		if (perfbench_output_figure(out->scalar, r->figure, &r->measured) < 0 || !(r->measured > 0))
			return fs_fail_at(e, &out->mark, "output: no summary line of perf's (%s) with a positive figure",
					  r->figure == PERF_FIGURE_OPS_PER_SEC ? "Averaged N operations/sec"
									       : "... in N ms");
	}
	return 0;
}

static int read_measurements(struct fit *f, struct yt_doc *d, struct fs_error *e)
{
	static const char *const keys[] = { "machine", "runs", NULL };
	const struct yt_node *root = yt_load_file(d, f->path, e), *runs;
	const char *machine;

	if (!root || cfg_expect(root, YT_MAP, "measurements", e) < 0 ||
	    cfg_check_keys(root, "measurements", keys, e) < 0 || cfg_require(root, "runs", "measurements", e) < 0 ||
	    cfg_get_string(root, "machine", "", &machine, e) < 0)
		return -1;
	if (!f->machine) {
		if (!*machine)
			return fs_fail_at(e, &root->mark, "measurements: missing key 'machine' (or give --machine NAME)");
		f->machine = machine;
	}
	runs = yt_get(root, "runs");
	if (cfg_expect(runs, YT_SEQ, "runs", e) < 0)
		return -1;
	if (!runs->len)
		return fs_fail_at(e, &runs->mark, "runs: no run to fit to");
	if (runs->len > FIT_MAX_ROWS)
		return fs_fail_at(e, &runs->mark, "runs: %zu runs, at most %d", runs->len, FIT_MAX_ROWS);
	f->rows = calloc(runs->len, sizeof(*f->rows));
	if (!f->rows)
		return fs_fail(e, FS_ERR_LIMIT, "out of memory");
	for (size_t i = 0; i < runs->len; i++, f->nrows++)
		if (read_row(f, &f->rows[i], runs->items[i], e) < 0)
			return -1;
	return 0;
}

/* "202.5ns", "274.2 cycles", "1.3": the number and its unit. */
static int parse_value(const struct yt_node *n, const char *what, enum unit *unit, double *v, struct fs_error *e)
{
	char *end;

	if (cfg_expect(n, YT_SCALAR, what, e) < 0)
		return -1;
	*v = strtod(n->scalar, &end);
	while (*end == ' ')
		end++;
	if (end == n->scalar || !isfinite(*v))
		return fs_fail_at(e, &n->mark, "%s: '%.40s' is not a number", what, n->scalar);
	if (!*end)
		*unit = U_FACTOR;
	else if (!strcmp(end, "ns"))
		*unit = U_NS;
	else if (!strcmp(end, "cycles"))
		*unit = U_CYCLES;
	else
		return fs_fail_at(e, &n->mark, "%s: '%.40s': expected ns, cycles or a plain factor", what, n->scalar);
	return 0;
}

/* The parameters: those the machine file gives a range, centred on its value. */
static int read_params(struct fit *f, struct fs_error *e)
{
	const char *sets[FIT_MAX_SETS];
	struct scenario sc;
	const struct yt_node *m, *ranges, *costs;
	bool any_shared = false;
	size_t n = 0;
	int rc = -1;

	for (size_t i = 0; i < f->rows[0].sets.n; i++)
		sets[n++] = f->rows[0].sets.v[i];
	for (size_t i = 0; i < f->nrows; i++)
		any_shared |= f->rows[i].shared;
	if (scenario_load(&sc, "/dev/null", sets, n, e) < 0) {
		scenario_free(&sc);
		return -1;
	}
	m = yt_get(sc.resolved, "machine");
	snprintf(f->description, sizeof(f->description), "%s", sc.machine.description ? sc.machine.description : "");
	costs = yt_get(m, "costs");
	ranges = yt_get(yt_get(m, "uncertainty"), "costs");
	for (size_t k = 0; k < FIT_MAX_PARAMS; k++) {
		const struct param_def *def = &param_defs[k];
		const struct yt_node *range = yt_get(ranges, def->key), *cur = yt_get(costs, def->key);
		struct param *p = &f->params[f->np];
		enum unit ulo, uhi, ucur = def->unit;
		char what[96];

		if (def->unit == U_CYCLES && !any_shared)
			continue;
		if (!range && def->unit == U_CYCLES) {
			/* the kernel design's cost, which a machine file does not set: the
			 * calibration spec's bounds (analysis/calibration.yaml) [A] */
			p->lo = KEY_SHARED_MIN_CYCLES;
			p->hi = KEY_SHARED_MAX_CYCLES;
			ulo = uhi = U_CYCLES;
		} else if (!range) {
			continue;
		}
		snprintf(what, sizeof(what), "machine %s: uncertainty.costs.%s", f->machine, def->key);
		if (range && cfg_expect(range, YT_SEQ, what, e) < 0)
			goto out;
		if (range && (range->len != 2 || parse_value(range->items[0], what, &ulo, &p->lo, e) < 0 ||
			      parse_value(range->items[1], what, &uhi, &p->hi, e) < 0)) {
			if (range->len != 2)
				fs_fail_at(e, &range->mark, "%s: expected [MIN, MAX]", what);
			goto out;
		}
		if (ulo != def->unit || uhi != def->unit || !(p->lo < p->hi) || p->lo < 0) {
			fs_fail_at(e, &range->mark, "%s: expected [MIN, MAX] in %s, 0 <= MIN < MAX", what,
				   unit_names[def->unit]);
			goto out;
		}
		p->def = def;
		if (cur) {
			if (parse_value(cur, what, &ucur, &p->prior, e) < 0)
				goto out;
		} else if (def->unit == U_CYCLES) {
			/* the kernel design's, which a machine value replaces */
			struct fs_cost c = sc.kernel.costs[KC_KEY_SHARED];

			p->prior = c.unit == FS_COST_MILLICYCLES ? c.amount / 1000.0 : NAN;
		} else {
			p->prior = def->unit == U_FACTOR ? 1.0 : 0.0;
		}
		if (ucur != def->unit || !(p->prior >= p->lo && p->prior <= p->hi)) {
			fs_fail_at(e, cur ? &cur->mark : range ? &range->mark : &m->mark,
				   "machine %s: costs.%s must be in %s inside its uncertainty range to be fitted", f->machine,
				   def->key, unit_names[def->unit]);
			goto out;
		}
		p->value = p->prior;
		f->np++;
	}
	if (!f->np) {
		fs_fail(e, FS_ERR_INPUT,
			"%s: machine %s has no uncertainty range for any CPU-side cost (costs.syscall, call_return, "
			"core_clock, smt_slowdown, key_shared): nothing to fit",
			f->path, f->machine);
		goto out;
	}
	rc = 0;
out:
	scenario_free(&sc);
	return rc;
}

/* ---- simulating ------------------------------------------------------------- */

static double param_at(const struct param *p, double z)
{
	return p->lo + (p->hi - p->lo) * z;
}

static void format_param(char *buf, size_t size, const struct param *p, double v)
{
	switch (p->def->unit) {
	case U_NS:
		snprintf(buf, size, "%.3fns", v);
		break;
	case U_CYCLES:
		snprintf(buf, size, "%.3f cycles", v);
		break;
	case U_FACTOR:
		snprintf(buf, size, "%.3f", v);
		break;
	}
}

#define ROW_MAX_BUFS (8 + FIT_MAX_PARAMS)

/* The overrides of row r at parameters z into sets (FIT_MAX_SETS), their texts in bufs;
 * their number. */
static size_t row_sets(const struct fit *f, const struct row *r, const double *z, char (*bufs)[4300],
		       const char **sets)
{
	size_t n = 0, nb = 0;

	for (size_t i = 0; i < r->sets.n; i++)
		sets[n++] = r->sets.v[i];
	if (r->figure == PERF_FIGURE_OPS_PER_SEC) {
		snprintf(bufs[nb], sizeof(bufs[nb]), "run.duration=%s", f->duration), sets[n++] = bufs[nb++];
		snprintf(bufs[nb], sizeof(bufs[nb]), "run.warmup=%s", f->warmup), sets[n++] = bufs[nb++];
	}
	for (size_t k = 0; k < f->np; k++) {
		char v[64];

		format_param(v, sizeof(v), &f->params[k], param_at(&f->params[k], z[k]));
		snprintf(bufs[nb], sizeof(bufs[nb]), "machine.costs.%s=%s", f->params[k].def->key, v);
		sets[n++] = bufs[nb++];
	}
	return n;
}

/* The row's figure as perf prints it, at parameters z; negative on failure. */
static double simulate(const struct fit *f, const struct row *r, const double *z)
{
	char bufs[ROW_MAX_BUFS][4300], *text = NULL;
	const char *sets[FIT_MAX_SETS];
	size_t n = row_sets(f, r, z, bufs, sets), len = 0;
	struct fs_error e = { 0 };
	struct scenario sc;
	struct results res;
	struct sim s;
	double figure = -1;
	FILE *out;

	memset(&s, 0, sizeof(s));
	if (scenario_load(&sc, "/dev/null", sets, n, &e) == 0 && sim_build(&s, &sc, &e) == 0 && sim_run(&s, &e) == 0) {
		if (results_from_sim(&res, &s, 0, 0) == 0 && (out = open_memstream(&text, &len))) {
			results_print_perf(&res, 1, out);
			fclose(out);
			if (perfbench_output_figure(text, r->figure, &figure) < 0)
				figure = -1;
			free(text);
		}
		results_free(&res);
	}
	if (figure < 0)
		fprintf(stderr, "futexsim fit: %s:%u:%u: %s\n", r->at.file, r->at.line, r->at.col,
			e.msg[0] ? e.msg : "the simulation gave no figure");
	sim_free(&s);
	scenario_free(&sc);
	return figure;
}

/* The cache key of row r at z (its resolved scenario and the figure perf prints),
 * NULL when the scenario does not load (the run then says why). */
static char *row_key(const struct fit *f, const struct row *r, const double *z)
{
	char bufs[ROW_MAX_BUFS][4300];
	const char *sets[FIT_MAX_SETS];
	size_t n = row_sets(f, r, z, bufs, sets);
	struct fs_error e = { 0 };
	struct scenario sc;
	char figure[32], *text, *key = NULL;

	if (scenario_load(&sc, "/dev/null", sets, n, &e) == 0 && (text = yt_emit_string(sc.resolved))) {
		snprintf(figure, sizeof(figure), "perf figure %d", (int)r->figure);
		key = runcache_key(f->cache, figure, text);
		free(text);
	}
	scenario_free(&sc);
	return key;
}

static double batch_task(size_t i, void *ctx)
{
	const struct fit *f = ctx;

	return simulate(f, &f->rows[i % f->nrows], f->batch + (i / f->nrows) * f->np);
}

/* The rows' log errors at each of the nz parameter vectors of z into resid
 * (nz x nrows); a row at a vector already simulated is not simulated again. */
static int simulate_batch(struct fit *f, const double *z, size_t nz, double *resid, struct fs_error *e)
{
	size_t n = nz * f->nrows;
	double *fig = malloc(n * sizeof(*fig));
	char **keys = calloc(n ? n : 1, sizeof(*keys));
	unsigned misses = f->cache->misses;
	int rc;

	if (!fig || !keys) {
		free(fig), free(keys);
		return fs_fail(e, FS_ERR_LIMIT, "out of memory");
	}
	f->batch = z;
	for (size_t i = 0; i < n; i++)
		keys[i] = row_key(f, &f->rows[i % f->nrows], z + (i / f->nrows) * f->np);
	rc = runpool_map_cached(n, keys, batch_task, f, f->jobs, f->cache, fig, e);
	for (size_t i = 0; rc == 0 && i < n; i++)
		resid[i] = log(fig[i] / f->rows[i % f->nrows].measured);
	f->sims += f->cache->misses - misses;
	f->figures += (unsigned)n;
	for (size_t i = 0; i < n; i++)
		free(keys[i]);
	free(keys);
	free(fig);
	return rc;
}

/* ---- the fit -------------------------------------------------------------------- */

static double prior_sd_z(void)
{
	return 1.0 / sqrt(12.0);
}

static double loss_of(const struct fit *f, const double *z, const double *r)
{
	double l = 0, s = prior_sd_z();

	for (size_t i = 0; i < f->nrows; i++)
		l += (r[i] / FIT_ROW_SIGMA) * (r[i] / FIT_ROW_SIGMA);
	for (size_t k = 0; k < f->np; k++) {
		double d = (z[k] - (f->params[k].prior - f->params[k].lo) / (f->params[k].hi - f->params[k].lo)) / s;

		l += d * d;
	}
	return l;
}

/* Solves (A + lambda diag A) x = b, A symmetric positive definite (np x np). */
static int solve(size_t np, const double *a, double lambda, const double *b, double *x)
{
	gsl_matrix *m = gsl_matrix_alloc(np, np);
	gsl_vector *vb = gsl_vector_alloc(np), *vx = gsl_vector_alloc(np);
	int rc = -1;

	if (m && vb && vx) {
		for (size_t i = 0; i < np; i++) {
			for (size_t j = 0; j < np; j++)
				gsl_matrix_set(m, i, j, a[i * np + j] * (i == j ? 1 + lambda : 1));
			gsl_vector_set(vb, i, b[i]);
		}
		gsl_set_error_handler_off();
		if (gsl_linalg_cholesky_decomp1(m) == 0 && gsl_linalg_cholesky_solve(m, vb, vx) == 0) {
			for (size_t i = 0; i < np; i++)
				x[i] = gsl_vector_get(vx, i);
			rc = 0;
		}
	}
	gsl_matrix_free(m);
	gsl_vector_free(vb);
	gsl_vector_free(vx);
	return rc;
}

/* The normal matrix A = J'J / sigma^2 + I / prior^2 and gradient g at z (residuals r). */
static void normal_equations(const struct fit *f, const double *z, const double *r, const double *jac, double *a,
			     double *g)
{
	size_t np = f->np, nr = f->nrows;
	double s2 = prior_sd_z() * prior_sd_z(), w = 1.0 / (FIT_ROW_SIGMA * FIT_ROW_SIGMA);

	for (size_t i = 0; i < np; i++) {
		double z0 = (f->params[i].prior - f->params[i].lo) / (f->params[i].hi - f->params[i].lo);

		g[i] = (z[i] - z0) / s2;
		for (size_t k = 0; k < nr; k++)
			g[i] += w * jac[k * np + i] * r[k];
		for (size_t j = 0; j < np; j++) {
			a[i * np + j] = i == j ? 1.0 / s2 : 0;
			for (size_t k = 0; k < nr; k++)
				a[i * np + j] += w * jac[k * np + i] * jac[k * np + j];
		}
	}
}

static int run_fit(struct fit *f, struct fs_error *e)
{
	size_t np = f->np, nr = f->nrows;
	double z[FIT_MAX_PARAMS], zs[(FIT_MAX_PARAMS + 1) * FIT_MAX_PARAMS], a[FIT_MAX_PARAMS * FIT_MAX_PARAMS],
		g[FIT_MAX_PARAMS], h[FIT_MAX_PARAMS], lambda = 1e-2;
	double *r = calloc((np + 1) * nr, sizeof(*r)), *jac = calloc(nr * np, sizeof(*jac)), *rn = calloc(nr, sizeof(*rn));
	int rc = -1;

	if (!r || !jac || !rn) {
		fs_fail(e, FS_ERR_LIMIT, "out of memory");
		goto out;
	}
	for (size_t k = 0; k < np; k++)
		z[k] = (f->params[k].prior - f->params[k].lo) / (f->params[k].hi - f->params[k].lo);
	for (unsigned iter = 0;; iter++) {
		double loss;

		/* the residuals at z and at z stepped along each parameter, in one batch */
		memcpy(zs, z, np * sizeof(*z));
		for (size_t k = 0; k < np; k++) {
			memcpy(zs + (k + 1) * np, z, np * sizeof(*z));
			h[k] = z[k] + FIT_STEP <= 1 ? FIT_STEP : -FIT_STEP;
			zs[(k + 1) * np + k] += h[k];
		}
		if (simulate_batch(f, zs, np + 1, r, e) < 0)
			goto out;
		for (size_t i = 0; i < nr; i++)
			for (size_t k = 0; k < np; k++)
				jac[i * np + k] = (r[(k + 1) * nr + i] - r[i]) / h[k];
		loss = loss_of(f, z, r);
		for (size_t i = 0; i < nr; i++)
			f->rows[i].simulated = f->rows[i].measured * exp(r[i]);
		f->loss = loss;
		normal_equations(f, z, r, jac, a, g);
		if (!f->quiet) {
			fprintf(stderr, "futexsim fit: iteration %u: loss %.3f (%u simulations so far); rows", iter, loss,
				f->sims);
			for (size_t i = 0; i < nr; i++)
				fprintf(stderr, " %+.1f%%", 100 * (exp(r[i]) - 1));
			fprintf(stderr, "; at");
			for (size_t k = 0; k < np; k++)
				fprintf(stderr, " %s %.4g", f->params[k].def->key, param_at(&f->params[k], z[k]));
			fputc('\n', stderr);
		}
		if (iter == FIT_MAX_ITERS)
			break;
		/* a damped Gauss-Newton step, inside the bounds; more damping until it helps */
		bool better = false;

		for (int tries = 0; tries < FIT_MAX_TRIES && !better; tries++) {
			double step[FIT_MAX_PARAMS], zn[FIT_MAX_PARAMS], neg[FIT_MAX_PARAMS], moved = 0;

			for (size_t k = 0; k < np; k++)
				neg[k] = -g[k];
			if (solve(np, a, lambda, neg, step) < 0) {
				fs_fail(e, FS_ERR_RUNTIME, "the fit's normal equations are singular");
				goto out;
			}
			for (size_t k = 0; k < np; k++) {
				zn[k] = fmin(1, fmax(0, z[k] + step[k]));
				moved = fmax(moved, fabs(zn[k] - z[k]));
			}
			if (moved < 1e-3)
				break;
			if (simulate_batch(f, zn, 1, rn, e) < 0)
				goto out;
			if (!f->quiet)
				fprintf(stderr, "futexsim fit:   damping %.0e: loss %.3f\n", lambda, loss_of(f, zn, rn));
			if (loss_of(f, zn, rn) < loss - FIT_TOL) {
				memcpy(z, zn, sizeof(zn));
				lambda = fmax(lambda / 3, 1e-6);
				better = true;
			} else {
				lambda *= 10;
			}
		}
		if (!better)
			break;
	}
	/* the covariance in the parameters' units: D A^-1 D */
	for (size_t j = 0; j < np; j++) {
		double unit[FIT_MAX_PARAMS] = { 0 }, col[FIT_MAX_PARAMS];

		unit[j] = 1;
		if (solve(np, a, 0, unit, col) < 0) {
			fs_fail(e, FS_ERR_RUNTIME, "the fit's normal matrix is singular");
			goto out;
		}
		for (size_t i = 0; i < np; i++)
			f->cov[i * np + j] =
				col[i] * (f->params[i].hi - f->params[i].lo) * (f->params[j].hi - f->params[j].lo);
	}
	for (size_t k = 0; k < np; k++) {
		f->params[k].value = param_at(&f->params[k], z[k]);
		f->params[k].sd = sqrt(f->cov[k * np + k]);
	}
	rc = 0;
out:
	free(r);
	free(jac);
	free(rn);
	return rc;
}

/* ---- writing ------------------------------------------------------------------- */

static bool pinned(const struct param *p)
{
	return p->sd < FIT_PINNED * (p->hi - p->lo) * prior_sd_z();
}

static void write_machine(const struct fit *f, FILE *out)
{
	char when[32], v[64], lo[64], hi[64];
	time_t now = time(NULL);
	size_t np = f->np;

	strftime(when, sizeof(when), "%Y-%m-%d", gmtime(&now));
	fprintf(out, "# Generated by futexsim fit (futexsim %s, git %s) on %s from %s: do not edit;\n",
		FUTEXSIM_VERSION, futexsim_git_rev, when, f->path);
	fprintf(out, "# rerun `futexsim fit %s -o FILE` instead. The machine %s with its CPU-side costs\n", f->path,
		f->machine);
	fprintf(out, "# fitted to %zu run%s of its stock kernel ([F]: fitted to this machine's own rows; a value\n",
		f->nrows, f->nrows == 1 ? "" : "s");
	fprintf(out, "# fitted here is never carried to another machine). Line transfers are the machine's.\n");
	fprintf(out, "# Rows (perf's figure, measured and simulated at the fit; error = simulated / measured - 1):\n");
	for (size_t i = 0; i < f->nrows; i++) {
		const struct row *r = &f->rows[i];

		fprintf(out, "#   %s:%u  %s  cpus %s  kernel %s: %.6g vs %.6g (%+.1f%%)\n", r->at.file, r->at.line, r->perf,
			r->cpus, r->kernel, r->measured, r->simulated, 100 * (r->simulated / r->measured - 1));
	}
	fprintf(out, "# Loss %.3f (the rows' squared log errors in units of %.0f%% plus the priors'), %u simulations.\n",
		f->loss, 100 * FIT_ROW_SIGMA, f->figures); /* the same with or without --cache */
	fprintf(out, "# Parameters: fitted value +- 1 sigma; prior (the machine's value), range; what the rows say:\n");
	for (size_t k = 0; k < np; k++) {
		const struct param *p = &f->params[k];

		fprintf(out, "#   costs.%-13s %10.4g +- %-8.3g prior %.4g in [%.4g, %.4g] %s: %s\n", p->def->key, p->value,
			p->sd, p->prior, p->lo, p->hi, unit_names[p->def->unit],
			pinned(p) ? "pinned by the rows" : "not pinned: the rows cannot tell it from its prior");
	}
	for (size_t i = 0; i < np; i++)
		for (size_t j = i + 1; j < np; j++) {
			double rho = f->cov[i * np + j] / (f->params[i].sd * f->params[j].sd);

			if (fabs(rho) > FIT_CORR)
				fprintf(out, "#   costs.%s and costs.%s: correlation %+.2f, the rows cannot tell them apart "
					     "(only their combination is pinned)\n",
					f->params[i].def->key, f->params[j].def->key, rho);
		}
	fprintf(out, "name: %s\n", f->name);
	/* a record of what the fitted costs assume: the rows do not say */
	fprintf(out, "description: \"");
	for (const char *c = f->description; *c; c++)
		if (*c != '"' && *c != '\\' && (unsigned char)*c >= ' ')
			fputc(*c, out);
	fprintf(out, "; CPU-side costs fitted by futexsim fit to %zu stock-kernel rows\"\n", f->nrows);
	fprintf(out, "inherit: %s\n", f->machine);
	fprintf(out, "costs:\n");
	for (size_t k = 0; k < np; k++) {
		const struct param *p = &f->params[k];

		format_param(v, sizeof(v), p, p->value);
		format_param(lo, sizeof(lo), p, p->lo);
		format_param(hi, sizeof(hi), p, p->hi);
		fprintf(out, "  %s: %s  # [F] %s; +- %.3g (1 sigma), prior %.4g, range %s..%s; %s\n",
			p->def->key, v, p->def->what, p->sd, p->prior, lo, hi,
			pinned(p) ? "pinned by the rows" : "not pinned by the rows");
	}
	fprintf(out, "calibration:  # [F] the fit's linearised covariance, for futexsim run --band\n");
	fprintf(out, "  parameters: [");
	for (size_t k = 0; k < np; k++)
		fprintf(out, "%scosts.%s", k ? ", " : "", f->params[k].def->key);
	fprintf(out, "]  # [F]\n  units: [");
	for (size_t k = 0; k < np; k++)
		fprintf(out, "%s%s", k ? ", " : "", unit_names[f->params[k].def->unit]);
	fprintf(out, "]  # [F]\n  fitted: [");
	for (size_t k = 0; k < np; k++)
		fprintf(out, "%s%.6g", k ? ", " : "", f->params[k].value);
	fprintf(out, "]  # [F]\n  min: [");
	for (size_t k = 0; k < np; k++)
		fprintf(out, "%s%.6g", k ? ", " : "", f->params[k].lo);
	fprintf(out, "]  # [F]\n  max: [");
	for (size_t k = 0; k < np; k++)
		fprintf(out, "%s%.6g", k ? ", " : "", f->params[k].hi);
	fprintf(out, "]  # [F]\n  covariance:  # [F] in the units above, the parameters' order\n");
	for (size_t i = 0; i < np; i++) {
		fprintf(out, "    - [");
		for (size_t j = 0; j < np; j++)
			fprintf(out, "%s%.6g", j ? ", " : "", f->cov[i * np + j]);
		fprintf(out, "]\n");
	}
}

/* The same file as `b` (both exist): an output onto an input is refused. */
static bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

static int write_output(const struct fit *f, const char *path, struct fs_error *e)
{
	char tmp[4200];
	FILE *out;

	snprintf(tmp, sizeof(tmp), "%s.tmp-%ld", path, (long)getpid());
	if (!(out = fopen(tmp, "wx")))
		return fs_fail(e, FS_ERR_OUTPUT, "cannot write %s: %s", tmp, strerror(errno));
	write_machine(f, out);
	if (ferror(out) | (fclose(out) != 0) || rename(tmp, path) != 0) {
		int err = errno;

		unlink(tmp);
		return fs_fail(e, FS_ERR_OUTPUT, "cannot write %s: %s", path, strerror(err));
	}
	return 0;
}

/* ---- the command ---------------------------------------------------------------- */

int fit_file(const struct fit_request *req, struct fs_error *e)
{
	struct fit f = { .path = req->measurements, .machine = req->machine, .name = req->name,
			 .duration = req->duration ? req->duration : "1ms", .warmup = req->warmup ? req->warmup : "500us",
			 .jobs = req->jobs, .quiet = req->quiet };
	char name[256];
	struct yt_doc *d = NULL;
	struct timespec t0, t1;
	struct runcache cache;
	const char *why;
	int rc = -1;

	if (same_file(req->output, f.path))
		return fs_fail(e, FS_ERR_USAGE, "-o %s is the measurements file: refused", req->output);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (runcache_open(&cache, futexsim_git_rev, req->cache_dir, &why, e) < 0)
		return -1;
	if (*why)
		fprintf(stderr, "futexsim fit: --cache %s not used: %s\n", req->cache_dir, why);
	f.cache = &cache;
	if (!(d = yt_doc_new()))
		return fs_fail(e, FS_ERR_RUNTIME, "out of memory");
	if (read_measurements(&f, d, e) < 0 || read_params(&f, e) < 0) {
		if (!e->status)
			e->status = FS_ERR_INPUT;
		goto out;
	}
	if ((strchr(f.machine, '/') || strstr(f.machine, ".yaml")) && same_file(req->output, f.machine)) {
		fs_fail(e, FS_ERR_USAGE, "-o %s is the machine file the fit reads: refused", req->output);
		goto out;
	}
	if (!f.name) {
		const char *base = strrchr(f.machine, '/') ? strrchr(f.machine, '/') + 1 : f.machine;
		size_t len = strlen(base);

		if (len > 5 && !strcmp(base + len - 5, ".yaml"))
			len -= 5;
		snprintf(name, sizeof(name), "%.*s-fit", (int)len, base);
		f.name = name;
	}
	if (!f.quiet)
		fprintf(stderr, "futexsim fit: %zu rows, %zu parameters, %s windows, %u simulations at once\n", f.nrows,
			f.np, f.duration, f.jobs ? f.jobs : runpool_default_jobs());
	if (run_fit(&f, e) < 0)
		goto out;
	if (write_output(&f, req->output, e) < 0) {
		e->status = FS_ERR_OUTPUT;
		goto out;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (req->report)
		write_machine(&f, req->report);
	if (!f.quiet)
		fprintf(stderr, "futexsim fit: wrote %s (%u simulations, %u reused, %.1f s)\n", req->output, f.sims,
			cache.hits + cache.disk_hits, (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	rc = 0;
out:
	free(f.rows);
	yt_doc_free(d);
	runcache_close(&cache);
	return rc;
}

int fit_command(int argc, char **argv)
{
	struct fit_request req = { .report = stdout };
	struct fs_error e = { 0 };

	for (int i = 2; i < argc; i++) {
		const char *a = argv[i];
		const char **val = !strcmp(a, "-o")	    ? &req.output
				   : !strcmp(a, "--machine")  ? &req.machine
				   : !strcmp(a, "--name")     ? &req.name
				   : !strcmp(a, "--duration") ? &req.duration
				   : !strcmp(a, "--warmup")   ? &req.warmup
				   : !strcmp(a, "--cache")    ? &req.cache_dir
							      : NULL;

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(fit_usage, stdout);
			return FS_OK;
		}
		if (!strcmp(a, "--quiet")) {
			req.quiet = true;
		} else if (!strcmp(a, "-j")) {
			char *end = NULL;
			long j = i + 1 < argc ? strtol(argv[++i], &end, 10) : 0;

			if (j < 1 || j > 64 || !end || *end) {
				fprintf(stderr, "futexsim fit: -j needs a number of simulations from 1 to 64\n");
				return FS_ERR_USAGE;
			}
			req.jobs = (unsigned)j;
		} else if (val) {
			if (i + 1 >= argc || !*argv[i + 1]) {
				fprintf(stderr, "futexsim fit: %s needs a value\n", a);
				return FS_ERR_USAGE;
			}
			*val = argv[++i];
		} else if (a[0] == '-' || req.measurements) {
			fprintf(stderr, "futexsim fit: unexpected argument '%s'\n%s", a, fit_usage);
			return FS_ERR_USAGE;
		} else {
			req.measurements = a;
		}
	}
	if (!req.measurements || !req.output) {
		fprintf(stderr, "futexsim fit: needs MEASUREMENTS.yaml and -o MACHINE.yaml\n%s", fit_usage);
		return FS_ERR_USAGE;
	}
	if (fit_file(&req, &e) < 0) {
		fprintf(stderr, "futexsim fit: %s\n", e.msg);
		return e.status ? e.status : FS_ERR_RUNTIME;
	}
	return FS_OK;
}
