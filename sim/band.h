/* SPDX-License-Identifier: MIT */
/* The uncertainty band of a run (futexsim run --band).
 *
 * A fitted machine config carries a `calibration:` block (written by make
 * calibrate): the fitted costs, their published bounds and their linearised
 * covariance. The band re-runs the scenario with the costs moved by one standard
 * deviation either way along each principal axis of that covariance (its
 * eigenvectors, GSL), clamped to the bounds, and combines the figures of the 2k
 * runs in quadrature, each side on its own: the 1-sigma band of a figure by
 * linear propagation of the fit's uncertainty. It says how far the figure can be
 * trusted as far as the fit goes; errors of the model itself are not in it.
 *
 * A machine built from hardware facts alone has no fit; its `uncertainty: costs:` block
 * gives the range each uncertain cost may take (a proxy's p10-p90, an
 * assumption's physical bounds). Each cost is then its own axis, with the
 * standard deviation of a uniform draw over its range ((max - min) / sqrt 12),
 * around the value the machine gives it, clamped to the range.
 */
#ifndef FUTEXSIM_BAND_H
#define FUTEXSIM_BAND_H

#include <stdint.h>

#include "sim/core/error.h"
#include "sim/core/yamltree.h"

#define BAND_MAX_PARAMS 16
#define BAND_SET_LEN 128

enum band_basis {
	BAND_FIT,    /* the covariance of a calibration block */
	BAND_RANGES  /* the ranges of an uncertainty block */
};

struct band_plan {
	enum band_basis basis;
	uint32_t nparams, nruns;  /* nruns = 2 x the axes with a non-zero spread */
	/* run r's overrides, nparams each: "machine.costs.syscall=201.345ns" */
	char sets[2 * BAND_MAX_PARAMS][BAND_MAX_PARAMS][BAND_SET_LEN];
};

/* The plan from a resolved machine map: from its calibration block, else from its
 * uncertainty block. -1 with a message naming the machine when it has neither, or
 * when the block is malformed (FILE:LINE:COL). */
int band_plan_from_machine(struct band_plan *p, const struct yt_node *machine, struct fs_error *e);

/* [lo, hi] around `center` from the runs' figures (p->nruns of them, in plan
 * order: axis k minus, axis k plus): each side the quadrature sum of the axes'
 * moves to that side. */
/* How the summary names a plan's basis: "the fitted costs", "the costs' ranges". */
const char *band_basis_text(enum band_basis b);
/* Its token in the result file (summary/ops_per_sec_band's `basis`), and back
 * (anything but "ranges" reads as a fit, as files without the attribute do). */
const char *band_basis_name(enum band_basis b);
enum band_basis band_basis_from_name(const char *name);

void band_combine(const struct band_plan *p, double center, const double *figures, double *lo, double *hi);

#endif
