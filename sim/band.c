/* SPDX-License-Identifier: MIT */
#include "sim/band.h"

#include <gsl/gsl_eigen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/core/config.h"

static const char *const unit_names[] = { "ns", "cycles", "factor", NULL };

/* A list of numbers (or, with `names`, of strings) of exactly n entries. */
static int read_list(const struct yt_node *cal, const char *key, uint32_t n, double *nums, const char **names,
		     struct fs_error *e)
{
	const struct yt_node *l = yt_get(cal, key);
	char what[64];

	snprintf(what, sizeof(what), "machine.calibration.%s", key);
	if (cfg_require(cal, key, "machine.calibration", e) < 0 || cfg_expect(l, YT_SEQ, what, e) < 0)
		return -1;
	if (l->len != n)
		return fs_fail_at(e, &l->mark, "%s: %zu entries for %u parameters", what, l->len, n);
	for (uint32_t i = 0; i < n; i++) {
		const struct yt_node *v = l->items[i];
		char *end;

		if (cfg_expect(v, YT_SCALAR, what, e) < 0)
			return -1;
		if (names) {
			names[i] = v->scalar;
			continue;
		}
		nums[i] = strtod(v->scalar, &end);
		if (end == v->scalar || *end || !isfinite(nums[i]))
			return fs_fail_at(e, &v->mark, "%s: '%s' is not a number", what, v->scalar);
	}
	return 0;
}

static void format_set(char *buf, const char *key, int unit, double v)
{
	switch (unit) {
	case 0:
		snprintf(buf, BAND_SET_LEN, "machine.%s=%.3fns", key, v);
		break;
	case 1:
		snprintf(buf, BAND_SET_LEN, "machine.%s=%.3f cycles", key, v);
		break;
	default:
		snprintf(buf, BAND_SET_LEN, "machine.%s=%.3f", key, v);
	}
}

/* Appends the run that sets each of the n parameters to center + move, clamped to
 * [lo, hi]. */
static void add_run(struct band_plan *p, uint32_t n, const char *const *names, const int *unit,
		    const double *center, const double *move, const double *lo, const double *hi)
{
	for (uint32_t i = 0; i < n; i++) {
		double v = center[i] + move[i];

		v = v < lo[i] ? lo[i] : v > hi[i] ? hi[i] : v;
		format_set(p->sets[p->nruns][i], names[i], unit[i], v);
	}
	p->nruns++;
}

/* Each basis: its token in the result file, and how the summary says it. */
static const struct {
	const char *name, *text;
} bases[] = {
	[BAND_FIT] = { "fit", "the fitted costs" },
	[BAND_RANGES] = { "ranges", "the costs' ranges" },
};

const char *band_basis_text(enum band_basis b)
{
	return bases[b].text;
}

const char *band_basis_name(enum band_basis b)
{
	return bases[b].name;
}

enum band_basis band_basis_from_name(const char *name)
{
	return strcmp(name, bases[BAND_RANGES].name) ? BAND_FIT : BAND_RANGES;
}

/* `n`'s entries: a `kind` collection of 1..BAND_MAX_PARAMS entries, named `what`. */
static int band_entries(const struct yt_node *n, enum yt_kind kind, const char *what, uint32_t *count,
			struct fs_error *e)
{
	if (cfg_expect(n, kind, what, e) < 0)
		return -1;
	if (n->len == 0 || n->len > BAND_MAX_PARAMS)
		return fs_fail_at(e, &n->mark, "%s: %zu entries (1..%d)", what, n->len, BAND_MAX_PARAMS);
	*count = (uint32_t)n->len;
	return 0;
}

/* A cost as the configs write it: a number, then "ns", "cycles" or nothing (a
 * factor); its unit as an index of unit_names. */
static int parse_cost(const struct yt_node *v, const char *what, double *x, int *unit, struct fs_error *e)
{
	const char *s;
	char *end;

	if (cfg_expect(v, YT_SCALAR, what, e) < 0)
		return -1;
	s = v->scalar;
	*x = strtod(s, &end);
	if (end == s || !isfinite(*x))
		return fs_fail_at(e, &v->mark, "%s: '%s' is not a cost (a number, then ns, cycles or nothing)", what, s);
	while (*end == ' ')
		end++;
	*unit = !*end ? 2 : !strcmp(end, "ns") ? 0 : !strcmp(end, "cycles") ? 1 : -1;
	if (*unit < 0)
		return fs_fail_at(e, &v->mark, "%s: '%s': the band takes costs in ns, in cycles or as factors", what, s);
	return 0;
}

/* The plan of a machine without a fit: one axis per entry of `uncertainty.costs`
 * (NAME: [MIN, MAX], in the unit of the machine's own costs.NAME); each run sets
 * every listed cost, the moved one and the others at their own value. */
