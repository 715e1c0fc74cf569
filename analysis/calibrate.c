/* SPDX-License-Identifier: MIT */
/* futexsim-calibrate: fits hardware and kernel cost parameters to the published
 * measurements, in the open.
 *
 * Reads a spec (analysis/calibration.yaml): which points (tables of
 * analysis/validation-points.tsv), which parameters (a --set path, unit, start
 * value and bounds each, and the config file the fitted value belongs to), and
 * the loss. Minimises the loss with GSL's Nelder-Mead simplex (nmsimplex2) over
 * bounded parameters mapped to the real line by a logistic transform, then writes
 * the fitted values with their provenance (date, version, loss before and after,
 * bounds, hardware figure) into the generated config files named in the spec.
 *
 * Loss: for each table, the mean over its points of |ln(simulated / published)|;
 * the tables' means are averaged, so each published table weighs the same and an
 * outlier point pulls linearly, not quadratically.
 *
 * After the fit: the loss profile along each parameter, and from the same runs the
 * linearised covariance of the parameters (covariance()), written with the fitted
 * machine costs as the config's `calibration:` block, which `futexsim run --band`
 * reads. --from-outputs skips the fit: the values in the output files are taken as
 * the fit, and only their calibration blocks are rewritten.
 */
#include <errno.h>
#include <gsl/gsl_multifit_nlinear.h>
#include <gsl/gsl_multimin.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "analysis/points.h"
#include "sim/revision.h"
#include "sim/core/config.h"
#include "sim/core/yamltree.h"
#include "sim/scenario.h"

#define MAX_PARAMS 16
#define MAX_LIST 32
#define MAX_OUTPUTS 4

enum unit { UNIT_NS, UNIT_CYCLES, UNIT_FACTOR };
static const char *const unit_names[] = { "ns", "cycles", "factor", NULL };

struct param {
	const char *set;        /* --set path, e.g. machine.costs.transfer_node */
	const char *file_key;   /* the key written in the output file, e.g. costs.transfer_node */
	unsigned outputs;       /* bitmask over spec.outputs: the files the value is written to */
	enum unit unit;
	double initial, min, max, value;
	const char *source;     /* what the hardware reference says, for the comment */
};

struct output {
	const char *id;         /* how parameters refer to it */
	const char *file, *name, *inherit, *description;
};

struct spec {
	const char *points;
	const char *tables[MAX_LIST + 1];
	const char *series[MAX_LIST + 1]; /* only these series of the tables (none: all) */
	const char *fixed[MAX_LIST];  /* overrides for every point (duration, base configs) */
	size_t nfixed;
	struct param params[MAX_PARAMS];
	size_t nparams;
	struct output outputs[MAX_OUTPUTS];
	size_t noutputs;
	unsigned max_evals;
	uint64_t min_x;         /* only points with x >= min_x */
};

struct fit {
	struct spec *spec;
	struct points pts;
	unsigned jobs;
	unsigned evals;
	double best_loss;
	double best[MAX_PARAMS];
	int failed;
	/* the loss profile around the fit: the loss with parameter i moved by
	 * PROFILE_STEP of its range down (lo) and up (hi), the others at the fit */
	int profiled;
	double prof_lo[MAX_PARAMS], prof_hi[MAX_PARAMS];
	/* residuals ln(simulated / published), one per point: of the last evaluation,
	 * at the best fit, and at the profile's ends, which were at values at_lo, at_hi */
	double *resid, *best_resid, *resid_lo[MAX_PARAMS], *resid_hi[MAX_PARAMS];
	double *center_resid, center[MAX_PARAMS], center_loss; /* at the profile's centre */
	double at_lo[MAX_PARAMS], at_hi[MAX_PARAMS];
	/* the parameters' covariance, nparams x nparams, in their units (covariance()) */
	int have_cov;
	double cov[MAX_PARAMS * MAX_PARAMS];
};

/* A parameter is pinned by the data when moving it by this fraction of its
 * range either way raises the loss by more than PINNED_LOSS (0.3% in mean
 * |ln(simulated/published)|, well above the loss's steps between nearby
 * parameter values); otherwise the data cannot tell its value apart from its
 * neighbours' and its source, not the fit, is what stands behind it. */
#define PROFILE_STEP 0.1
#define PROFILE_ROUNDS 12 /* profiles after the simplex, at most (each 2 evaluations per parameter) */
#define PINNED_LOSS 0.003

