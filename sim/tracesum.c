/* SPDX-License-Identifier: MIT */
#include "sim/tracesum.h"

#include <string.h>

static double figure(const struct results *r, const char *name)
{
	for (uint32_t i = 0; i < r->nfigures; i++)
		if (!strcmp(r->figures[i].name, name))
			return r->figures[i].value;
	return 0;
}

void tracesum_print(const struct results *r, FILE *out)
{
	if (!r->workload || strcmp(r->workload, "trace"))
		return;
	/* figures in ps: seconds with six significant digits */
	fprintf(out, "trace: %.0f calls replayed of %.0f recorded; run time %.6g s vs %.6g s recorded; blocked %.6g s vs %.6g s recorded\n",
		figure(r, "calls_replayed"), figure(r, "calls_recorded"), figure(r, "run_time") / 1e12,
		figure(r, "run_time_recorded") / 1e12, figure(r, "blocked_time") / 1e12,
		figure(r, "blocked_time_recorded") / 1e12);
}
