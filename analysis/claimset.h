/* SPDX-License-Identifier: MIT */
/* The claims of the seed threads, each checked in simulation.
 *
 * A claim is a statement from the LKML threads and commits futexsim grew from
 * (docs/sources.md lists them), the scenario of scenarios/claims/ that tests it, and a check
 * that runs the scenario (and its variants) and decides whether the statement's
 * direction holds in the model, with the figures that decide it. Used by
 * bin/futexsim-claims (make claims) and tests/check_claims.c.
 */
#ifndef FUTEXSIM_CLAIMSET_H
#define FUTEXSIM_CLAIMSET_H

#include <stdbool.h>
#include <stddef.h>

#include "sim/core/error.h"

struct claim_result {
	bool holds;
	char figures[1024];
};

struct claim_options {
	const char *duration;  /* overrides run.duration of every run (e.g. "1ms"), or NULL */
};

struct claim {
	const char *name;
	const char *statement;
	const char *scenario;
	/* must_hold: the model holds it by construction; otherwise an open question the
	 * model answers (reported, not asserted) */
	bool must_hold;
	int (*check)(const struct claim *c, const struct claim_options *o, struct claim_result *r,
		     struct fs_error *e);
};

const struct claim *claims(size_t *n);

#endif