static const char usage[] =
	"usage: futexsim-calibrate [--spec FILE] [-j N] [--max-evals N] [--dry-run | --from-outputs]\n"
	"                          [--cache DIR]\n"
	"\n"
	"Fits the parameters listed in the spec (default analysis/calibration.yaml; it and\n"
	"the files it names are read here, else in the installed or source tree) to the\n"
	"published points (a Nelder-Mead simplex, then profiles of the loss along each\n"
	"parameter until no step lowers it) and writes the fitted values, with their\n"
	"provenance, the loss profile and the parameters' covariance, into the config files\n"
	"the spec names. --max-evals bounds the simplex's evaluations.\n"
	"--dry-run evaluates the loss at the start values only. --from-outputs takes the\n"
	"values in the output files as the fit: profiles them and rewrites only the files'\n"
	"calibration blocks (the covariance that futexsim run --band uses).\n"
	"--cache DIR keeps each simulated point's figure in DIR (keyed by the revision and\n"
	"the point's resolved scenario) and reuses what DIR holds; a point is never simulated\n"
	"twice in one run in any case.\n"
	"\n"
	"Examples:\n"
	"  $ futexsim-calibrate --dry-run --spec analysis/calibration-hash.yaml\n";

/* ---- the spec ---- */

static int read_list(const struct yt_node *map, const char *key, const char **out, size_t max, size_t *n,
		     struct fs_error *e)
{
	const struct yt_node *l = yt_get(map, key);

	*n = 0;
	if (!l)
		return 0;
	if (cfg_expect(l, YT_SEQ, key, e) < 0)
		return -1;
	for (size_t i = 0; i < l->len; i++) {
		if (*n == max)
			return fs_fail_at(e, &l->mark, "%s: more than %zu entries", key, max);
		if (cfg_parse_string(l->items[i], key, &out[(*n)++], e) < 0)
			return -1;
	}
	return 0;
}

static int read_param(struct spec *s, const struct yt_node *n, struct fs_error *e)
{
	static const char *const keys[] = { "set", "outputs", "unit", "initial", "min", "max", "source", NULL };
	struct param *p = &s->params[s->nparams];
	const char *outputs[MAX_OUTPUTS], *dot;
	size_t nout;
	uint64_t v[3];
	int unit;

	if (s->nparams == MAX_PARAMS)
		return fs_fail_at(e, &n->mark, "more than %d parameters", MAX_PARAMS);
	if (cfg_expect(n, YT_MAP, "parameter", e) < 0 || cfg_check_keys(n, "parameter", keys, e) < 0 ||
	    cfg_require(n, "set", "parameter", e) < 0 || cfg_require(n, "outputs", "parameter", e) < 0 ||
	    cfg_get_string(n, "set", "", &p->set, e) < 0 || read_list(n, "outputs", outputs, MAX_OUTPUTS, &nout, e) < 0 ||
	    cfg_get_enum(n, "unit", unit_names, UNIT_NS, &unit, e) < 0 ||
	    cfg_get_string(n, "source", "", &p->source, e) < 0 ||
	    cfg_get_fixed3(n, "initial", 1000, 0, UINT64_MAX / 2, &v[0], e) < 0 ||
	    cfg_get_fixed3(n, "min", 0, 0, UINT64_MAX / 2, &v[1], e) < 0 ||
	    cfg_get_fixed3(n, "max", 1000000, 0, UINT64_MAX / 2, &v[2], e) < 0)
		return -1;
	p->unit = (enum unit)unit;
	p->initial = v[0] / 1000.0;
	p->min = v[1] / 1000.0;
	p->max = v[2] / 1000.0;
	if (!(p->min < p->max) || p->initial < p->min || p->initial > p->max)
		return fs_fail_at(e, &n->mark, "parameter %s: need min < max and min <= initial <= max", p->set);
	p->outputs = 0;
	for (size_t k = 0; k < nout; k++) {
		size_t i;

		for (i = 0; i < s->noutputs && strcmp(s->outputs[i].id, outputs[k]); i++)
			;
		if (i == s->noutputs)
			return fs_fail_at(e, &n->mark, "parameter %s: unknown output '%s'", p->set, outputs[k]);
		p->outputs |= 1u << i;
	}
	dot = strchr(p->set, '.');
	p->file_key = dot ? dot + 1 : p->set;
	s->nparams++;
	return 0;
}

