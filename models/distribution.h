/* SPDX-License-Identifier: MIT */
/* Random durations named in YAML (critical sections, think times), drawn with GSL.
 *
 * A distribution is a duration (fixed) or a map {dist: fixed|exponential|uniform|
 * lognormal, ...}: fixed {value}, exponential {mean}, uniform {min, max},
 * lognormal {median, sigma} (sigma of the underlying normal, a decimal).
 */
#ifndef FUTEXSIM_DISTRIBUTION_H
#define FUTEXSIM_DISTRIBUTION_H

#include <gsl/gsl_rng.h>

#include "sim/core/error.h"
#include "sim/core/simtime.h"
#include "sim/core/yamltree.h"

enum dist_kind { DIST_FIXED, DIST_EXPONENTIAL, DIST_UNIFORM, DIST_LOGNORMAL };

struct distribution {
	enum dist_kind kind;
	simtime_t a, b;   /* fixed: value; exponential: mean; uniform: min, max; lognormal: median */
	double sigma;     /* lognormal */
};

/* Reads map[key] (absent: `dflt`). */
int distribution_get(const struct yt_node *map, const char *key, struct distribution dflt, struct distribution *out,
		     struct fs_error *e);

simtime_t distribution_sample(const struct distribution *d, gsl_rng *r);

/* The mean, for documentation and estimates. */
double distribution_mean_ps(const struct distribution *d);

#endif
