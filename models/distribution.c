/* SPDX-License-Identifier: MIT */
#include "models/distribution.h"

#include <gsl/gsl_randist.h>
#include <math.h>
#include <string.h>

#include "sim/core/config.h"

#define MAX_DURATION PS_PER_S

static const char *const kinds[] = { "fixed", "exponential", "uniform", "lognormal", NULL };

int distribution_get(const struct yt_node *map, const char *key, struct distribution dflt, struct distribution *out,
		     struct fs_error *e)
{
	static const char *const keys[] = { "dist", "value", "mean", "min", "max", "median", "sigma", NULL };
	const struct yt_node *n = yt_get(map, key);
	uint64_t sigma_milli;
	int kind;

	*out = dflt;
	if (!n)
		return 0;
	if (n->kind == YT_SCALAR) {
		out->kind = DIST_FIXED;
		return cfg_parse_duration(n, key, 0, MAX_DURATION, &out->a, e);
	}
	if (cfg_expect(n, YT_MAP, key, e) < 0 || cfg_check_keys(n, key, keys, e) < 0 ||
	    cfg_require(n, "dist", key, e) < 0 || cfg_get_enum(n, "dist", kinds, 0, &kind, e) < 0)
		return -1;
	out->kind = (enum dist_kind)kind;
	switch (out->kind) {
	case DIST_FIXED:
		return cfg_require(n, "value", key, e) < 0 ? -1
							    : cfg_get_duration(n, "value", 0, 0, MAX_DURATION, &out->a, e);
	case DIST_EXPONENTIAL:
		return cfg_require(n, "mean", key, e) < 0 ? -1
							   : cfg_get_duration(n, "mean", 0, 1, MAX_DURATION, &out->a, e);
	case DIST_UNIFORM:
		if (cfg_require(n, "min", key, e) < 0 || cfg_require(n, "max", key, e) < 0 ||
		    cfg_get_duration(n, "min", 0, 0, MAX_DURATION, &out->a, e) < 0 ||
		    cfg_get_duration(n, "max", 0, 0, MAX_DURATION, &out->b, e) < 0)
			return -1;
		if (out->b < out->a)
			return fs_fail_at(e, &n->mark, "%s: max is below min", key);
		return 0;
	default:
		if (cfg_require(n, "median", key, e) < 0 ||
		    cfg_get_duration(n, "median", 0, 1, MAX_DURATION, &out->a, e) < 0 ||
		    cfg_get_fixed3(n, "sigma", 500, 0, 5000, &sigma_milli, e) < 0)
			return -1;
		out->sigma = (double)sigma_milli / 1000.0;
		return 0;
	}
}

simtime_t distribution_sample(const struct distribution *d, gsl_rng *r)
{
	double v;

	switch (d->kind) {
	case DIST_FIXED:
		return d->a;
	case DIST_EXPONENTIAL:
		v = gsl_ran_exponential(r, (double)d->a);
		break;
	case DIST_UNIFORM:
		v = gsl_ran_flat(r, (double)d->a, (double)d->b + 1);
		break;
	default:
		v = gsl_ran_lognormal(r, log((double)d->a), d->sigma);
		break;
	}
	/* a tail beyond the longest duration accepted anywhere is cut there */
	return v >= (double)MAX_DURATION * 10 ? MAX_DURATION * 10 : (simtime_t)v;
}

double distribution_mean_ps(const struct distribution *d)
{
	switch (d->kind) {
	case DIST_FIXED:
	case DIST_EXPONENTIAL:
		return (double)d->a;
	case DIST_UNIFORM:
		return ((double)d->a + (double)d->b) / 2;
	default:
		return (double)d->a * exp(d->sigma * d->sigma / 2);
	}
}