/* PATH (relative to the data directory) as futexsim_data_file finds it, kept in D. */
static const char *data_path(struct yt_doc *d, const char *path)
{
	char buf[4096];
	const char *found = futexsim_data_file(path, buf, sizeof(buf));
	const struct yt_node *n = found == path ? NULL : yt_new_scalar(d, found, false, (struct fs_mark){ 0 });

	return n ? n->scalar : path;
}

static int read_spec(struct spec *s, struct yt_doc *d, const char *path, struct fs_error *e)
{
	static const char *const keys[] = { "points", "tables", "series", "min_x", "fixed", "max_evals",
					    "outputs", "parameters", NULL };
	static const char *const out_keys[] = { "id", "name", "file", "inherit", "description", NULL };
	const struct yt_node *root = yt_load_file(d, data_path(d, path), e), *outs, *params;
	size_t n;
	uint64_t max_evals;

	memset(s, 0, sizeof(*s));
	if (!root || cfg_expect(root, YT_MAP, "calibration spec", e) < 0 ||
	    cfg_check_keys(root, "calibration spec", keys, e) < 0 ||
	    cfg_get_string(root, "points", "analysis/validation-points.tsv", &s->points, e) < 0 ||
	    read_list(root, "tables", s->tables, MAX_LIST, &n, e) < 0 ||
	    read_list(root, "series", s->series, MAX_LIST, &n, e) < 0 ||
	    read_list(root, "fixed", s->fixed, MAX_LIST, &s->nfixed, e) < 0 ||
	    cfg_get_u64(root, "max_evals", 200, 1, 100000, &max_evals, e) < 0 ||
	    cfg_get_u64(root, "min_x", 0, 0, UINT64_MAX, &s->min_x, e) < 0 ||
	    cfg_require(root, "outputs", "calibration spec", e) < 0 ||
	    cfg_require(root, "parameters", "calibration spec", e) < 0)
		return -1;
	s->max_evals = (unsigned)max_evals;
	outs = yt_get(root, "outputs");
	if (cfg_expect(outs, YT_SEQ, "outputs", e) < 0)
		return -1;
	if (outs->len > MAX_OUTPUTS)
		return fs_fail_at(e, &outs->mark, "outputs: more than %d entries", MAX_OUTPUTS);
	for (size_t i = 0; i < outs->len; i++) {
		struct output *o = &s->outputs[s->noutputs++];
		const struct yt_node *on = outs->items[i];

		if (cfg_expect(on, YT_MAP, "output", e) < 0 || cfg_check_keys(on, "output", out_keys, e) < 0 ||
		    cfg_get_string(on, "id", "", &o->id, e) < 0 || cfg_get_string(on, "name", "", &o->name, e) < 0 || cfg_get_string(on, "file", "", &o->file, e) < 0 ||
		    cfg_get_string(on, "inherit", "", &o->inherit, e) < 0 ||
		    cfg_get_string(on, "description", "", &o->description, e) < 0)
			return -1;
		o->file = data_path(d, o->file); /* the data directory's when not here */
	}
	params = yt_get(root, "parameters");
	if (cfg_expect(params, YT_SEQ, "parameters", e) < 0)
		return -1;
	for (size_t i = 0; i < params->len; i++)
		if (read_param(s, params->items[i], e) < 0)
			return -1;
	return 0;
}

/* ---- the loss ---- */

static double to_param(const struct param *p, double u)
{
	return p->min + (p->max - p->min) / (1.0 + exp(-u));
}

static double to_free(const struct param *p, double v)
{
	double f = (v - p->min) / (p->max - p->min);

	f = f < 1e-6 ? 1e-6 : f > 1 - 1e-6 ? 1 - 1e-6 : f;
	return log(f / (1 - f));
}

static void format_value(const struct param *p, double v, char *buf, size_t len)
{
	switch (p->unit) {
	case UNIT_NS:
		snprintf(buf, len, "%.3fns", v);
		break;
	case UNIT_CYCLES:
		snprintf(buf, len, "%.1f cycles", v);
		break;
	default:
		snprintf(buf, len, "%.3f", v);
	}
}

static double loss_of_points(const struct points *pts)
{
	const char *tables[MAX_LIST];
	size_t nt = points_tables(pts, tables, MAX_LIST);
	double total = 0;

	for (size_t t = 0; t < nt; t++) {
		double sum = 0;
		size_t count = 0;

		for (size_t i = 0; i < pts->n; i++)
			if (!strcmp(pts->v[i].table, tables[t])) {
				sum += fabs(log(pts->v[i].simulated / pts->v[i].published));
				count++;
			}
		total += sum / (double)count;
	}
	return nt ? total / (double)nt : 0;
}