static int plan_from_ranges(struct band_plan *p, const struct yt_node *machine, const struct yt_node *u,
			    struct fs_error *e)
{
	static const char *const keys[] = { "costs", NULL };
	double value[BAND_MAX_PARAMS], lo[BAND_MAX_PARAMS], hi[BAND_MAX_PARAMS];
	int unit[BAND_MAX_PARAMS];
	char names[BAND_MAX_PARAMS][64];
	const char *name[BAND_MAX_PARAMS];
	const struct yt_node *c;
	uint32_t n = 0;

	if (cfg_expect(u, YT_MAP, "machine.uncertainty", e) < 0 ||
	    cfg_check_keys(u, "machine.uncertainty", keys, e) < 0 ||
	    cfg_require(u, "costs", "machine.uncertainty", e) < 0)
		return -1;
	c = yt_get(u, "costs");
	if (band_entries(c, YT_MAP, "machine.uncertainty.costs", &n, e) < 0)
		return -1;
	for (uint32_t i = 0; i < n; i++) {
		const struct yt_node *range = c->items[i], *cur = yt_get(yt_get(machine, "costs"), c->keys[i]);
		int ulo, uhi;
		char what[96];

		snprintf(names[i], sizeof(names[i]), "costs.%s", c->keys[i]);
		name[i] = names[i];
		snprintf(what, sizeof(what), "machine.uncertainty.%s", names[i]);
		if (!cur)
			return fs_fail_at(e, &range->mark, "%s: the machine sets no %s", what, names[i]);
		if (cfg_expect(range, YT_SEQ, what, e) < 0)
			return -1;
		if (range->len != 2)
			return fs_fail_at(e, &range->mark, "%s: [MIN, MAX], not %zu entries", what, range->len);
		if (parse_cost(cur, what, &value[i], &unit[i], e) < 0 ||
		    parse_cost(range->items[0], what, &lo[i], &ulo, e) < 0 ||
		    parse_cost(range->items[1], what, &hi[i], &uhi, e) < 0)
			return -1;
		if (ulo != unit[i] || uhi != unit[i])
			return fs_fail_at(e, &range->mark, "%s: the range's unit differs from the machine's value '%s'", what,
					  cur->scalar);
		if (!(lo[i] <= value[i] && value[i] <= hi[i]))
			return fs_fail_at(e, &range->mark, "%s: the machine's value %g is outside %g..%g", what, value[i],
					  lo[i], hi[i]);
	}
	p->basis = BAND_RANGES;
	p->nparams = n;
	for (uint32_t a = 0; a < n; a++) {
		double move[BAND_MAX_PARAMS] = { 0 }, sd = (hi[a] - lo[a]) / sqrt(12.0);

		if (!(sd > 0))
			continue;
		for (int side = 0; side < 2; side++) {
			move[a] = side ? sd : -sd;
			add_run(p, n, name, unit, value, move, lo, hi);
		}
	}
	return 0;
}