static double evaluate(struct fit *f, const double *values)
{
	char bufs[MAX_PARAMS][160];
	const char *sets[MAX_LIST + MAX_PARAMS];
	size_t n = 0;
	struct fs_error e = { 0 };
	double loss;

	for (size_t i = 0; i < f->spec->nfixed; i++)
		sets[n++] = f->spec->fixed[i];
	for (size_t i = 0; i < f->spec->nparams; i++) {
		const struct param *p = &f->spec->params[i];
		char v[64];

		format_value(p, values[i], v, sizeof(v));
		snprintf(bufs[i], sizeof(bufs[i]), "%s=%s", p->set, v);
		sets[n++] = bufs[i];
	}
	if (points_run(&f->pts, sets, n, f->jobs, &e) < 0) {
		fprintf(stderr, "futexsim-calibrate: %s\n", e.msg);
		f->failed = 1;
		return 1e9;
	}
	loss = loss_of_points(&f->pts);
	for (size_t i = 0; i < f->pts.n; i++)
		f->resid[i] = log(f->pts.v[i].simulated / f->pts.v[i].published);
	f->evals++;
	printf("eval %3u  loss %.5f ", f->evals, loss);
	for (size_t i = 0; i < f->spec->nparams; i++)
		printf(" %.4g", values[i]);
	printf("\n");
	fflush(stdout);
	if (loss < f->best_loss) {
		f->best_loss = loss;
		memcpy(f->best, values, f->spec->nparams * sizeof(double));
		memcpy(f->best_resid, f->resid, f->pts.n * sizeof(double));
	}
	return loss;
}

static double gsl_loss(const gsl_vector *u, void *ctx)
{
	struct fit *f = ctx;
	double values[MAX_PARAMS];

	for (size_t i = 0; i < f->spec->nparams; i++)
		values[i] = to_param(&f->spec->params[i], gsl_vector_get(u, i));
	return evaluate(f, values);
}

/* Evaluates the loss along each parameter around the best fit (2 evaluations
 * per parameter); a lower loss found on the way becomes the best. */
static void profile(struct fit *f)
{
	const struct spec *s = f->spec;
	double at[MAX_PARAMS], base = f->best_loss;

	memcpy(at, f->best, s->nparams * sizeof(double));
	memcpy(f->center, f->best, s->nparams * sizeof(double));
	f->center_loss = base;
	memcpy(f->center_resid, f->best_resid, f->pts.n * sizeof(double));
	for (size_t i = 0; i < s->nparams && !f->failed; i++) {
		const struct param *p = &s->params[i];
		double step = PROFILE_STEP * (p->max - p->min), v = at[i];

		at[i] = f->at_lo[i] = v - step < p->min ? p->min : v - step;
		f->prof_lo[i] = evaluate(f, at) - base;
		memcpy(f->resid_lo[i], f->resid, f->pts.n * sizeof(double));
		at[i] = f->at_hi[i] = v + step > p->max ? p->max : v + step;
		f->prof_hi[i] = evaluate(f, at) - base;
		memcpy(f->resid_hi[i], f->resid, f->pts.n * sizeof(double));
		at[i] = v;
	}
	f->profiled = !f->failed;
}

/* The parameters' covariance, linearised at the fit: s^2 (J^T J)^-1, where J is
 * the residuals' Jacobian by central differences over the profile's steps and s^2
 * the residuals' variance at the fit (sum of squares / (points - parameters)); J
 * in units of each parameter's range, so QR's rank test (GSL) compares like with
 * like. A parameter the data cannot tell (a column of J it drops, or a variance
 * wider than its range allows) gets at most the variance of a uniform spread over
 * its published range, (max - min)^2 / 12: the range bounds what we know. The
 * loss is L1 and per table, this is least squares over points: an approximation
 * for the band, not the fit's own error model. */