int band_plan_from_machine(struct band_plan *p, const struct yt_node *machine, struct fs_error *e)
{
	static const char *const keys[] = { "parameters", "units", "fitted", "min", "max", "covariance", NULL };
	const struct yt_node *cal = yt_get(machine, "calibration"), *params, *rows;
	const char *names[BAND_MAX_PARAMS], *units[BAND_MAX_PARAMS]; /* units: checked by name below */
	double fitted[BAND_MAX_PARAMS], lo[BAND_MAX_PARAMS], hi[BAND_MAX_PARAMS];
	int unit[BAND_MAX_PARAMS];
	gsl_matrix *cov, *vec;
	gsl_vector *val;
	gsl_eigen_symmv_workspace *w;
	uint32_t n = 0;
	int rc = 0;

	memset(p, 0, sizeof(*p));
	if (!cal && yt_get(machine, "uncertainty"))
		return plan_from_ranges(p, machine, yt_get(machine, "uncertainty"), e);
	if (!cal) {
		const struct yt_node *name = yt_get(machine, "name");

		return fs_fail(e, FS_ERR_INPUT,
			       "machine '%s' has neither a calibration block nor an uncertainty block: --band needs "
			       "a fitted machine config (make calibrate writes them, e.g. e5-2650-2s) or the ranges "
			       "of its uncertain costs (docs/machine.md)",
			       name && name->kind == YT_SCALAR ? name->scalar : "?");
	}
	if (cfg_expect(cal, YT_MAP, "machine.calibration", e) < 0 ||
	    cfg_check_keys(cal, "machine.calibration", keys, e) < 0 ||
	    cfg_require(cal, "parameters", "machine.calibration", e) < 0)
		return -1;
	params = yt_get(cal, "parameters");
	if (band_entries(params, YT_SEQ, "machine.calibration.parameters", &n, e) < 0)
		return -1;
	if (read_list(cal, "parameters", n, NULL, names, e) < 0 || read_list(cal, "units", n, NULL, units, e) < 0 ||
	    read_list(cal, "fitted", n, fitted, NULL, e) < 0 || read_list(cal, "min", n, lo, NULL, e) < 0 ||
	    read_list(cal, "max", n, hi, NULL, e) < 0 || cfg_require(cal, "covariance", "machine.calibration", e) < 0)
		return -1;
	for (uint32_t i = 0; i < n; i++) {
		const struct yt_node *u = yt_get(cal, "units")->items[i];

		if (cfg_parse_enum(u, "machine.calibration.units", unit_names, &unit[i], e) < 0)
			return -1;
		if (!(lo[i] <= fitted[i] && fitted[i] <= hi[i]))
			return fs_fail_at(e, &yt_get(cal, "fitted")->items[i]->mark,
					  "machine.calibration.fitted: %s = %g outside its bounds %g..%g", names[i],
					  fitted[i], lo[i], hi[i]);
	}
	rows = yt_get(cal, "covariance");
	if (cfg_expect(rows, YT_SEQ, "machine.calibration.covariance", e) < 0)
		return -1;
	if (rows->len != n)
		return fs_fail_at(e, &rows->mark, "machine.calibration.covariance: %zu rows for %u parameters", rows->len,
				  n);
	cov = gsl_matrix_alloc(n, n);
	vec = gsl_matrix_alloc(n, n);
	val = gsl_vector_alloc(n);
	w = gsl_eigen_symmv_alloc(n);
	if (!cov || !vec || !val || !w) {
		rc = fs_fail(e, FS_ERR_LIMIT, "out of memory");
		goto out;
	}
	for (uint32_t j = 0; j < n && !rc; j++) {
		if (cfg_expect(rows->items[j], YT_SEQ, "machine.calibration.covariance", e) < 0) {
			rc = -1;
			break;
		}
		if (rows->items[j]->len != n) {
			rc = fs_fail_at(e, &rows->items[j]->mark, "machine.calibration.covariance[%u]: %zu entries for %u "
				       "parameters", j, rows->items[j]->len, n);
			break;
		}
		for (uint32_t k = 0; k < n; k++) {
			const struct yt_node *v = rows->items[j]->items[k];
			char *end;
			double x;

			if (cfg_expect(v, YT_SCALAR, "machine.calibration.covariance", e) < 0) {
				rc = -1;
				break;
			}
			x = strtod(v->scalar, &end);
			if (end == v->scalar || *end || !isfinite(x) || (j == k && x < 0)) {
				rc = fs_fail_at(e, &v->mark, "machine.calibration.covariance[%u][%u]: '%s' is not a %s", j,
						k, v->scalar, j == k ? "variance (a number >= 0)" : "number");
				break;
			}
			gsl_matrix_set(cov, j, k, x);
		}
	}
	if (rc)
		goto out;
	/* the eigenvectors of the symmetric part */
	for (uint32_t j = 0; j < n; j++)
		for (uint32_t k = j + 1; k < n; k++) {
			double m = (gsl_matrix_get(cov, j, k) + gsl_matrix_get(cov, k, j)) / 2;

			gsl_matrix_set(cov, j, k, m);
			gsl_matrix_set(cov, k, j, m);
		}
	gsl_eigen_symmv(cov, val, vec, w);
	gsl_eigen_symmv_sort(val, vec, GSL_EIGEN_SORT_VAL_DESC);
	for (uint32_t a = 0; a < n; a++) {
		double sd = gsl_vector_get(val, a), big = 0;

		if (!(sd > 0))
			continue;
		/* an eigenvector's sign is arbitrary: its largest entry positive, so
		 * the runs come in the same order with every GSL */
		for (uint32_t i = 0; i < n; i++)
			if (fabs(gsl_matrix_get(vec, i, a)) > fabs(big))
				big = gsl_matrix_get(vec, i, a);
		sd = big < 0 ? -sqrt(sd) : sqrt(sd);
		for (int side = 0; side < 2; side++) {
			double move[BAND_MAX_PARAMS];

			for (uint32_t i = 0; i < n; i++)
				move[i] = (side ? sd : -sd) * gsl_matrix_get(vec, i, a);
			add_run(p, n, names, unit, fitted, move, lo, hi);
		}
	}
	p->nparams = n;
out:
	gsl_matrix_free(cov);
	gsl_matrix_free(vec);
	gsl_vector_free(val);
	if (w)
		gsl_eigen_symmv_free(w);
	return rc;
}

void band_combine(const struct band_plan *p, double center, const double *figures, double *lo, double *hi)
{
	double down = 0, up = 0;

	for (uint32_t a = 0; a + 1 < p->nruns; a += 2) {
		double d = 0, u = 0;

		for (int s = 0; s < 2; s++) {
			double move = figures[a + (uint32_t)s] - center;

			if (move < 0 && -move > d)
				d = -move;
			if (move > 0 && move > u)
				u = move;
		}
		down += d * d;
		up += u * u;
	}
	*lo = center - sqrt(down);
	*hi = center + sqrt(up);
}