static int covariance(struct fit *f)
{
	const struct spec *s = f->spec;
	size_t n = f->pts.n, np = s->nparams;
	gsl_matrix *jac = gsl_matrix_alloc(n, np), *cov = gsl_matrix_alloc(np, np);
	double rss = 0, s2, range[MAX_PARAMS], scale[MAX_PARAMS];

	if (!jac || !cov || n <= np) {
		gsl_matrix_free(jac);
		gsl_matrix_free(cov);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		rss += f->center_resid[i] * f->center_resid[i];
	s2 = rss / (double)(n - np);
	for (size_t j = 0; j < np; j++) {
		double dv;

		range[j] = s->params[j].max - s->params[j].min;
		dv = (f->at_hi[j] - f->at_lo[j]) / range[j];
		for (size_t i = 0; i < n; i++)
			gsl_matrix_set(jac, i, j, dv > 0 ? (f->resid_hi[j][i] - f->resid_lo[j][i]) / dv : 0.0);
	}
	gsl_multifit_nlinear_covar(jac, 1e-6, cov);
	for (size_t j = 0; j < np; j++) {
		double var = gsl_matrix_get(cov, j, j) * s2, cap = 1.0 / 12; /* in range units */

		scale[j] = var <= 0 ? 0 : var > cap ? sqrt(cap / var) : 1;
	}
	for (size_t j = 0; j < np; j++)
		for (size_t k = 0; k < np; k++) {
			double c = gsl_matrix_get(cov, j, k) * s2 * scale[j] * scale[k];

			if (j == k && scale[j] == 0)
				c = 1.0 / 12; /* dropped: uniform over the range, uncorrelated */
			f->cov[j * np + k] = c * range[j] * range[k];
		}
	f->have_cov = 1;
	gsl_matrix_free(jac);
	gsl_matrix_free(cov);
	return 0;
}

/* The `calibration:` block of output `o`: the machine parameters it holds, their
 * fitted values, bounds and covariance (docs/machine.md; futexsim run --band). */
static void write_calibration(FILE *out, const struct spec *s, const struct output *o, const struct fit *f)
{
	size_t idx[MAX_PARAMS], n = 0;
	const char *names[] = { "parameters", "units", "fitted", "min", "max" };

	for (size_t i = 0; i < s->nparams; i++)
		if ((s->params[i].outputs & (1u << (o - s->outputs))) && !strncmp(s->params[i].set, "machine.", 8))
			idx[n++] = i;
	if (!n || !f->have_cov)
		return;
	fprintf(out, "calibration:  # [F] the fit's linearised covariance, for futexsim run --band (docs/calibration.md)\n");
	for (size_t row = 0; row < 5; row++) {
		fprintf(out, "  %s: [", names[row]);
		for (size_t k = 0; k < n; k++) {
			const struct param *p = &s->params[idx[k]];
			double v[] = { 0, 0, f->center[idx[k]], p->min, p->max };

			if (k)
				fputs(", ", out);
			if (row == 0)
				fputs(p->file_key, out);
			else if (row == 1)
				fputs(unit_names[p->unit], out);
			else
				fprintf(out, "%.6g", v[row]);
		}
		fprintf(out, "]  # [F]\n");
	}
	fprintf(out, "  covariance:  # [F] in the units above, the parameters' order\n");
	for (size_t j = 0; j < n; j++) {
		fputs("    - [", out);
		for (size_t k = 0; k < n; k++)
			fprintf(out, "%s%.6g", k ? ", " : "", f->cov[idx[j] * s->nparams + idx[k]]);
		fputs("]\n", out);
	}
}

static bool pinned(const struct fit *f, size_t i)
{
	return f->prof_lo[i] > PINNED_LOSS && f->prof_hi[i] > PINNED_LOSS;
}

/* ---- output ---- */

static int write_output(const struct spec *s, const struct output *o, const struct fit *f, double initial_loss,
			const char *spec_path)
{
	char tmp[4096], stamp[64];
	time_t now = time(NULL);
	FILE *out;

	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%MZ", gmtime(&now));
	snprintf(tmp, sizeof(tmp), "%s.tmp", o->file);
	out = fopen(tmp, "w");
	if (!out)
		return -1;
	fprintf(out, "# GENERATED by bin/futexsim-calibrate from %s on %s (futexsim %s, git %s).\n", spec_path, stamp,
		FUTEXSIM_VERSION, futexsim_git_rev);
	fprintf(out, "# Fitted to %zu published points (%s), each run with:", f->pts.n, s->points);
	for (size_t i = 0; i < s->nfixed; i++)
		fprintf(out, " %s", s->fixed[i]);
	fprintf(out, "\n# Loss (mean over tables of mean |ln(simulated/published)|): %.4f at the start values,\n"
		     "# %.4f fitted, after %u evaluations (Nelder-Mead, GSL nmsimplex2, then the profiles).\n",
		initial_loss, f->center_loss, f->evals);
	if (f->profiled) {
		fprintf(out, "# Loss profile (the loss with one parameter moved by %.0f%% of its range down / up):\n",
			100 * PROFILE_STEP);
		for (size_t i = 0; i < s->nparams; i++)
			if (s->params[i].outputs & (1u << (o - s->outputs)))
				fprintf(out, "#   %-32s %+.4f / %+.4f  %s\n", s->params[i].file_key, f->prof_lo[i],
					f->prof_hi[i], pinned(f, i) ? "pinned by the data" : "NOT pinned: the data cannot tell");
	}
	fprintf(out, "# Do not edit: change the spec and run `make calibrate`. [F] = fitted.\n");
	fprintf(out, "name: %s\n", o->name);
	if (*o->description)
		fprintf(out, "description: \"%s\"\n", o->description);
	if (*o->inherit)
		fprintf(out, "inherit: %s\n", o->inherit);
	/* parameters grouped by their first key component (costs.x -> costs:) */
	const char *group = NULL;

	for (size_t i = 0; i < s->nparams; i++) {
		const struct param *p = &s->params[i];
		const char *dot = strchr(p->file_key, '.');
		size_t glen = dot ? (size_t)(dot - p->file_key) : 0;
		const struct output *first;
		char v[64], init[64], lo[64], hi[64];

		if (!(p->outputs & (1u << (o - s->outputs))))
			continue;
		if (!group || strncmp(group, p->file_key, glen) != 0 || group[glen] != '.') {
			fprintf(out, "%.*s:\n", (int)glen, p->file_key);
			group = p->file_key;
		}
		format_value(p, f->best[i], v, sizeof(v));
		format_value(p, p->initial, init, sizeof(init));
		format_value(p, p->min, lo, sizeof(lo));
		format_value(p, p->max, hi, sizeof(hi));
		/* the first output a parameter names is where it was fitted */
		first = &s->outputs[__builtin_ctz(p->outputs)];
		fprintf(out, "  %s: %s  # [F", dot ? dot + 1 : p->file_key, v);
		if (first != o)
			fprintf(out, " on %s, carried over", first->name);
		fprintf(out, "] start %s, bounds %s..%s%s%s\n", init, lo, hi, *p->source ? "; " : "", p->source);
	}
	write_calibration(out, s, o, f);
	if (fclose(out) != 0 || rename(tmp, o->file) < 0)
		return -1;
	return 0;
}

/* The value of `p` in the first output file that holds it (where it was fitted):
 * the number its scalar starts with ("197.947ns", "17.5 cycles", "1.546"). */
static int value_in_output(const struct spec *s, const struct param *p, double *out, struct fs_error *e)
{
	const struct output *o = &s->outputs[__builtin_ctz(p->outputs)];
	struct yt_doc *d = yt_doc_new();
	const struct yt_node *n;
	char key[256], *part, *save = NULL, *end;
	int rc = -1;

	if (!d)
		return fs_fail(e, FS_ERR_LIMIT, "out of memory");
	n = yt_load_file(d, o->file, e);
	snprintf(key, sizeof(key), "%s", p->file_key);
	for (part = strtok_r(key, ".", &save); n && part; part = strtok_r(NULL, ".", &save))
		n = yt_get(n, part);
	if (!e->status) {
		if (!n || n->kind != YT_SCALAR)
			fs_fail(e, FS_ERR_INPUT, "%s: no value for %s (run make calibrate to fit it)", o->file, p->file_key);
		else if ((*out = strtod(n->scalar, &end)), end == n->scalar)
			fs_fail_at(e, &n->mark, "%s: '%s' is not a number", p->file_key, n->scalar);
		else
			rc = 0;
	}
	yt_doc_free(d);
	return rc;
}

/* Rewrites the calibration block at the end of output `o`'s file (written last
 * by write_output, so everything from its first line on is replaced). */
static int rewrite_calibration(const struct spec *s, const struct output *o, const struct fit *f)
{
	char tmp[4096], line[8192];
	FILE *in = fopen(o->file, "r"), *out;

	if (!in)
		return -1;
	snprintf(tmp, sizeof(tmp), "%s.tmp", o->file);
	out = fopen(tmp, "w");
	if (!out) {
		fclose(in);
		return -1;
	}
	while (fgets(line, sizeof(line), in) && strncmp(line, "calibration:", 12) != 0)
		fputs(line, out);
	fclose(in);
	write_calibration(out, s, o, f);
	if (fclose(out) != 0 || rename(tmp, o->file) < 0)
		return -1;
	return 0;
}

int main(int argc, char **argv)
{
	const char *spec_path = "analysis/calibration.yaml", *cache_dir = NULL, *why;
	struct runcache cache;
	long jobs = sysconf(_SC_NPROCESSORS_ONLN);
	long max_evals = 0;
	int dry_run = 0, from_outputs = 0;
	struct fs_error e = { 0 };
	struct yt_doc *doc;
	struct spec spec;
	struct fit f = { 0 };
	double start[MAX_PARAMS], initial_loss;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--spec") && i + 1 < argc)
			spec_path = argv[++i];
		else if (!strcmp(argv[i], "-j") && i + 1 < argc)
			jobs = atol(argv[++i]);
		else if (!strcmp(argv[i], "--cache") && i + 1 < argc)
			cache_dir = argv[++i];
		else if (!strcmp(argv[i], "--max-evals") && i + 1 < argc)
			max_evals = atol(argv[++i]);
		else if (!strcmp(argv[i], "--dry-run"))
			dry_run = 1;
		else if (!strcmp(argv[i], "--from-outputs"))
			from_outputs = 1;
		else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			fputs(usage, stdout);
			return 0;
		} else {
			fprintf(stderr, "futexsim-calibrate: bad argument '%s'\n%s", argv[i], usage);
			return 2;
		}
	}
	if (runcache_open(&cache, futexsim_git_rev, cache_dir, &why, &e) < 0) {
		fprintf(stderr, "futexsim-calibrate: %s\n", e.msg);
		return e.status ? e.status : 2;
	}
	if (*why)
		fprintf(stderr, "futexsim-calibrate: --cache %s not used: %s\n", cache_dir, why);
	doc = yt_doc_new(); /* after the options: --help and a bad option leave nothing to free */
	if (!doc || read_spec(&spec, doc, spec_path, &e) < 0 ||
	    points_load(&f.pts, spec.points, spec.tables[0] ? spec.tables : NULL, spec.series[0] ? spec.series : NULL,
			&e) < 0) {
		fprintf(stderr, "futexsim-calibrate: %s\n", e.msg);
		return e.status ? e.status : 1;
	}
	f.pts.cache = &cache;
	if (max_evals > 0)
		spec.max_evals = (unsigned)max_evals;
	{
		size_t kept = 0;

		for (size_t i = 0; i < f.pts.n; i++)
			if (f.pts.v[i].x >= spec.min_x)
				f.pts.v[kept++] = f.pts.v[i];
			else
				point_clear(&f.pts.v[i]);
		f.pts.n = kept;
	}
	f.spec = &spec;
	f.jobs = jobs > 0 ? (unsigned)jobs : 1;
	f.best_loss = INFINITY;
	f.resid = calloc(f.pts.n + 1, sizeof(double));
	f.best_resid = calloc(f.pts.n + 1, sizeof(double));
	f.center_resid = calloc(f.pts.n + 1, sizeof(double));
	for (size_t i = 0; i < spec.nparams; i++) {
		f.resid_lo[i] = calloc(f.pts.n + 1, sizeof(double));
		f.resid_hi[i] = calloc(f.pts.n + 1, sizeof(double));
		if (!f.resid_lo[i] || !f.resid_hi[i]) {
			fprintf(stderr, "futexsim-calibrate: out of memory\n");
			return 1;
		}
		if (from_outputs && value_in_output(&spec, &spec.params[i], &spec.params[i].initial, &e) < 0) {
			fprintf(stderr, "futexsim-calibrate: %s\n", e.msg);
			return e.status ? e.status : 1;
		}
	}
	if (!f.resid || !f.best_resid || !f.center_resid) {
		fprintf(stderr, "futexsim-calibrate: out of memory\n");
		return 1;
	}
	for (size_t i = 0; i < spec.nparams; i++)
		start[i] = spec.params[i].initial;
	initial_loss = evaluate(&f, start);
	if (f.failed)
		return 1;
	if (!dry_run && !from_outputs) {
		const gsl_multimin_fminimizer_type *type = gsl_multimin_fminimizer_nmsimplex2;
		gsl_multimin_fminimizer *m = gsl_multimin_fminimizer_alloc(type, spec.nparams);
		gsl_vector *x = gsl_vector_alloc(spec.nparams), *step = gsl_vector_alloc(spec.nparams);
		gsl_multimin_function fn = { gsl_loss, spec.nparams, &f };

		for (size_t i = 0; i < spec.nparams; i++) {
			gsl_vector_set(x, i, to_free(&spec.params[i], spec.params[i].initial));
			gsl_vector_set(step, i, 0.7); /* about a quarter of the range near the middle */
		}
		gsl_multimin_fminimizer_set(m, &fn, x, step);
		double last_best = f.best_loss;
		unsigned last_gain = f.evals;

		while (!f.failed && f.evals < spec.max_evals) {
			if (gsl_multimin_fminimizer_iterate(m))
				break;
			if (gsl_multimin_test_size(gsl_multimin_fminimizer_size(m), 1e-3) == GSL_SUCCESS)
				break;
			/* the loss of a simulation is piecewise flat: a simplex can cycle on a
			 * plateau without shrinking, so also stop when the best stops improving */
			if (f.best_loss < last_best - 1e-5) {
				last_best = f.best_loss;
				last_gain = f.evals;
			} else if (f.evals - last_gain >= 40) {
				break;
			}
		}
		gsl_multimin_fminimizer_free(m);
		gsl_vector_free(x);
		gsl_vector_free(step);
		if (f.failed)
			return 1;
	}
	if (!dry_run) {
		/* a lower loss found by the profile becomes the fit, profiled in turn,
		 * until a profile finds none: the fit written is then a point no single
		 * parameter's profile step improves (a coordinate descent after the
		 * simplex, which stalls on a simulation's piecewise-flat loss);
		 * --from-outputs profiles the given values once */
		int rounds = from_outputs ? 1 : PROFILE_ROUNDS, round;

		for (round = 0; round < rounds; round++) {
			double fitted = f.best_loss;

			profile(&f);
			if (f.failed)
				return 1;
			if (!(f.best_loss < fitted))
				break;
			printf("the profile found a lower loss: %.5f\n", f.best_loss);
		}
		if (round == rounds && !from_outputs)
			printf("still descending after %d profiles: the fit is the last profiled point, not a minimum\n",
			       rounds);
		/* the fit written is the one profiled, which the covariance is around */
		memcpy(f.best, f.center, spec.nparams * sizeof(double));
		if (covariance(&f) < 0)
			printf("no covariance: fewer points than parameters, or out of memory\n");
	}
	printf("\nloss %.5f at the start, %.5f fitted (%u evaluations)\n", initial_loss,
	       f.profiled ? f.center_loss : f.best_loss, f.evals);
	for (size_t i = 0; i < spec.nparams; i++) {
		char v[64], init[64];

		format_value(&spec.params[i], f.best[i], v, sizeof(v));
		format_value(&spec.params[i], spec.params[i].initial, init, sizeof(init));
		printf("  %-40s %16s   (start %s)", spec.params[i].set, v, init);
		if (f.profiled)
			printf("  profile %+.4f / %+.4f: %s", f.prof_lo[i], f.prof_hi[i],
			       pinned(&f, i) ? "pinned" : "NOT pinned by the data");
		printf("\n");
	}
	if (f.have_cov) {
		printf("standard deviations (linearised; at most the spread of a uniform draw over the range):\n");
		for (size_t i = 0; i < spec.nparams; i++)
			printf("  %-40s %.4g\n", spec.params[i].set, sqrt(f.cov[i * spec.nparams + i]));
	}
	if (from_outputs)
		for (size_t o = 0; o < spec.noutputs; o++) {
			if (rewrite_calibration(&spec, &spec.outputs[o], &f) < 0) {
				fprintf(stderr, "futexsim-calibrate: cannot rewrite %s: %s\n", spec.outputs[o].file,
					strerror(errno));
				return 4;
			}
			printf("rewrote the calibration block of %s\n", spec.outputs[o].file);
		}
	else if (!dry_run)
		for (size_t o = 0; o < spec.noutputs; o++) {
			if (write_output(&spec, &spec.outputs[o], &f, initial_loss, spec_path) < 0) {
				fprintf(stderr, "futexsim-calibrate: cannot write %s: %s\n", spec.outputs[o].file,
					strerror(errno));
				return 4;
			}
			printf("wrote %s\n", spec.outputs[o].file);
		}
	fprintf(stderr, "futexsim-calibrate: %u points simulated, %u reused (%u of them from %s)\n", cache.misses,
		cache.hits + cache.disk_hits, cache.disk_hits, cache_dir ? cache_dir : "no --cache");
	points_free(&f.pts);
	runcache_close(&cache);
	free(f.resid);
	free(f.best_resid);
	free(f.center_resid);
	for (size_t i = 0; i < spec.nparams; i++) {
		free(f.resid_lo[i]);
		free(f.resid_hi[i]);
	}
	yt_doc_free(doc);
	return 0;
}
